"""Scoring a submission: claim, compute, record, fail; re-score; sweep stuck jobs.

Every step is safe to run twice. ``submission_claim`` takes a submission without locks (one
conditional UPDATE; whoever updates the row owns the job). ``submission_compute`` runs the
scorer and writes nothing. ``submission_record`` writes a new current ``ScoringRun`` with all
its ``Score`` rows and the status ``scored`` in one transaction, and only for the task that
holds the claim, so a redelivered or duplicated job never records twice.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import scoring
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Concat
from django.utils import timezone
from scoring import ScoreRow, ScoringError, ScoringInputError, score_modes, score_rows

from competition.errors import CompetitionError
from competition.models import (
    Phase,
    Score,
    ScoringRun,
    Submission,
    SubmissionFile,
    WorkerHeartbeat,
)
from competition.services.boards import board_entries_write
from competition.services.dispatch import (
    notification_enqueue,
    scoring_enqueue,
    scoring_publish,
    scoring_queue_empty,
)
from competition.services.submissions import web_wording
from competition.task_scoring import mode_label, scoring_modes, task_modes

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
    log: str = ""  # what was read, warnings, timings: shown to the team (`Submission.scoring_log`)


def scored_files(submission: Submission):
    """The files of a submission that are scored: those on available sub-corpora."""
    return SubmissionFile.objects.filter(submission=submission, subcorpus__available=True)


def scoring_keys(submission: Submission) -> dict[str, str]:
    """{sub-corpus id: SHA-256 of its gold key} for the sub-corpora a submission is scored
    on now."""
    rows = scored_files(submission).values_list("subcorpus_id", "subcorpus__sha256")
    return {str(subcorpus_id): sha for subcorpus_id, sha in rows}


# --- claim ------------------------------------------------------------------------------

def submission_claim(*, submission_id: int, task_id: str,
                     worker: str = "") -> Submission | None:
    """Take the job of scoring a submission, or None if it is done, cancelled or held by a
    live process. ``worker`` names the claiming process (``<node>:<pid>``).

    Only a real attempt counts: a claim of a queued run, or the take-over of a claim whose
    process died (its node stopped its heartbeat, or on the same node its process is gone),
    or that went stale. The same process claiming again (a retry) spends nothing; a copy of
    the message delivered while the holder still works is refused and spends nothing. With
    no ``worker`` (callers that cannot tell), a message re-delivered under its own task id
    may take its claim again, as one more attempt.

    A job claimed ``SCORING_MAX_ATTEMPTS`` times (a message that kills its worker every time)
    is failed instead of being tried again.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SCORING_HARD_TIME_LIMIT)
    row = (Submission.objects.filter(pk=submission_id)
           .values("status", "claimed_by", "claimed_worker", "claimed_at", "attempts").first())
    if row is None or row["status"] not in (Status.QUEUED, Status.SCORING):
        return None
    spends = True
    if row["status"] == Status.SCORING:
        is_stale = row["claimed_at"] is not None and row["claimed_at"] < stale
        if worker and row["claimed_worker"] == worker:
            spends = False  # this very process again (a retry of its own job)
        elif is_stale:
            pass
        elif worker and row["claimed_worker"]:
            if worker_alive(worker=row["claimed_worker"], asking=worker, at=now):
                return None  # a duplicate delivery: the holder is still at work
        elif row["claimed_by"] != task_id:
            return None  # held by another task
    if spends and row["attempts"] >= settings.SCORING_MAX_ATTEMPTS:
        exhausted = Submission.objects.filter(pk=submission_id).first()
        if exhausted is not None:
            submission_fail(submission=exhausted, reason=attempts_message(exhausted.attempts),
                            platform_failure=True)
        return None
    updated = (
        Submission.objects.filter(pk=submission_id, status=row["status"],
                                  claimed_by=row["claimed_by"],
                                  claimed_worker=row["claimed_worker"],
                                  attempts=row["attempts"])
        .update(status=Status.SCORING, claimed_by=task_id, claimed_worker=worker,
                claimed_at=now, scoring_started_at=now, published=True,
                attempts=F("attempts") + (1 if spends else 0), updated_at=now)
    )
    if updated == 1:
        return Submission.objects.select_related("phase__task").get(pk=submission_id)
    return None  # another process got there first


# --- workers ----------------------------------------------------------------------------

def worker_heartbeat(*, node: str, at: datetime | None = None) -> None:
    """Record that the worker node ``node`` is alive."""
    WorkerHeartbeat.objects.update_or_create(node=node, defaults={"seen_at": at or timezone.now()})


def workers_alive(*, at: datetime | None = None) -> list[str]:
    """The nodes whose heartbeat is fresh."""
    since = (at or timezone.now()) - timedelta(seconds=settings.WORKER_STALE_AFTER)
    return list(WorkerHeartbeat.objects.filter(seen_at__gte=since)
                .order_by("node").values_list("node", flat=True))


