"""Pages of the competition app.

Phase pages live under ``competitions/<slug>/<task>/<phase>/``; the leaderboard app adds its
own pages under the same prefix (``.../leaderboard/``).
"""

from django.urls import path

from competition import views, views_account

app_name = "competition"

PHASE = "competitions/<slug:slug>/<slug:task>/<slug:phase>/"

urlpatterns = [
    path("", views.home, name="home"),
    path("competitions/<slug:slug>/", views.competition_detail, name="competition"),
    path("competitions/<slug:slug>/team/", views.team, name="team"),
    path("competitions/<slug:slug>/team/<int:team_id>/rename/", views_account.team_rename,
         name="team_rename"),
    path("competitions/<slug:slug>/team/<int:team_id>/leave/", views_account.team_leave,
         name="team_leave"),
    path("competitions/<slug:slug>/team/<int:team_id>/remove/<int:user_id>/",
         views_account.team_member_remove, name="team_member_remove"),
    path("competitions/<slug:slug>/teams/", views_account.teams_organize,
         name="teams_organize"),
    path(PHASE + "submit/", views.phase_submit, name="submit"),
    path(PHASE + "submissions/", views.phase_submissions, name="submissions"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("submissions/<int:pk>/status.json", views.submission_status, name="submission_status"),
    path("submissions/<int:pk>/cancel/", views.submission_cancel, name="submission_cancel"),
    path("submissions/<int:pk>/describe/", views_account.submission_describe,
         name="submission_describe"),
    path("submissions/<int:pk>/choose/", views.submission_choose, name="submission_choose"),
]
