"""URL map: admin, accounts, competition pages, leaderboard pages, REST API, health."""

from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path


def favicon(request):
    """Browsers ask for /favicon.ico whatever a page says: send them to the site's icon
    (resolved per request, so a hashed static name is found once collected)."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("competition.account_urls")),
    path("", include("competition.urls")),
    path("", include("leaderboard.urls")),
    path("api/", include("leaderboard.api_urls")),
    path("health/", include("config.health")),
    path("favicon.ico", favicon),
]