def worker_alive(*, worker: str, asking: str = "", at: datetime | None = None) -> bool:
    """Whether the process ``worker`` (``<node>:<pid>``) may still be at work: on the asking
    process's own node, whether that process exists; elsewhere, whether its node's
    heartbeat is fresh."""
    node, _, pid = worker.rpartition(":")
    own_node = asking.rpartition(":")[0]
    if node and node == own_node and pid.isdigit():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return node in workers_alive(at=at)


@dataclass(frozen=True, slots=True)
class RecoverReport:
    requeued: tuple[int, ...]  # runs whose worker node died, queued again
    published: tuple[int, ...]  # runs whose message the broker never got, sent now
    resent: tuple[int, ...] = ()  # runs whose message the broker lost, sent again


def submission_recover(*, node: str = "", at: datetime | None = None) -> RecoverReport:
    """What a live worker (``node``) does every few seconds (no beat needed): queue again
    the runs whose claiming process is gone (its node stopped its heartbeat, or, on this
    node, the process no longer exists; the attempt was spent when it was claimed), publish
    the runs whose message could not be handed to the broker, and send again the runs whose
    message the broker lost."""
    now = at or timezone.now()
    asking = f"{node}:{os.getpid()}" if node else ""
    grace = now - timedelta(seconds=settings.WORKER_STALE_AFTER)
    requeued: list[int] = []
    held = (Submission.objects.filter(status=Status.SCORING, claimed_at__lt=grace)
            .exclude(claimed_worker="").values_list("pk", "claimed_worker", "claimed_by"))
    for pk, claimant, task_id in held:
        if worker_alive(worker=claimant, asking=asking, at=now):
            continue
        with transaction.atomic():
            updated = Submission.objects.filter(
                pk=pk, status=Status.SCORING, claimed_worker=claimant, claimed_by=task_id,
            ).update(status=Status.QUEUED, queued_at=now, claimed_by="", claimed_worker="",
                     claimed_at=None, updated_at=now)
            if updated:
                scoring_enqueue(submission_id=pk)
                requeued.append(pk)
    published: list[int] = []
    waiting = Submission.objects.filter(status=Status.QUEUED, published=False)
    for pk in waiting.order_by("queued_at", "pk").values_list("pk", flat=True):
        if not scoring_publish(submission_id=pk):
            break  # the broker is still away: the next round tries again
        Submission.objects.filter(pk=pk, status=Status.QUEUED).update(
            published=True, queued_at=now, updated_at=now)
        published.append(pk)
    resent = _resend_lost_messages(now=now, grace=grace)
    if requeued or published or resent:
        logger.warning("recovery: re-queued %s (worker gone), published %s, re-sent %s "
                       "(lost by the broker)", requeued, published, resent)
    return RecoverReport(requeued=tuple(requeued), published=tuple(published),
                         resent=tuple(resent))


def _resend_lost_messages(*, now: datetime, grace: datetime) -> list[int]:
    """Send again the runs queued for longer than the grace time while the broker's queue
    is empty: their message was lost (a broker restarted without persistence). A copy sent
    for a run whose message was only held by a busy worker is harmless: the claim refuses
    the second copy, and it spends no attempt. A run is sent again at most once per grace
    time."""
    waiting = list(Submission.objects.filter(status=Status.QUEUED, published=True,
                                             queued_at__lt=grace)
                   .order_by("queued_at", "pk").values_list("pk", "queued_at"))
    if not waiting or not scoring_queue_empty():
        return []
    resent: list[int] = []
    for pk, queued_at in waiting:
        if not Submission.objects.filter(pk=pk, status=Status.QUEUED,
                                         queued_at=queued_at).update(queued_at=now,
                                                                     updated_at=now):
            continue  # claimed, or sent again by another worker, meanwhile
        if not scoring_publish(submission_id=pk):
            Submission.objects.filter(pk=pk, status=Status.QUEUED).update(published=False)
            break
        resent.append(pk)
    return resent


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
    started = time.perf_counter()
    log = [f"{timezone.now():%Y-%m-%d %H:%M:%S} UTC: scorer {scoring.__version__}, "
           f"{len(modes)} mode{'s' if len(modes) != 1 else ''}: "
           f"{', '.join(mode_label(task, mode.name) for mode in modes)}"]
    for submitted in files:
        keys[str(submitted.subcorpus_id)] = submitted.subcorpus.sha256
        key = str(submitted.subcorpus.key_path)
        response = str(submitted.absolute_path)
        name = submitted.subcorpus.name
        begun = time.perf_counter()
        try:
            # Every mode from one reading of the two files (the scorer reads them once for
            # the modes that read them alike), in one process: a worker is already one of
            # many scoring in parallel.
            results = score_modes(key, response, options=[mode.options for mode in modes],
                                  per_doc=[mode.per_doc for mode in modes])
        except ScoringInputError as exc:
            error = _public_error(exc, key=key, response=response, submitted=submitted)
            log.append(f"{name}: {submitted.original_name} refused after "
                       f"{time.perf_counter() - begun:.2f} s: {error}")
            error.scoring_log = "\n".join(log)  # the task stores it with the failure
            raise error from None
        spent = time.perf_counter() - begun
        scored = max((len(result.scored) for result in results), default=0)
        # One line per dataset: every mode came from the same reading of the two files.
        log.append(f"{name}: read {submitted.original_name} ({submitted.size:,} bytes) and "
                   f"the gold key of {name}; {scored} document{'s' if scored != 1 else ''} "
                   f"scored in {spent:.2f} s"
                   + (f" ({len(modes)} modes)" if len(modes) > 1 else ""))
        said: set[str] = set()
        for mode, result in zip(modes, results):
            scores.extend(ScoreValue(submitted.subcorpus_id, row)
                          for row in score_rows(result, mode.options, mode=mode.name,
                                                per_doc=mode.per_doc))
            for warning in (*mode.notes, *result.warnings):
                text = str(warning)
                if text in said:
                    continue  # the same note from another mode
                said.add(text)
                if key in text:
                    # About the gold key (its MarkableIDs, lines, entities): organizers only,
                    # naming the key as they know it, not by its stored path.
                    logger.warning("note on the gold key of %s (scoring submission %s; the "
                                   "run was scored): %s",
                                name, submission.pk,
                                text.replace(key, f"gold key of {name}"))
                    continue
                warnings.append(text.replace(response, submitted.original_name))
                log.append(f"  warning [{mode_label(task, mode.name)}]: {warnings[-1]}")
    log.append(f"done in {time.perf_counter() - started:.2f} s")
    return ScoringResults(scorer_version=scoring.__version__,
                          options={mode.name: list(mode.words) for mode in modes},
                          scores=tuple(scores), warnings=tuple(warnings), keys=keys,
                          procedure=task.procedure, log="\n".join(log))


