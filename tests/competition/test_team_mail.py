"""Mail about teams: the organizers hear of a team waiting for approval, the team of the
decision; and the reminder before a test phase closes goes once to teams with no run."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from competition import services
from competition.models import DeadlineReminder, Phase
from competition.services.pages import (
    announcement_emails_set,
    deadline_reminders_set,
    team_approval_require,
    team_decide,
)
from competition.services.reminders import deadline_reminders_send

pytestmark = pytest.mark.django_db


def user(name, email=""):
    return get_user_model().objects.create_user(name, email=email, password=f"pw-{name}-1")


def test_organizers_hear_of_a_team_waiting_and_the_team_of_the_decision(
    world, django_capture_on_commit_callbacks
):
    world.competition.organizers.add(user("olga", "olga@example.org"), user("oskar"))
    team_approval_require(competition=world.competition, required=True)
    carol = user("carol", "carol@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        team = services.team_create(competition=world.competition, name="Gamma", user=carol)
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.to == ["olga@example.org"]  # oskar has no address
    assert "team Gamma waits for approval" in sent.subject and "carol" in sent.body
    assert reverse("competition:organize_teams", args=[world.competition.slug]) in sent.body

    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        team_decide(team=team, approve=False, reason="Tell us your affiliation.")
        team_decide(team=team, approve=False, reason="Tell us your affiliation.")  # again
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["carol@example.org"]
    assert "was not approved" in mail.outbox[0].subject
    assert "Tell us your affiliation." in mail.outbox[0].body
    with django_capture_on_commit_callbacks(execute=True):
        team_decide(team=team, approve=True)
    assert "is approved" in mail.outbox[1].subject


def test_no_mail_where_teams_need_no_approval(world, django_capture_on_commit_callbacks):
    world.competition.organizers.add(user("olga", "olga@example.org"))
    with django_capture_on_commit_callbacks(execute=True):
        services.team_create(
            competition=world.competition, name="Gamma", user=user("carol", "carol@example.org")
        )
    assert mail.outbox == []


@pytest.fixture
def closing(world, django_capture_on_commit_callbacks):
    """The world's phase as a test phase closing in 30 hours; Alpha has a scored run,
    Beta none."""
    phase = world.phase
    phase.kind = Phase.Kind.TEST_PREDICTED
    phase.end = timezone.now() + timedelta(hours=30)
    phase.time_zone = "AoE"
    phase.save()
    world.alice.email, world.bob.email = "alice@example.org", "bob@example.org"
    world.alice.save()
    world.bob.save()
    with django_capture_on_commit_callbacks(execute=True):
        services.submission_create(
            team=world.alpha, phase=phase, user=world.alice, files=world.uploads()
        )
    mail.outbox.clear()
    return world


def test_the_reminder_goes_once_to_teams_without_a_run(closing, capsys):
    world = closing
    assert deadline_reminders_send() == 0  # reminders are off by default
    deadline_reminders_set(competition=world.competition, enabled=True)
    assert deadline_reminders_send() == 1
    assert [m.to for m in mail.outbox] == [["bob@example.org"]]
    message = mail.outbox[0]
    assert "AoE" in message.subject and "Beta has no run" in message.body
    assert "/unsubscribe/" in message.body and message.extra_headers["List-Unsubscribe"]
    # Twice, and through the command: nothing more.
    assert deadline_reminders_send() == 0
    call_command("send_deadline_reminders")
    assert "0 reminder mails sent" in capsys.readouterr().out
    assert len(mail.outbox) == 1
    assert DeadlineReminder.objects.get().team == world.beta


def test_no_reminder_too_early_or_to_who_opted_out(closing):
    world = closing
    deadline_reminders_set(competition=world.competition, enabled=True)
    early = timezone.now() - timedelta(days=3)
    world.phase.start = early - timedelta(days=1)
    world.phase.save()
    assert deadline_reminders_send(at=early) == 0 and not DeadlineReminder.objects.exists()
    announcement_emails_set(competition=world.competition, user=world.bob, wanted=False)
    assert deadline_reminders_send() == 0
    assert mail.outbox == []
    # A development phase is never reminded of.
    Phase.objects.filter(pk=world.phase.pk).update(kind=Phase.Kind.DEVELOPMENT)
    DeadlineReminder.objects.all().delete()
    announcement_emails_set(competition=world.competition, user=world.bob, wanted=True)
    assert deadline_reminders_send() == 0


def test_organizers_turn_reminders_on_from_the_teams_page(world, client):
    world.competition.organizers.add(world.mallory)
    client.force_login(world.mallory)
    url = reverse("competition:organize_teams", args=[world.competition.slug])
    assert "No deadline reminders" in client.get(url).content.decode()
    client.post(url, {"action": "reminders_on"})
    assert "Deadline reminders are on" in client.get(url).content.decode()
