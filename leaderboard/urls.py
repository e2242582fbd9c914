"""HTML pages and downloads of the leaderboard app (mounted at the site root).

Phase pages share the competition app's prefix ``competitions/<slug>/<task>/<phase>/``;
submission pages share ``submissions/<id>/``.
"""

from django.urls import path

from leaderboard import views, views_organize, views_record

app_name = "leaderboard"

PHASE = "competitions/<slug:competition>/<slug:task>/<slug:phase>/"

urlpatterns = [
    path(
        "competitions/<slug:competition>/leaderboards/",
        views.competition_boards,
        name="competition",
    ),
    path(PHASE + "leaderboard/", views.board, name="board"),
    path(PHASE + "leaderboard/languages/", views.board_languages_page, name="board_languages"),
    path(PHASE + "leaderboard.csv", views.board_export, {"fmt": "csv"}, name="board_csv"),
    path(PHASE + "leaderboard.json", views.board_export, {"fmt": "json"}, name="board_json"),
    path(PHASE + "organize/", views.organize_phase, name="organize_phase"),
    path(PHASE + "final-submissions.zip", views_organize.final_runs_zip, name="final_submissions"),
    path(PHASE + "results-package.zip", views_record.results_package_zip, name="results_package"),
    path(
        PHASE + "results-package/",
        views_record.results_package_progress,
        name="results_package_progress",
    ),
    path(
        PHASE + "results-package/download.zip",
        views_record.results_package_download,
        name="results_package_download",
    ),
    path(
        PHASE + "frozen/<int:snapshot_id>.json",
        views_record.frozen_board_json,
        name="frozen_board_json",
    ),
    path(
        PHASE + "organize/rescore/<int:batch_id>/",
        views_organize.rescore_progress_page,
        name="rescore_progress",
    ),
    path(
        PHASE + "organize/rescore/<int:batch_id>.json",
        views_organize.rescore_progress_json,
        name="rescore_progress_json",
    ),
    path("submissions/<int:submission_id>/analysis/", views.analysis, name="analysis"),
    path(
        "submissions/<int:submission_id>/documents.csv",
        views.documents_export,
        {"fmt": "csv"},
        name="documents_csv",
    ),
    path(
        "submissions/<int:submission_id>/documents.json",
        views.documents_export,
        {"fmt": "json"},
        name="documents_json",
    ),
    path(
        "submissions/<int:submission_id>/organize/",
        views.organize_submission,
        name="organize_submission",
    ),
    path("compare/", views.compare, name="compare"),
]
