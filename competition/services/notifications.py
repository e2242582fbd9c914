"""Telling a submitter by e-mail that their run was scored or failed.

The mail never carries a score: it links to the submission's page, which applies the
visibility rules of the phase (a hidden board shows nothing, or only the team's own scores
when the phase allows it). A failure carries the message the team already sees on that page,
which names their files and never the gold key.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from competition.models import Submission
from competition.visibility import submission_scores_visible

logger = logging.getLogger(__name__)
Status = Submission.Status


def submission_notify(*, submission_id: int) -> bool:
    """E-mail the submitter of a scored, failed or refused run; True when a mail was sent.

    Nothing is sent when e-mails are off (``SUBMISSION_EMAILS``), for runs nobody submitted
    (baselines), to users without an address, for runs that are not scored or ended, or
    for re-scorings: an organizer re-scoring a phase would otherwise mail every team once
    per run.
    """
    if not settings.SUBMISSION_EMAILS:
        return False
    submission = (
        Submission.objects.select_related("submitted_by", "team", "phase__task__competition")
        .filter(pk=submission_id)
        .first()
    )
    if submission is None or submission.submitted_by is None:
        return False
    user = submission.submitted_by
    if not user.email or submission.status not in (Status.SCORED, Status.FAILED, Status.REJECTED):
        return False
    runs = submission.runs.count()
    if runs > 1 or (runs == 1 and submission.status == Status.FAILED):
        return False  # a re-scoring
    subject, lines = _mail_text(submission=submission, user=user)
    send_mail(subject, "\n".join(lines) + "\n", None, [user.email])
    return True


def _mail_text(*, submission: Submission, user) -> tuple[str, list[str]]:
    """The subject and lines of the mail about a scored, failed or refused run."""
    phase = submission.phase
    competition = phase.task.competition
    url = settings.SITE_URL.rstrip("/") + reverse("competition:submission", args=[submission.pk])
    run = f"run #{submission.pk}" + (f" ({submission.run_name})" if submission.run_name else "")
    where = f"{phase.task.title}, {phase.title}"
    if submission.status == Status.SCORED:
        if submission_scores_visible(submission=submission, user=user):
            scores = f"Its scores are on its page:\n{url}"
        else:
            scores = (
                "The leaderboard of this phase is hidden: its scores are shown when the "
                f"organizers reveal it. The run's page:\n{url}"
            )
        lines = [f"Team {submission.team.name}'s {run} in {where} was scored.", "", scores]
        return f"[{competition.title}] {run} scored", lines
    refused = submission.status == Status.REJECTED
    counts = (
        "It does not count against your team's limits."
        if submission.platform_failure or refused
        else "It counts against your team's limits."
    )
    lines = [
        f"Team {submission.team.name}'s {run} in {where} "
        + ("was refused:" if refused else "could not be scored:"),
        "",
        submission.error.strip() or "(no message)",
        "",
        counts,
        f"The run's page:\n{url}",
    ]
    return f"[{competition.title}] {run} {'refused' if refused else 'failed'}", lines
