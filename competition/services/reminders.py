"""The reminder before a test phase closes: a team with no run there yet is e-mailed once,
48 hours before the deadline, where the organizers turned reminders on
(``ParticipationRules.deadline_reminders``). Members who opted out of the competition's
announcements get none; every mail carries the same opt-out link.

`deadline_reminders_send` is run by a periodic job (``tasks.mail``) and by the management
command ``send_deadline_reminders``; running it twice, or both at once, sends each reminder
once: a team's reminder is a row (unique per phase and team) claimed before the mail goes.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.core.mail import EmailMessage, get_connection
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from competition.models import (
    AnnouncementOptOut,
    DeadlineReminder,
    Membership,
    Phase,
    Submission,
    Team,
)
from competition.selectors_pages import team_approval_state
from competition.services.pages import _absolute, unsubscribe_url
from competition.timezones import zone_display

logger = logging.getLogger(__name__)

REMINDER_BEFORE = timedelta(hours=48)
TEST_KINDS = (Phase.Kind.TEST_PREDICTED, Phase.Kind.TEST_GOLD)
# A run that is scored (and not disqualified), or still on its way to a score.
COUNTING = (Submission.Status.SCORED, *Submission.PENDING_STATUSES)


def phases_closing(*, at: datetime) -> list[Phase]:
    """Open test phases of competitions with reminders on that close within 48 hours."""
    return list(
        Phase.objects.filter(
            kind__in=TEST_KINDS,
            start__lte=at,
            end__gt=at,
            end__lte=at + REMINDER_BEFORE,
            task__competition__participation_rules__deadline_reminders=True,
        )
        .select_related("task__competition")
        .order_by("end", "id")
    )


def teams_without_a_run(*, phase: Phase) -> list[Team]:
    """Participant teams that may submit to ``phase`` and have no run counting there."""
    have = Submission.objects.filter(phase=phase, status__in=COUNTING, disqualified=False).values(
        "team_id"
    )
    teams = (
        Team.objects.filter(competition=phase.task.competition, is_organizer_team=False)
        .exclude(pk__in=have)
        .order_by("name")
    )
    return [team for team in teams if team_approval_state(team=team).may_submit]


def deadline_reminders_send(*, at: datetime | None = None) -> int:
    """Remind every team that has no run in a test phase closing within 48 hours; returns the
    number of mails sent. A team is reminded once per phase, whatever happens later."""
    at = at or timezone.now()
    sent = 0
    for phase in phases_closing(at=at):
        for team in teams_without_a_run(phase=phase):
            try:
                with transaction.atomic():
                    reminder = DeadlineReminder.objects.create(phase=phase, team=team)
            except IntegrityError:
                continue  # reminded already (or by a run of this job at the same moment)
            try:
                count = _remind(phase=phase, team=team)
            except Exception:
                reminder.delete()  # a retry sends it
                raise
            DeadlineReminder.objects.filter(pk=reminder.pk).update(emailed_to=count)
            sent += count
    return sent


def _remind(*, phase: Phase, team: Team) -> int:
    competition = phase.task.competition
    opted_out = AnnouncementOptOut.objects.filter(competition=competition).values("user_id")
    members = (
        Membership.objects.filter(team=team)
        .exclude(user__email="")
        .exclude(user_id__in=opted_out)
        .select_related("user")
    )
    submit = _absolute(
        reverse(
            "competition:submit",
            kwargs={"slug": competition.slug, "task": phase.task.slug, "phase": phase.slug},
        )
    )
    deadline = zone_display(phase.end, phase.time_zone)
    messages = []
    for membership in members:
        user = membership.user
        unsubscribe = unsubscribe_url(competition=competition, user=user)
        body = (
            f"{phase.task.title}, {phase.title} closes on {deadline}, and your team "
            f"{team.name} has no run in it yet. Runs are accepted until then:\n{submit}\n\n"
            f"--\nYou receive this as a member of a team of {competition.title}. No more "
            f"announcements or reminders by e-mail: {unsubscribe}\n"
        )
        messages.append(
            EmailMessage(
                subject=f"[{competition.title}] {phase.title} closes on {deadline}",
                body=body,
                to=[user.email],
                headers={"List-Unsubscribe": f"<{unsubscribe}>"},
            )
        )
    return (get_connection().send_messages(messages) or 0) if messages else 0
