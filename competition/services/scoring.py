"""Scoring a submission: claim, compute, record, fail; re-score; sweep stuck jobs.

Every step is safe to run twice. ``submission_claim`` takes a submission without locks (one
conditional UPDATE; whoever updates the row owns the job). ``submission_compute`` runs the
scorer and writes nothing. ``submission_record`` writes a new current ``ScoringRun`` with all
its ``Score`` rows and the status ``scored`` in one transaction, and only for the task that
holds the claim, so a redelivered or duplicated job never records twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import scoring
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from scoring import ScoreRow, ScoringError, ScoringInputError, score, score_rows

from competition.errors import CompetitionError
from competition.models import Phase, Score, ScoringRun, Submission, SubmissionFile
from competition.services.dispatch import notification_enqueue, scoring_enqueue
from competition.task_scoring import scoring_modes, task_modes

logger = logging.getLogger(__name__)
Status = Submission.Status


@dataclass(frozen=True, slots=True)
class ScoreValue:
    """A score row of one sub-corpus, as the scorer's serializer wrote it."""

    subcorpus_id: int
    row: ScoreRow


@dataclass(frozen=True, slots=True)
class ScoringResults:
    scorer_version: str
    options: dict[str, list[str]]  # mode name -> option words
    scores: tuple[ScoreValue, ...]
    warnings: tuple[str, ...] = ()
    keys: dict[str, str] = field(default_factory=dict)  # sub-corpus id -> key SHA-256
    procedure: str = ""  # the task's scoring procedure, if any (e.g. "crac-2024")


def scored_files(submission: Submission):
    """The files of a submission that are scored: those on available sub-corpora."""
    return SubmissionFile.objects.filter(submission=submission, subcorpus__available=True)


def scoring_keys(submission: Submission) -> dict[str, str]:
    """{sub-corpus id: SHA-256 of its gold key} for the sub-corpora a submission is scored
    on now."""
    rows = scored_files(submission).values_list("subcorpus_id", "subcorpus__sha256")
    return {str(subcorpus_id): sha for subcorpus_id, sha in rows}


# --- claim ------------------------------------------------------------------------------

