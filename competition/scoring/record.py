"""Ending a run: record its scoring (a new current ``ScoringRun`` with its ``Score`` rows and
the status ``scored``, in one transaction, only for the job that holds the claim), or fail
it, or set it aside; ``outcome_record`` does whichever its outcome says."""

from __future__ import annotations

import logging
from collections.abc import Collection

from django.db import connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce, Concat
from django.utils import timezone
from psycopg.types.json import Jsonb

from competition.models import Score, ScoringPart, ScoringRun, Submission
from competition.scoring.keys import scoring_keys, set_aside_message, submission_replaced_keys
from competition.scoring.outcome import Kind, Outcome
from competition.scoring.results import ScoreValue, ScoringResults
from competition.services.boards import board_entries_write
from competition.services.dispatch import notification_enqueue, scoring_enqueue
from competition.services.validation import RunRefused, submission_refuse
from competition.task_scoring import scoring_modes

logger = logging.getLogger(__name__)
Status = Submission.Status


def outcome_record(
    *, submission: Submission, outcome: Outcome[ScoringResults], task_id: str
) -> str:
    """End a claimed run as ``outcome`` says (only while ``task_id`` holds the claim):
    "scored", "skipped" (no longer ours, or queued again), "set aside", "rejected" or
    "failed". A refusal of files sent for a gold key replaced since sets the run aside: the
    key changed, not the run; the check of files that do not fit rejects it."""
    if outcome.kind is Kind.SCORED and outcome.results is not None:
        recorded = submission_record(
            submission=submission, results=outcome.results, task_id=task_id
        )
        return "scored" if recorded else "skipped"
    if outcome.kind is Kind.REFUSED and (
        replaced := submission_replaced_keys(submission=submission)
    ):
        submission_set_aside(
            submission=submission,
            task_id=task_id,
            log=outcome.log,
            reason=set_aside_message(names=replaced, problem=outcome.message),
        )
        return "set aside"
    if isinstance(outcome.refusal, RunRefused):  # the check of its files: nothing scored
        submission_refuse(submission=submission, problems=outcome.refusal.problems, task_id=task_id)
        return "rejected"
    submission_fail(
        submission=submission,
        reason=outcome.message,
        platform_failure=outcome.platform_failure,
        task_id=task_id,
        log=outcome.log,
    )
    return "failed"


def submission_record(*, submission: Submission, results: ScoringResults, task_id: str) -> bool:
    """Store a scoring as the submission's new current run and mark it scored.

    One transaction: the claim is checked under a row lock, older runs stop being current
    (they stay as history), the new run's rows are written, the status becomes ``scored``.
    Returns False (and writes nothing) when this task no longer holds the claim, or when a
    gold key or the task's options changed while it computed (an organizer corrected them):
    the submission is then queued again, without spending an attempt.
    """
    with transaction.atomic():
        # Lock the submission row only, not the phase and task it reads.
        held = (
            Submission.objects.select_for_update(of=("self",))
            .select_related("phase__task")
            .filter(pk=submission.pk, status=Status.SCORING, claimed_by=task_id)
            .first()
        )
        if held is None:
            return False
        if results.keys != scoring_keys(held) or results.options != scoring_modes(held.phase.task):
            _queue_again_changed(held)
            return False
        _run_write(held, results=results, task_id=task_id)
        board_entries_write(submission_ids=[held.pk])
        notification_enqueue(submission_id=held.pk)
    return True


def _queue_again_changed(held: Submission) -> None:
    """Queue again a run whose gold keys or options changed while it was scored, giving
    back the attempt."""
    logger.info(
        "submission %s: its gold keys or scorer options changed while it was "
        "scored; scoring it again",
        held.pk,
    )
    now = timezone.now()
    Submission.objects.filter(pk=held.pk).update(
        status=Status.QUEUED,
        queued_at=now,
        claimed_by="",
        claimed_at=None,
        attempts=F("attempts") - 1,
        updated_at=now,
    )
    scoring_enqueue(submission_id=held.pk)


def _run_write(held: Submission, *, results: ScoringResults, task_id: str) -> None:
    """The new current run, its rows, the status ``scored``; the staged parts go."""
    now = timezone.now()
    ScoringRun.objects.filter(submission=held, is_current=True).update(is_current=False)
    run = ScoringRun.objects.create(
        submission=held,
        scorer_version=results.scorer_version,
        procedure=results.procedure,
        options=results.options,
        keys=results.keys,
        task_id=task_id,
        created_at=now,
        is_current=True,
    )
    scores_insert(run=run, submission_id=held.pk, scores=results.scores)
    Submission.objects.filter(pk=held.pk).update(
        status=Status.SCORED,
        scored_at=now,
        validated_at=Coalesce(F("validated_at"), Value(now)),  # its files were checked
        scorer_version=results.scorer_version,
        error="\n".join(results.warnings)[:10000],
        platform_failure=False,
        scoring_log=_log_after(held.scoring_log, results.log),
        upload_warnings=list(results.upload_warnings),  # from this scoring's own reading
        updated_at=now,
    )
    ScoringPart.objects.filter(submission=held).delete()  # parts of any claim: done


