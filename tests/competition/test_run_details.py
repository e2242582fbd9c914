"""One rule for a run's details (competition.visibility.submission_details_visible), applied
alike to the run's page, its analysis page, its per-document exports and the API. The run's
own view (the page, ``/api/submissions/<id>/``: status, messages, files) is its team's only;
another team that may see the details is sent from the page to the analysis, and the API
answers it with what the analysis shows (name, status, scores; no files, no messages)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from competition import services
from competition.models import Phase, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored(world, django_capture_on_commit_callbacks) -> Submission:
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    return submission


def answers(user, submission: Submission) -> dict[str, int]:
    """The status of every place that shows the run's details, for ``user``."""
    client = Client()
    headers = {}
    if user is not None:
        client.force_login(user)
        token, _ = Token.objects.get_or_create(user=user)
        headers = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    pk = submission.pk
    return {
        "page": client.get(reverse("competition:submission", args=[pk])).status_code,
        "analysis": client.get(reverse("leaderboard:analysis", args=[pk])).status_code,
        "csv": client.get(reverse("leaderboard:documents_csv", args=[pk])).status_code,
        "api": client.get(f"/api/submissions/{pk}/", **headers).status_code,
        "api_documents": client.get(f"/api/submissions/{pk}/documents/", **headers).status_code,
    }


def test_public_details_open_every_place_to_other_teams(world, scored):
    """In a public phase with public run details, another team reads the analysis, the
    exports and the API's public view of the run; the run's own page sends it to the
    analysis."""
    assert world.phase.run_details == Phase.RunDetails.PUBLIC
    assert answers(world.bob, scored) == {
        "page": 302,
        "analysis": 200,
        "csv": 200,
        "api": 200,
        "api_documents": 200,
    }
    client = Client()
    token, _ = Token.objects.get_or_create(user=world.bob)
    body = client.get(
        f"/api/submissions/{scored.pk}/", HTTP_AUTHORIZATION=f"Token {token.key}"
    ).json()
    assert body["scores"] and not {"files", "error", "status_detail"} & set(body)
    assert answers(world.alice, scored) == {
        "page": 200,
        "analysis": 200,
        "csv": 200,
        "api": 200,
        "api_documents": 200,
    }


def test_team_only_details_close_every_place_to_other_teams(world, scored):
    world.phase.run_details = Phase.RunDetails.TEAM
    world.phase.save()
    closed = {"page": 404, "analysis": 404, "csv": 404, "api": 404, "api_documents": 404}
    assert answers(world.bob, scored) == closed
    assert answers(world.mallory, scored) == closed
    assert answers(world.alice, scored) == {
        "page": 200,
        "analysis": 200,
        "csv": 200,
        "api": 200,
        "api_documents": 200,
    }


def test_a_hidden_phase_closes_the_details_whatever_the_setting(world, scored):
    world.phase.leaderboard_visibility = Phase.Visibility.HIDDEN
    world.phase.save()
    closed = {"page": 404, "analysis": 404, "csv": 404, "api": 404, "api_documents": 404}
    assert answers(world.bob, scored) == closed


def test_a_disqualified_run_is_closed_to_other_teams(world, scored):
    services.submission_disqualify(submission=scored, reason="late")
    closed = {"page": 404, "analysis": 404, "csv": 404, "api": 404, "api_documents": 404}
    assert answers(world.bob, scored) == closed