def submission_claim(*, submission_id: int, task_id: str) -> Submission | None:
    """Take the job of scoring a submission, or None if it is done, cancelled or held by a
    live task. A redelivered message keeps its task id and may take its own claim again.

    Each claim counts as an attempt; a job claimed ``SCORING_MAX_ATTEMPTS`` times (a message
    that kills its worker every time) is failed instead of being tried again.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SCORING_HARD_TIME_LIMIT)
    claimable = (Q(status=Status.QUEUED) | Q(status=Status.SCORING, claimed_by=task_id)
                 | Q(status=Status.SCORING, claimed_at__lt=stale))
    updated = (
        Submission.objects.filter(claimable, pk=submission_id,
                                  attempts__lt=settings.SCORING_MAX_ATTEMPTS)
        .update(status=Status.SCORING, claimed_by=task_id, claimed_at=now,
                scoring_started_at=now, attempts=F("attempts") + 1, updated_at=now)
    )
    if updated == 1:
        return Submission.objects.select_related("phase__task").get(pk=submission_id)
    exhausted = Submission.objects.filter(
        claimable, pk=submission_id, attempts__gte=settings.SCORING_MAX_ATTEMPTS).first()
    if exhausted is not None:
        submission_fail(submission=exhausted, reason=attempts_message(exhausted.attempts),
                        platform_failure=True)
    return None


def attempts_message(attempts: int) -> str:
    return (f"Scoring did not finish after {attempts} attempts. This is a problem of the "
            "platform, not of your files; the run does not count against your limits and the "
            "organizers can re-score it.")


# --- compute ----------------------------------------------------------------------------

def submission_compute(*, submission: Submission) -> ScoringResults:
    """Score every sub-corpus of a submission in every mode of its task. Writes nothing.

    The rows are the scorer's own (`scoring.score_rows`): the platform stores them as they
    are and never derives a number. Raises ``scoring.ScoringError`` when the scorer refuses
    the input.
    """
    task = submission.phase.task
    modes = task_modes(task)
    files = (scored_files(submission).select_related("subcorpus")
             .order_by("subcorpus__order", "subcorpus_id"))
    scores: list[ScoreValue] = []
    warnings: list[str] = []
    keys: dict[str, str] = {}
    for submitted in files:
        keys[str(submitted.subcorpus_id)] = submitted.subcorpus.sha256
        key = str(submitted.subcorpus.key_path)
        response = str(submitted.absolute_path)
        for mode in modes:
            try:
                # One process: a worker is already one of many scoring in parallel.
                result = score(key, response, options=mode.options, per_doc=mode.per_doc,
                               processes=1)
            except ScoringInputError as exc:
                raise _public_error(exc, key=key, response=response,
                                    submitted=submitted) from None
            scores.extend(ScoreValue(submitted.subcorpus_id, row)
                          for row in score_rows(result, mode.options, mode=mode.name,
                                                per_doc=mode.per_doc))
            for warning in (*mode.notes, *result.warnings):
                text = str(warning)
                if key in text:
                    # About the gold key (its MarkableIDs, lines, entities): organizers only.
                    logger.warning("gold key of %s (submission %s): %s",
                                   submitted.subcorpus.name, submission.pk, text)
                    continue
                warnings.append(text.replace(response, submitted.original_name))
    return ScoringResults(scorer_version=scoring.__version__,
                          options={mode.name: list(mode.words) for mode in modes},
                          scores=tuple(scores), warnings=tuple(warnings), keys=keys,
                          procedure=task.procedure)


def _public_error(exc: ScoringInputError, *, key: str, response: str,
                  submitted: SubmissionFile) -> ScoringError:
    """The same input error, naming files as the team knows them and never the gold key's
    path or lines. A fault of the gold key itself (missing, unreadable) is the platform's:
    it becomes a plain ``ScoringError``, which does not count against the team."""
    on_key_side = exc.path == key
    message = exc.message.replace(key, f"gold key of {submitted.subcorpus.name}")
    message = message.replace(response, submitted.original_name)
    if on_key_side:
        # Details of the gold annotation are for the organizers (the log), not the team.
        logger.error("gold key of %s refused by the scorer: %s", submitted.subcorpus.name,
                     message)
        return ScoringError(f"the gold key of {submitted.subcorpus.name} cannot be used by the "
                            f"scorer ({exc.code}); the organizers have to fix it. This run does "
                            "not count against your limits.")
    return ScoringInputError(
        submitted.original_name, exc.line, message, code=exc.code, document=exc.document)


# --- record -----------------------------------------------------------------------------

def submission_record(*, submission: Submission, results: ScoringResults,
                      task_id: str) -> bool:
    """Store a scoring as the submission's new current run and mark it scored.

    One transaction: the claim is checked under a row lock, older runs stop being current
    (they stay as history), the new run's rows are written, the status becomes ``scored``.
    Returns False (and writes nothing) when this task no longer holds the claim, or when a
    gold key or the task's options changed while it computed (an organizer corrected them):
    the submission is then queued again, without spending an attempt.
    """
    with transaction.atomic():
        # Lock the submission row only, not the phase and task it reads.
        held = (Submission.objects.select_for_update(of=("self",))
                .select_related("phase__task")
                .filter(pk=submission.pk, status=Status.SCORING, claimed_by=task_id).first())
        if held is None:
            return False
        now = timezone.now()
        if (results.keys != scoring_keys(held)
                or results.options != scoring_modes(held.phase.task)):
            logger.info("submission %s: its gold keys or scorer options changed while it was "
                        "scored; scoring it again", held.pk)
            Submission.objects.filter(pk=held.pk).update(
                status=Status.QUEUED, queued_at=now, claimed_by="", claimed_at=None,
                attempts=F("attempts") - 1, updated_at=now)
            scoring_enqueue(submission_id=held.pk)
            return False
        ScoringRun.objects.filter(submission=held, is_current=True).update(is_current=False)
        run = ScoringRun.objects.create(submission=held, scorer_version=results.scorer_version,
                                        procedure=results.procedure,
                                        options=results.options, keys=results.keys,
                                        task_id=task_id,
                                        created_at=now, is_current=True)
        Score.objects.bulk_create(
            [Score(run=run, submission=held, subcorpus_id=value.subcorpus_id,
                   mode=value.row.mode, metric=value.row.metric,
                   document=value.row.document or "", recall=value.row.recall,
                   precision=value.row.precision, f1=value.row.f1, counts=value.row.counts)
             for value in results.scores],
            batch_size=1000,
        )
        Submission.objects.filter(pk=held.pk).update(
            status=Status.SCORED, scored_at=now, scorer_version=results.scorer_version,
            error="\n".join(results.warnings)[:10000], platform_failure=False, updated_at=now)
        notification_enqueue(submission_id=held.pk)
    return True


def submission_fail(*, submission: Submission, reason: str, platform_failure: bool,
                    task_id: str | None = None) -> bool:
    """Mark a pending submission failed with a message the team can read.

    ``platform_failure`` says whose fault it is: the platform's (time or memory limit, lost
    job) — then the run does not count against the team's limits — or the files'.
    With ``task_id``, only the task that holds the claim may fail it.
    """
    pending = Submission.objects.filter(pk=submission.pk,
                                        status__in=[Status.QUEUED, Status.SCORING])
    if task_id is not None:
        pending = pending.filter(claimed_by=task_id)
    now = timezone.now()
    updated = pending.update(status=Status.FAILED, failed_at=now, error=reason[:10000],
                             platform_failure=platform_failure, updated_at=now)
    if updated:
        notification_enqueue(submission_id=submission.pk)
    return updated == 1


# --- re-score ---------------------------------------------------------------------------

def submission_rescore(*, submission: Submission) -> Submission:
    """Queue a scored or failed submission to be scored again; its current run stays current
    (and the old runs stay as history) until the new run is recorded."""
    with transaction.atomic():
        current = Submission.objects.select_for_update().get(pk=submission.pk)
        if current.status not in (Status.SCORED, Status.FAILED):
            raise CompetitionError("invalid_status", submission=current.pk,
                                   status=current.get_status_display().lower(),
                                   expected="scored or failed")
        now = timezone.now()
        Submission.objects.filter(pk=current.pk).update(
            status=Status.QUEUED, queued_at=now, claimed_by="", claimed_at=None, attempts=0,
            error="", platform_failure=False, failed_at=None, updated_at=now)
        scoring_enqueue(submission_id=current.pk)
    current.refresh_from_db()
    return current


def phase_rescore(*, phase: Phase) -> list[Submission]:
    """Re-score every scored (or platform-failed) submission of a phase, keeping history."""
    ids = list(Submission.objects.filter(phase=phase).filter(
        Q(status=Status.SCORED) | Q(status=Status.FAILED, platform_failure=True)
    ).values_list("pk", flat=True))
    return [submission_rescore(submission=Submission(pk=pk)) for pk in ids]


# --- sweep ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SweepReport:
    requeued: tuple[int, ...]
    failed: tuple[int, ...]


def submission_sweep(*, now: datetime | None = None) -> SweepReport:
    """Re-queue submissions left in ``queued`` or ``scoring`` past ``SWEEP_STUCK_AFTER``
    seconds; fail (as the platform's fault, with a message) those that used all their attempts.
    """
    now = now or timezone.now()
    limit = now - timedelta(seconds=settings.SWEEP_STUCK_AFTER)
    stuck = Submission.objects.filter(
        Q(status=Status.QUEUED, queued_at__lt=limit)
        | Q(status=Status.SCORING, claimed_at__lt=limit)
    ).values_list("pk", "status", "attempts", "queued_at", "claimed_at")
    requeued: list[int] = []
    failed: list[int] = []
    for pk, status, attempts, queued_at, claimed_at in stuck:
        # An attempt whose message was lost before any worker claimed it counts too.
        attempts_used = attempts + (1 if status == Status.QUEUED else 0)
        condition = Q(pk=pk, status=status, attempts=attempts)
        if attempts_used >= settings.SCORING_MAX_ATTEMPTS:
            updated = Submission.objects.filter(condition).update(
                status=Status.FAILED, failed_at=now, error=attempts_message(attempts_used),
                platform_failure=True, attempts=attempts_used, updated_at=now)
            if updated:
                failed.append(pk)
                notification_enqueue(submission_id=pk)
            continue
        with transaction.atomic():
            updated = Submission.objects.filter(condition).update(
                status=Status.QUEUED, queued_at=now, claimed_by="", claimed_at=None,
                attempts=attempts_used, updated_at=now)
            if updated:
                scoring_enqueue(submission_id=pk)
                requeued.append(pk)
    if requeued or failed:
        logger.warning("sweep: re-queued %s, failed %s", requeued, failed)
    return SweepReport(requeued=tuple(requeued), failed=tuple(failed))

