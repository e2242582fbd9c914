"""An organizer's re-scoring of a whole phase, followed on a progress page.

The submissions are marked queued in one transaction with the batch that records them; the
jobs go out after it commits (``scoring_enqueue_many``): to the workers when there are
workers, else scored one by one in a background thread, so the organizer's request returns at
once in the embedded configuration too.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from competition.models import AuditEntry, Phase, RescoreBatch, Submission
from competition.services.audit import audit_record
from competition.services.dispatch import scoring_enqueue_many
from competition.services.rescore import rescorable_ids, submission_rescore

Status = Submission.Status


def phase_rescore_start(*, phase: Phase, user=None) -> RescoreBatch:
    """Re-score every scored (or platform-failed) submission of a phase, keeping history;
    returns the batch whose progress ``rescore_progress`` reports."""
    with transaction.atomic():
        ids = rescorable_ids(phase=phase)
        for pk in ids:
            submission_rescore(submission=Submission(pk=pk), queue=False)
        batch = RescoreBatch.objects.create(phase=phase, submission_ids=ids, created_by=user)
        audit_record(
            competition=phase.task.competition,
            actor=user,
            action=AuditEntry.Action.RESCORE,
            detail=f"{phase.task.title} › {phase.title}: {len(ids)} submissions",
        )
        scoring_enqueue_many(submission_ids=ids)
    return batch


@dataclass(frozen=True)
class RescoreProgress:
    total: int
    done: int
    failed: int

    @property
    def finished(self) -> bool:
        return self.done >= self.total


def rescore_progress(*, batch: RescoreBatch) -> RescoreProgress:
    """How many of the batch's submissions ended (scored, failed or cancelled) since."""
    statuses = list(
        Submission.objects.filter(pk__in=batch.submission_ids).values_list("status", flat=True)
    )
    done = sum(1 for status in statuses if status in Submission.FINAL_STATUSES)
    failed = sum(1 for status in statuses if status == Status.FAILED)
    # A submission deleted since counts as done: nothing is left to wait for.
    done += len(batch.submission_ids) - len(statuses)
    return RescoreProgress(total=len(batch.submission_ids), done=done, failed=failed)