def _public_error(exc: ScoringInputError, *, key: str, response: str,
                  submitted: SubmissionFile) -> ScoringError:
    """The same input error, naming files as the team knows them and never the gold key's
    path or lines. A fault of the gold key itself (missing, unreadable) is the platform's:
    it becomes a plain ``ScoringError``, which does not count against the team."""
    on_key_side = exc.path == key
    message = exc.message.replace(key, f"gold key of {submitted.subcorpus.name}")
    message = web_wording(message.replace(response, submitted.original_name))
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
            error="\n".join(results.warnings)[:10000], platform_failure=False,
            scoring_log=_log_after(held.scoring_log, results.log), updated_at=now)
        board_entries_write(submission_ids=[held.pk])
        notification_enqueue(submission_id=held.pk)
    return True


def _log_after(previous: str, log: str) -> str:
    """The run's log with this job's lines after the earlier ones (upload, other jobs); the
    oldest lines go first when it grows long."""
    text = f"{previous}\n{log}" if previous else log
    return text[-50000:]


def submission_fail(*, submission: Submission, reason: str, platform_failure: bool,
                    task_id: str | None = None, log: str = "") -> bool:
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
    fields = {"scoring_log": Concat(F("scoring_log"), Value("\n" + log[:20000]))} if log else {}
    updated = pending.update(status=Status.FAILED, failed_at=now, error=reason[:10000],
                             platform_failure=platform_failure, updated_at=now, **fields)
    if updated:
        notification_enqueue(submission_id=submission.pk)
    return updated == 1


# --- re-score ---------------------------------------------------------------------------

def submission_rescore(*, submission: Submission, queue: bool = True) -> Submission:
    """Queue a scored or failed submission to be scored again; its current run stays current
    (and the old runs stay as history) until the new run is recorded. ``queue=False`` marks
    it queued and leaves sending the job to the caller (a batch sends them together)."""
    with transaction.atomic():
        current = Submission.objects.select_for_update().get(pk=submission.pk)
        if current.is_reference:
            raise CompetitionError("reference_run", submission=current.pk)
        if current.status not in (Status.SCORED, Status.FAILED):
            raise CompetitionError("invalid_status", submission=current.pk,
                                   status=current.get_status_display().lower(),
                                   expected="scored or failed")
        now = timezone.now()
        Submission.objects.filter(pk=current.pk).update(
            status=Status.QUEUED, queued_at=now, claimed_by="", claimed_at=None, attempts=0,
            error="", platform_failure=False, failed_at=None, updated_at=now)
        if queue:
            scoring_enqueue(submission_id=current.pk)
    current.refresh_from_db()
    return current


def rescorable_ids(*, phase: Phase) -> list[int]:
    """The submissions of a phase that a phase re-score takes: scored or platform-failed
    runs with files (published reference results keep their cited numbers)."""
    return list(Submission.objects.filter(phase=phase, is_reference=False).filter(
        Q(status=Status.SCORED) | Q(status=Status.FAILED, platform_failure=True)
    ).order_by("pk").values_list("pk", flat=True))


def phase_rescore(*, phase: Phase) -> list[Submission]:
    """Re-score every scored (or platform-failed) submission of a phase, keeping history."""
    return [submission_rescore(submission=Submission(pk=pk))
            for pk in rescorable_ids(phase=phase)]


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

