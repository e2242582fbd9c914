"""URL map: admin, accounts, competition pages, leaderboard pages, REST API, health."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("competition.account_urls")),
    path("", include("competition.urls")),
    path("", include("leaderboard.urls")),
    path("api/", include("leaderboard.api_urls")),
    path("health/", include("config.health")),
]
