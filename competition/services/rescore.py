"""Re-scoring: an organizer (or a changed key or option) queues scored runs to be scored
again. The runs' current scores stay current until the new scoring is recorded."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from competition.errors import CompetitionError
from competition.models import AuditEntry, Phase, Submission
from competition.services.audit import audit_record
from competition.services.dispatch import scoring_enqueue

Status = Submission.Status


def submission_rescore(
    *, submission: Submission, queue: bool = True, actor: AbstractBaseUser | None = None
) -> Submission:
    """Queue a scored or failed submission to be scored again; its current run stays current
    (and the old runs stay as history) until the new run is recorded. ``queue=False`` marks
    it queued and leaves sending the job to the caller (a batch sends them together).
    ``actor``: the organizer who asked, recorded in the audit log; None when the platform
    re-scores (a batch or a changed key records its own entry)."""
    with transaction.atomic():
        current = Submission.objects.select_for_update().get(pk=submission.pk)
        if current.is_reference:
            raise CompetitionError("reference_run", submission=current.pk)
        if current.status not in (Status.SCORED, Status.FAILED, Status.SET_ASIDE):
            raise CompetitionError(
                "invalid_status",
                submission=current.pk,
                status=current.get_status_display().lower(),
                expected="scored, failed or set aside",
            )
        now = timezone.now()
        Submission.objects.filter(pk=current.pk).update(
            status=Status.QUEUED,
            queued_at=now,
            claimed_by="",
            claimed_at=None,
            attempts=0,
            error="",
            platform_failure=False,
            failed_at=None,
            updated_at=now,
        )
        if actor is not None:
            phase = current.phase
            audit_record(
                competition=phase.task.competition,
                actor=actor,
                action=AuditEntry.Action.RESCORE,
                detail=f"Submission #{current.pk} of {current.team.name} in "
                f"{phase.task.title} › {phase.title}",
            )
        if queue:
            scoring_enqueue(submission_id=current.pk)
    current.refresh_from_db()
    return current


def rescorable_ids(*, phase: Phase) -> list[int]:
    """The submissions of a phase that a phase re-score takes: scored, platform-failed or
    set-aside runs with files (published reference results keep their cited numbers)."""
    return list(
        Submission.objects.filter(phase=phase, is_reference=False)
        .filter(
            Q(status__in=[Status.SCORED, Status.SET_ASIDE])
            | Q(status=Status.FAILED, platform_failure=True)
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def phase_rescore(*, phase: Phase, actor: AbstractBaseUser | None = None) -> list[Submission]:
    """Re-score every scored (or platform-failed) submission of a phase, keeping history.
    ``actor``: the organizer who asked, recorded in the audit log (None: after a key change,
    which records its own entry)."""
    rescored = [
        submission_rescore(submission=Submission(pk=pk)) for pk in rescorable_ids(phase=phase)
    ]
    if actor is not None:
        audit_record(
            competition=phase.task.competition,
            actor=actor,
            action=AuditEntry.Action.RESCORE,
            detail=f"{phase.task.title} › {phase.title}: {len(rescored)} submissions",
        )
    return rescored
