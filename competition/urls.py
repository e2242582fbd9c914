"""Pages of the competition app.

Phase pages live under ``competitions/<slug>/<task>/<phase>/``; the leaderboard app adds its
own pages under the same prefix (``.../leaderboard/``).
"""

from django.urls import path

from competition import views

app_name = "competition"

PHASE = "competitions/<slug:slug>/<slug:task>/<slug:phase>/"

urlpatterns = [
    path("", views.home, name="home"),
    path("competitions/<slug:slug>/", views.competition_detail, name="competition"),
    path("competitions/<slug:slug>/team/", views.team, name="team"),
    path(PHASE + "submit/", views.phase_submit, name="submit"),
    path(PHASE + "submissions/", views.phase_submissions, name="submissions"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("submissions/<int:pk>/status.json", views.submission_status, name="submission_status"),
    path("submissions/<int:pk>/cancel/", views.submission_cancel, name="submission_cancel"),
    path("submissions/<int:pk>/choose/", views.submission_choose, name="submission_choose"),
]
