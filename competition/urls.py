"""Pages of the competition app.

Phase pages live under ``competitions/<slug>/<task>/<phase>/``; the leaderboard app adds its
own pages under the same prefix (``.../leaderboard/``).
"""

from django.urls import path

from competition import (
    views,
    views_account,
    views_bundles,
    views_card_questions,
    views_cards,
    views_editor,
    views_editor_phase,
    views_pages,
    views_publish,
)

app_name = "competition"

PHASE = "competitions/<slug:slug>/<slug:task>/<slug:phase>/"
EDIT = "edit/<slug:slug>/"

urlpatterns = [
    path("", views.home, name="home"),
    path("competitions/<slug:slug>/", views.competition_detail, name="competition"),
    path("competitions/<slug:slug>/team/", views.team, name="team"),
    # pages, terms, team approval, announcements (before PHASE, whose slugs would match)
    path("competitions/<slug:slug>/pages/<slug:kind>/", views_pages.page, name="page"),
    path(
        "competitions/<slug:slug>/pages/<slug:kind>/edit/", views_pages.page_edit, name="page_edit"
    ),
    path("competitions/<slug:slug>/terms/accept/", views_pages.terms_accept, name="terms_accept"),
    path(
        "competitions/<slug:slug>/organize/teams/",
        views_pages.organize_teams,
        name="organize_teams",
    ),
    path("competitions/<slug:slug>/organize/publish/", views_publish.publish, name="publish"),
    path(
        "competitions/<slug:slug>/organize/organizers/", views_publish.organizers, name="organizers"
    ),
    path("competitions/<slug:slug>/organize/log/", views_publish.audit_log, name="audit_log"),
    path(
        "competitions/<slug:slug>/announcements/", views_pages.announcements, name="announcements"
    ),
    path(
        "competitions/<slug:slug>/announcements/e-mail/",
        views_pages.announcement_emails,
        name="announcement_emails",
    ),
    path(
        "competitions/<slug:slug>/unsubscribe/<str:token>/",
        views_pages.unsubscribe,
        name="unsubscribe",
    ),
    path(
        "competitions/<slug:slug>/team/<int:team_id>/rename/",
        views_account.team_rename,
        name="team_rename",
    ),
    path(
        "competitions/<slug:slug>/team/<int:team_id>/leave/",
        views_account.team_leave,
        name="team_leave",
    ),
    path(
        "competitions/<slug:slug>/team/<int:team_id>/remove/<int:user_id>/",
        views_account.team_member_remove,
        name="team_member_remove",
    ),
    path("competitions/<slug:slug>/teams/", views_account.teams_organize, name="teams_organize"),
    path(PHASE + "submit/", views.phase_submit, name="submit"),
    path(PHASE + "submissions/", views.phase_submissions, name="submissions"),
    path(PHASE, views_editor_phase.phase_page, name="phase"),
    path("data/<int:pk>/<str:file_name>", views_editor_phase.data_download, name="data_download"),
    path("new-competition/", views_editor.competition_new, name="competition_new"),
    path("new-competition/bundle/", views_bundles.bundle_import_view, name="bundle_import"),
    path(
        "new-competition/bundle/job/<int:job_id>/",
        views_bundles.bundle_job_view,
        name="bundle_job",
    ),
    path(EDIT, views_editor.competition_edit, name="edit"),
    path(EDIT + "import-results/", views_bundles.bundle_results_view, name="bundle_results"),
    path(EDIT + "system-card/", views_cards.card_defaults, name="card_defaults"),
    path(
        EDIT + "system-card/question/",
        views_card_questions.card_question,
        name="card_question",
    ),
    path(
        EDIT + "definition.yaml",
        views_editor.definition_download,
        {"fmt": "yaml"},
        name="definition_yaml",
    ),
    path(
        EDIT + "definition.zip",
        views_editor.definition_download,
        {"fmt": "zip"},
        name="definition_zip",
    ),
    path(EDIT + "<slug:task>/", views_editor.task_edit, name="edit_task"),
    path(EDIT + "<slug:task>/<slug:phase>/", views_editor_phase.phase_edit, name="edit_phase"),
    path(
        EDIT + "<slug:task>/<slug:phase>/<slug:subcorpus>/",
        views_editor_phase.subcorpus_edit,
        name="edit_subcorpus",
    ),
    path("submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("submissions/<int:pk>/card/", views_cards.submission_card, name="submission_card"),
    path("submissions/<int:pk>/status.json", views.submission_status, name="submission_status"),
    path("submissions/<int:pk>/cancel/", views.submission_cancel, name="submission_cancel"),
    path(
        "submissions/<int:pk>/describe/",
        views_account.submission_describe,
        name="submission_describe",
    ),
    path("submissions/<int:pk>/choose/", views.submission_choose, name="submission_choose"),
]
