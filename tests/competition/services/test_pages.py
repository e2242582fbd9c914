"""Pages, terms, team approval and announcements: the services and the pages behind them."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from competition import services
from competition.errors import SubmissionRejected, TeamError
from competition.models import Announcement, AnnouncementOptOut, TermsAcceptance
from competition.selectors_pages import team_approval_state, terms_pending
from competition.services import pages

pytestmark = pytest.mark.django_db


def _submit(world, user, team):
    return services.submission_create(
        team=team, phase=world.phase, user=user, files=world.uploads()
    )


def test_terms_block_team_create_join_and_submit_until_accepted(
    world, django_capture_on_commit_callbacks
):
    """With terms, creating or joining a team and submitting are refused with
    terms_not_accepted; after acceptance (recorded with its time) they work."""
    pages.page_save(competition=world.competition, kind="terms", body="Be **fair**.")
    with pytest.raises(TeamError) as refused:
        services.team_create(competition=world.competition, name="Gamma", user=world.mallory)
    assert refused.value.code == "terms_not_accepted"
    assert "/pages/terms/" in refused.value.message
    with pytest.raises(TeamError) as refused:
        services.team_join(
            competition=world.competition, invite_code=world.alpha.invite_code, user=world.mallory
        )
    assert refused.value.code == "terms_not_accepted"
    with pytest.raises(SubmissionRejected) as rejected:
        _submit(world, world.alice, world.alpha)
    assert rejected.value.code == "terms_not_accepted"

    acceptance = pages.terms_accept(competition=world.competition, user=world.alice)
    assert acceptance.accepted_at is not None
    with django_capture_on_commit_callbacks(execute=False):
        assert _submit(world, world.alice, world.alpha).pk


def test_changed_terms_must_be_accepted_again(world):
    pages.page_save(competition=world.competition, kind="terms", body="Version 1")
    pages.terms_accept(competition=world.competition, user=world.alice)
    assert not terms_pending(competition=world.competition, user=world.alice)
    pages.page_save(competition=world.competition, kind="terms", body="Version 2")
    assert terms_pending(competition=world.competition, user=world.alice)
    pages.terms_accept(competition=world.competition, user=world.alice)
    assert TermsAcceptance.objects.filter(user=world.alice).count() == 2


def test_no_terms_no_acceptance_needed(world, django_capture_on_commit_callbacks):
    assert pages.terms_accept(competition=world.competition, user=world.alice) is None
    with django_capture_on_commit_callbacks(execute=False):
        assert _submit(world, world.alice, world.alpha).pk


def test_team_approval_pending_rejected_approved(world, django_capture_on_commit_callbacks):
    """A team waits until approved; a rejected team is told why; baselines are not held."""
    pages.team_approval_require(competition=world.competition, required=True)
    assert team_approval_state(team=world.alpha).status == "pending"
    with pytest.raises(SubmissionRejected) as rejected:
        _submit(world, world.alice, world.alpha)
    assert rejected.value.code == "team_pending"
    pages.team_decide(team=world.alpha, approve=False, reason="Please use your real name.")
    with pytest.raises(SubmissionRejected) as rejected:
        _submit(world, world.alice, world.alpha)
    assert rejected.value.code == "team_rejected"
    assert "Please use your real name." in rejected.value.message
    pages.team_decide(team=world.alpha, approve=True)
    with django_capture_on_commit_callbacks(execute=False):
        assert _submit(world, world.alice, world.alpha).pk
    organizers = services.organizer_team_get_or_create(competition=world.competition)
    assert team_approval_state(team=organizers).may_submit
    pages.team_approval_require(competition=world.competition, required=False)
    assert team_approval_state(team=world.beta).may_submit


def test_api_refuses_an_unapproved_team_with_a_code(world, client):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    pages.team_approval_require(competition=world.competition, required=True)
    api = APIClient()
    token, _ = Token.objects.get_or_create(user=world.alice)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api.post(
        f"/api/phases/{world.phase.pk}/submissions/", world.uploads(), format="multipart"
    )
    assert response.status_code == 403
    assert response.json()["code"] == "team_pending"
    assert "approval" in response.json()["detail"]


def test_announcement_is_mailed_to_members_except_opted_out_with_working_unsubscribe(
    world, client, django_capture_on_commit_callbacks, settings
):
    settings.SITE_URL = "http://testserver"
    world.alice.email = "alice@example.org"
    world.alice.save()
    world.bob.email = "bob@example.org"
    world.bob.save()
    world.mallory.email = "mallory@example.org"  # in no team: not mailed
    world.mallory.save()
    pages.announcement_emails_set(competition=world.competition, user=world.bob, wanted=False)
    with django_capture_on_commit_callbacks(execute=True):
        announcement = pages.announcement_post(
            competition=world.competition,
            title="Test data released",
            body="Get it from the **data** page.",
        )
    [message] = mail.outbox
    assert message.to == ["alice@example.org"]
    assert message.subject == "[CODI-CRAC test] Test data released"
    assert "Get it from the **data** page." in message.body
    html = message.alternatives[0][0]
    assert "<strong>data</strong>" in html
    link = re.search(
        r"http://testserver(/competitions/codi-test/unsubscribe/[^/]+/)", message.body
    ).group(1)
    assert message.extra_headers["List-Unsubscribe"].startswith("<http://testserver/")
    announcement.refresh_from_db()
    assert announcement.emailed_to == 1
    assert pages.announcement_email_send(announcement_id=announcement.pk) == 0  # once only

    # The link works without logging in; GET only asks.
    assert client.get(link).status_code == 200
    assert not AnnouncementOptOut.objects.filter(user=world.alice).exists()
    assert client.post(link).status_code == 200
    assert AnnouncementOptOut.objects.filter(
        user=world.alice, competition=world.competition
    ).exists()
    # A forged or cut token is refused.
    assert client.post(link[:-8] + "xxxxxxx/").status_code == 400
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        pages.announcement_post(competition=world.competition, title="Again", body="")
    assert mail.outbox == []


def test_unsubscribe_token_of_another_competition_is_refused(world, client):
    from competition.models import Competition

    other = Competition.objects.create(slug="other", title="Other", published_at=timezone.now())
    token = pages.unsubscribe_token(competition=other, user=world.alice)
    response = client.post(reverse("competition:unsubscribe", args=["codi-test", token]))
    assert response.status_code == 400
    assert not AnnouncementOptOut.objects.exists()


def test_pages_show_rendered_markdown_and_only_organizers_edit(world, client):
    world.competition.organizers.add(world.bob)
    pages.page_save(
        competition=world.competition,
        kind="evaluation",
        body="# Metrics\n<script>alert(1)</script>[x](javascript:alert(1))",
    )
    page = client.get("/competitions/codi-test/pages/evaluation/")
    body = page.content.decode()
    assert page.status_code == 200 and "<h1>Metrics</h1>" in body
    assert "<script>alert(1)" not in body and 'href="javascript' not in body
    assert client.get("/competitions/codi-test/pages/data/").status_code == 404  # empty
    client.force_login(world.alice)
    assert client.get("/competitions/codi-test/pages/data/edit/").status_code == 404
    assert (
        client.post(
            "/competitions/codi-test/pages/data/edit/", {"body": "x", "action": "save"}
        ).status_code
        == 404
    )
    client.force_login(world.bob)
    response = client.post(
        "/competitions/codi-test/pages/data/edit/",
        {"body": "Files are on the phase page.", "action": "save"},
    )
    assert response.status_code == 302
    assert (
        "Files are on the phase page."
        in client.get("/competitions/codi-test/pages/data/").content.decode()
    )


def test_organizer_teams_page_approves_and_rejects(world, client):
    world.competition.organizers.add(world.bob)
    client.force_login(world.alice)
    assert client.get("/competitions/codi-test/organize/teams/").status_code == 404
    client.force_login(world.bob)
    client.post("/competitions/codi-test/organize/teams/", {"action": "require"})
    client.post(
        "/competitions/codi-test/organize/teams/",
        {"action": "reject", "team": world.alpha.pk, "reason": "Duplicate team"},
    )
    assert team_approval_state(team=world.alpha).status == "rejected"
    assert team_approval_state(team=world.beta).status == "pending"
    page = client.get("/competitions/codi-test/organize/teams/").content.decode()
    assert "Duplicate team" in page
    client.post(
        "/competitions/codi-test/organize/teams/", {"action": "approve", "team": world.alpha.pk}
    )
    assert team_approval_state(team=world.alpha).may_submit


def test_announcements_posted_by_organizers_only_and_listed_newest_first(world, client):
    world.competition.organizers.add(world.bob)
    client.force_login(world.alice)
    assert (
        client.post("/competitions/codi-test/announcements/", {"title": "Fake"}).status_code == 404
    )
    client.force_login(world.bob)
    for title in ("First", "Second"):
        client.post("/competitions/codi-test/announcements/", {"title": title, "body": ""})
    assert list(Announcement.objects.values_list("title", flat=True)) == ["Second", "First"]
    body = client.get("/competitions/codi-test/").content.decode()
    section = body[body.index('id="announcements"') :]
    assert section.index("Second") < section.index("First")