SCORE_COLUMNS = (
    "run",
    "submission",
    "subcorpus",
    "mode",
    "metric",
    "document",
    "recall",
    "precision",
    "f1",
    "counts",
)


def scores_insert(*, run: ScoringRun, submission_id: int, scores: Collection[ScoreValue]) -> None:
    """Write a run's score rows (a CRAC run has some 10,000 with its per-document rows). On
    PostgreSQL in one COPY: building and saving that many model instances took the last
    job most of a second, and the run reaches its board only after it. Elsewhere (SQLite,
    the embedded mode and the tests) with ``bulk_create``; the rows are the same."""
    if connection.vendor != "postgresql":
        Score.objects.bulk_create(
            [score_of(run=run, submission_id=submission_id, value=value) for value in scores],
            batch_size=1000,
        )
        return
    _scores_copy(run=run, submission_id=submission_id, scores=scores)


def score_of(*, run: ScoringRun, submission_id: int, value: ScoreValue) -> Score:
    """One score row of a run, unsaved (what `scores_insert` writes, field by field as the
    COPY writes its columns)."""
    return Score(
        run=run,
        submission_id=submission_id,
        subcorpus_id=value.subcorpus_id,
        mode=value.row.mode,
        metric=value.row.metric,
        document=value.row.document or "",
        recall=value.row.recall,
        precision=value.row.precision,
        f1=value.row.f1,
        counts=value.row.counts,
    )


def _scores_copy(*, run: ScoringRun, submission_id: int, scores: Collection[ScoreValue]) -> None:
    meta = Score._meta
    columns = ", ".join(
        connection.ops.quote_name(meta.get_field(name).column) for name in SCORE_COLUMNS
    )
    with (
        connection.cursor() as cursor,
        cursor.copy(
            f"COPY {connection.ops.quote_name(meta.db_table)} ({columns}) FROM STDIN"
        ) as copy,
    ):
        for value in scores:
            row = value.row
            copy.write_row(
                (
                    run.pk,
                    submission_id,
                    value.subcorpus_id,
                    row.mode,
                    row.metric,
                    row.document or "",
                    row.recall,
                    row.precision,
                    row.f1,
                    Jsonb(row.counts),
                )
            )


def _log_after(previous: str, log: str) -> str:
    """The run's log with this job's lines after the earlier ones (upload, other jobs); the
    oldest lines go first when it grows long."""
    text = f"{previous}\n{log}" if previous else log
    return text[-50000:]


def submission_fail(
    *,
    submission: Submission,
    reason: str,
    platform_failure: bool,
    task_id: str | None = None,
    log: str = "",
) -> bool:
    """Mark a pending submission failed with a message the team can read.

    ``platform_failure`` says whose fault it is: the platform's (time or memory limit, lost
    job) — then the run does not count against the team's limits — or the files'.
    With ``task_id``, only the task that holds the claim may fail it.
    """
    updated = _pending_end(
        submission=submission,
        task_id=task_id,
        status=Status.FAILED,
        reason=reason,
        log=log,
        platform_failure=platform_failure,
    )
    if updated:
        notification_enqueue(submission_id=submission.pk)
    return updated == 1


def submission_set_aside(
    *, submission: Submission, reason: str, task_id: str | None = None, log: str = ""
) -> bool:
    """Set a pending run aside: its files no longer fit a gold key replaced after its
    upload. Not a failure of the team's (it never counts against the limits) nor of the
    platform's; the organizers see it on their page and may re-score it. With ``task_id``,
    only the job that holds the claim may."""
    updated = _pending_end(
        submission=submission,
        task_id=task_id,
        status=Status.SET_ASIDE,
        reason=reason,
        log=log,
        platform_failure=False,
    )
    if updated:
        logger.warning("submission %s set aside: %s", submission.pk, reason)
    return updated == 1


def _pending_end(
    *,
    submission: Submission,
    task_id: str | None,
    status: str,
    reason: str,
    log: str,
    platform_failure: bool,
) -> int:
    """End a pending (queued or scoring) run with ``status`` and ``reason``, its ``log``
    appended; with ``task_id``, only if that job holds the claim. Returns the rows changed."""
    pending = Submission.objects.filter(
        pk=submission.pk, status__in=[Status.QUEUED, Status.SCORING]
    )
    if task_id is not None:
        pending = pending.filter(claimed_by=task_id)
    now = timezone.now()
    fields = {"scoring_log": Concat(F("scoring_log"), Value("\n" + log[:20000]))} if log else {}
    return pending.update(
        status=status,
        failed_at=now,
        error=reason[:10000],
        platform_failure=platform_failure,
        updated_at=now,
        **fields,
    )
