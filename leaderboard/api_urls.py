"""REST API routes (mounted at /api/): see docs/api.md."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from leaderboard import api, api_cards

urlpatterns = [
    path("token/", api.TokenView.as_view(), name="api-token"),
    path("competitions/", api.CompetitionListView.as_view(), name="api-competitions"),
    path("competitions/<slug:slug>/", api.CompetitionDetailView.as_view(), name="api-competition"),
    path("phases/<int:phase_id>/", api.PhaseDetailView.as_view(), name="api-phase"),
    path(
        "phases/<int:phase_id>/submissions/",
        api.PhaseSubmissionsView.as_view(),
        name="api-phase-submissions",
    ),
    path("phases/<int:phase_id>/check/", api.PhaseCheckView.as_view(), name="api-phase-check"),
    path(
        "phases/<int:phase_id>/leaderboard/", api.LeaderboardView.as_view(), name="api-leaderboard"
    ),
    path(
        "submissions/<int:submission_id>/",
        api.SubmissionDetailView.as_view(),
        name="api-submission",
    ),
    path(
        "submissions/<int:submission_id>/documents/",
        api.SubmissionDocumentsView.as_view(),
        name="api-submission-documents",
    ),
    path(
        "submissions/<int:submission_id>/card/",
        api_cards.SubmissionCardView.as_view(),
        name="api-submission-card",
    ),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]
