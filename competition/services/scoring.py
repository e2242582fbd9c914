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
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Concat, Greatest
from django.utils import timezone

import scoring
from competition.errors import CompetitionError
from competition.models import (
    AuditEntry,
    Phase,
    Score,
    ScoringPart,
    ScoringRun,
    SubCorpus,
    Submission,
    SubmissionFile,
    WorkerHeartbeat,
)
from competition.services.audit import audit_record
from competition.services.boards import board_entries_write
from competition.services.dispatch import (
    notification_enqueue,
    scoring_enqueue,
    scoring_parts_finish_publish,
    scoring_publish,
    scoring_queue_empty,
)
from competition.services.submissions import web_wording
from competition.task_scoring import mode_label, scoring_modes, task_modes, task_procedure
from scoring import ScoreRow, ScoringError, ScoringInputError, score_modes, score_rows
from scoring.analyses import analysis_rows

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


def submission_claim(
    *, submission_id: int, task_id: str, worker: str = "", resumes: bool = False
) -> Submission | None:
    """Take the job of scoring a submission, or None if it is done, cancelled or held by a
    live process. ``worker`` names the claiming process (``<node>:<pid>``). ``resumes``
    says this is a later try of the task ``task_id`` (Celery sends a retry only once the
    try before it has given up): it takes over that try's claim, spending nothing.

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
    row = (
        Submission.objects.filter(pk=submission_id)
        .values("status", "claimed_by", "claimed_worker", "claimed_at", "attempts")
        .first()
    )
    if row is None or row["status"] not in (Status.QUEUED, Status.SCORING):
        return None
    spends = True
    if row["status"] == Status.SCORING:
        is_stale = row["claimed_at"] is not None and row["claimed_at"] < stale
        if worker and row["claimed_worker"] == worker:
            spends = False  # this very process again (a retry of its own job)
        elif resumes and row["claimed_by"] == task_id:
            spends = False  # the next try of the same job: the previous one has ended
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
            submission_fail(
                submission=exhausted,
                reason=attempts_message(exhausted.attempts),
                platform_failure=True,
            )
        return None
    updated = Submission.objects.filter(
        pk=submission_id,
        status=row["status"],
        claimed_by=row["claimed_by"],
        claimed_worker=row["claimed_worker"],
        attempts=row["attempts"],
    ).update(
        status=Status.SCORING,
        claimed_by=task_id,
        claimed_worker=worker,
        claimed_at=now,
        scoring_started_at=now,
        published=True,
        attempts=F("attempts") + (1 if spends else 0),
        updated_at=now,
    )
    if updated == 1:
        return Submission.objects.select_related("phase__task").get(pk=submission_id)
    return None  # another process got there first


def submission_held(*, submission_id: int, claim: str) -> Submission | None:
    """The run if it is being scored under the claim ``claim``, else None."""
    return (
        Submission.objects.select_related("phase__task")
        .filter(pk=submission_id, status=Status.SCORING, claimed_by=claim)
        .first()
    )


# --- workers ----------------------------------------------------------------------------


def worker_heartbeat(*, node: str, at: datetime | None = None) -> None:
    """Record that the worker node ``node`` is alive."""
    WorkerHeartbeat.objects.update_or_create(node=node, defaults={"seen_at": at or timezone.now()})


def workers_alive(*, at: datetime | None = None) -> list[str]:
    """The nodes whose heartbeat is fresh."""
    since = (at or timezone.now()) - timedelta(seconds=settings.WORKER_STALE_AFTER)
    return list(
        WorkerHeartbeat.objects.filter(seen_at__gte=since)
        .order_by("node")
        .values_list("node", flat=True)
    )


def worker_alive(
    *,
    worker: str,
    asking: str = "",
    at: datetime | None = None,
    task_id: str = "",
    running: Collection[str] | None = None,
) -> bool:
    """Whether the process ``worker`` (``<node>:<pid>``) may still be at work: on the asking
    process's own node, whether that process exists, or, when the node's ``running`` jobs
    (task ids) are known, whether the job ``task_id`` is among them (a pool process that
    outlived its job, after a lost database connection say, is idle, not at work);
    elsewhere, whether its node's heartbeat is fresh."""
    node, _, pid = worker.rpartition(":")
    own_node = asking.rpartition(":")[0]
    if node and node == own_node and running is not None and task_id:
        return task_id in running
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


def submission_recover(
    *,
    node: str = "",
    at: datetime | None = None,
    running: Callable[[], Collection[str]] | None = None,
) -> RecoverReport:
    """What a live worker (``node``) does every few seconds (no beat needed): queue again
    the runs whose claiming job is gone (its node stopped its heartbeat, or, on this node,
    the job is not among the node's ``running`` task ids (or, unknown, its process no
    longer exists); the attempt was spent when it was claimed), publish
    the runs whose message could not be handed to the broker, and send again the runs whose
    message the broker lost."""
    now = at or timezone.now()
    asking = f"{node}:{os.getpid()}" if node else ""
    grace = now - timedelta(seconds=settings.WORKER_STALE_AFTER)
    requeued: list[int] = []
    unsent: list[int] = []
    held = (
        Submission.objects.filter(status=Status.SCORING, claimed_at__lt=grace)
        .exclude(claimed_worker="")
        .values_list("pk", "claimed_worker", "claimed_by", "claimed_at")
    )
    queue_empty: list[bool] = []  # asked once a round, when needed

    def empty() -> bool:
        if not queue_empty:
            queue_empty.append(scoring_queue_empty())
        return queue_empty[0]

    for pk, claimant, task_id, claimed_at in held:
        # what this node runs, read after the claim (a job that claimed and then ended is
        # not counted as running)
        parts = _parts_state(
            submission_id=pk,
            claim=task_id,
            claimed_at=claimed_at,
            asking=asking,
            at=now,
            grace=grace,
            running=running,
            queue_empty=empty,
        )
        if parts == "finished":
            # every part is written and the run still waits: its last job (the chord's
            # callback) was lost; send it again (it is safe twice), once per grace time
            if Submission.objects.filter(
                pk=pk, status=Status.SCORING, claimed_by=task_id, claimed_at__lt=grace
            ).update(claimed_at=now):
                scoring_parts_finish_publish(submission_id=pk, claim=task_id)
            continue
        if parts == "alive" or (
            parts is None
            and worker_alive(
                worker=claimant,
                asking=asking,
                at=now,
                task_id=task_id,
                running=running() if running is not None else None,
            )
        ):
            continue
        # parts the broker lost (restarted without persistence) are not the run's attempt
        given_back = 1 if parts == "unsent" else 0
        with transaction.atomic():
            updated = Submission.objects.filter(
                pk=pk,
                status=Status.SCORING,
                claimed_worker=claimant,
                claimed_by=task_id,
            ).update(
                status=Status.QUEUED,
                queued_at=now,
                claimed_by="",
                claimed_worker="",
                claimed_at=None,
                updated_at=now,
                attempts=Greatest(F("attempts") - given_back, 0),
            )
            if updated:
                scoring_enqueue(submission_id=pk)
                (unsent if given_back else requeued).append(pk)
    published: list[int] = []
    waiting = Submission.objects.filter(status=Status.QUEUED, published=False)
    for pk in waiting.order_by("queued_at", "pk").values_list("pk", flat=True):
        if not scoring_publish(submission_id=pk):
            break  # the broker is still away: the next round tries again
        Submission.objects.filter(pk=pk, status=Status.QUEUED).update(
            published=True, queued_at=now, updated_at=now
        )
        published.append(pk)
    resent = unsent + _resend_lost_messages(now=now, grace=grace)
    if requeued or published or resent:
        logger.warning(
            "recovery: re-queued %s (worker gone), published %s, re-sent %s (lost by the broker)",
            requeued,
            published,
            resent,
        )
    return RecoverReport(requeued=tuple(requeued), published=tuple(published), resent=tuple(resent))


def _parts_state(
    *,
    submission_id: int,
    claim: str,
    claimed_at: datetime,
    asking: str,
    at: datetime,
    grace: datetime,
    running: Callable[[], Collection[str]] | None,
    queue_empty: Callable[[], bool],
) -> str | None:
    """For a run scored in parts (its job handed its datasets to jobs of their own and
    ended): "finished" when every part is written, "lost" when a part's worker is gone
    (its node stopped beating, or on this node its job is not running), "unsent" when parts
    wait that the broker no longer holds (none started or ended for twice the grace time,
    and the queue is empty), "alive" otherwise (parts running or waiting in the queue). None
    for a run scored in one job."""
    parts = list(
        ScoringPart.objects.filter(submission_id=submission_id, claim=claim).values_list(
            "worker", "task_id", "started_at", "finished_at"
        )
    )
    if not parts:
        return None
    if all(finished is not None for *_, finished in parts):
        return "finished"
    ours = running() if running is not None else None
    for worker, part_task, _, finished in parts:
        if (
            finished is None
            and worker
            and not worker_alive(
                worker=worker, asking=asking, at=at, task_id=part_task, running=ours
            )
        ):
            return "lost"
    # Nothing moving for twice the grace time: a part just taken from the queue by a busy
    # machine's worker has not started yet, and must not pass for one the broker lost.
    quiet_since = grace - (at - grace)
    waiting = any(started is None for _, _, started, _ in parts)
    latest = max(
        [
            claimed_at,
            *(
                moment
                for *_, started, finished in parts
                for moment in (started, finished)
                if moment is not None
            ),
        ]
    )
    if waiting and latest < quiet_since and queue_empty():
        return "unsent"
    return "alive"


def _resend_lost_messages(*, now: datetime, grace: datetime) -> list[int]:
    """Send again the runs queued for longer than the grace time while the broker's queue
    is empty: their message was lost (a broker restarted without persistence). A copy sent
    for a run whose message was only held by a busy worker is harmless: the claim refuses
    the second copy, and it spends no attempt. A run is sent again at most once per grace
    time."""
    waiting = list(
        Submission.objects.filter(status=Status.QUEUED, published=True, queued_at__lt=grace)
        .order_by("queued_at", "pk")
        .values_list("pk", "queued_at")
    )
    if not waiting or not scoring_queue_empty():
        return []
    resent: list[int] = []
    for pk, queued_at in waiting:
        if not Submission.objects.filter(pk=pk, status=Status.QUEUED, queued_at=queued_at).update(
            queued_at=now, updated_at=now
        ):
            continue  # claimed, or sent again by another worker, meanwhile
        if not scoring_publish(submission_id=pk):
            Submission.objects.filter(pk=pk, status=Status.QUEUED).update(published=False)
            break
        resent.append(pk)
    return resent


def submission_release(*, submission_id: int, task_id: str, spent: bool = True) -> bool:
    """Give back the claim of a job that could not go on for a reason of the platform's
    (its database connection was lost): the run is queued again at once, as a new job, and
    with ``spent=False`` the attempt it took is given back. Only the holder may."""
    now = timezone.now()
    with transaction.atomic():
        updated = Submission.objects.filter(
            pk=submission_id,
            status=Status.SCORING,
            claimed_by=task_id,
        ).update(
            status=Status.QUEUED,
            queued_at=now,
            claimed_by="",
            claimed_worker="",
            claimed_at=None,
            published=True,
            updated_at=now,
            attempts=Greatest(F("attempts") - (0 if spent else 1), 0),
        )
        if updated:
            scoring_enqueue(submission_id=submission_id)
    if updated:
        logger.warning(
            "submission %s: job %s lost its database connection; queued again",
            submission_id,
            task_id,
        )
    return updated == 1


def attempts_message(attempts: int) -> str:
    return (
        f"Scoring did not finish after {attempts} attempts. This is a problem of the "
        "platform, not of your files; the run does not count against your limits and the "
        "organizers can re-score it."
    )


# --- compute ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PartResults:
    """The scoring of one dataset (sub-corpus) of a run in every mode of its task."""

    subcorpus_id: int
    key: str  # SHA-256 of the gold key it was scored against
    scores: tuple[ScoreValue, ...]
    warnings: tuple[str, ...]
    log: tuple[str, ...]


def _log_header(task) -> str:
    modes = task_modes(task)
    return (
        f"{timezone.now():%Y-%m-%d %H:%M:%S} UTC: scorer {scoring.__version__}, "
        f"{len(modes)} mode{'s' if len(modes) != 1 else ''}: "
        f"{', '.join(mode_label(task, mode.name) for mode in modes)}"
    )


def submission_compute(*, submission: Submission) -> ScoringResults:
    """Score every sub-corpus of a submission in every mode of its task. Writes nothing.

    The rows are the scorer's own (`scoring.score_rows`): the platform stores them as they
    are and never derives a number. Raises ``scoring.ScoringError`` when the scorer refuses
    the input.
    """
    task = submission.phase.task
    files = (
        scored_files(submission)
        .select_related("subcorpus")
        .order_by("subcorpus__order", "subcorpus_id")
    )
    started = time.perf_counter()
    header = _log_header(task)
    parts: list[PartResults] = []
    for submitted in files:
        try:
            parts.append(part_compute(submission=submission, submitted=submitted))
        except ScoringInputError as error:
            error.scoring_log = "\n".join(
                [header, *(line for part in parts for line in part.log), error.scoring_log]
            )
            raise
    return results_assemble(
        submission=submission, parts=parts, header=header, seconds=time.perf_counter() - started
    )


def results_assemble(
    *, submission: Submission, parts: list[PartResults], header: str, seconds: float
) -> ScoringResults:
    """A run's results from the results of its datasets (in the datasets' order)."""
    task = submission.phase.task
    modes = task_modes(task)
    log = [header, *(line for part in parts for line in part.log), f"done in {seconds:.2f} s"]
    return ScoringResults(
        scorer_version=scoring.__version__,
        options={mode.name: list(mode.words) for mode in modes},
        scores=tuple(value for part in parts for value in part.scores),
        warnings=tuple(w for part in parts for w in part.warnings),
        keys={str(part.subcorpus_id): part.key for part in parts},
        procedure=task.procedure,
        log="\n".join(log),
    )


def part_compute(*, submission: Submission, submitted: SubmissionFile) -> PartResults:
    """Score one file of a run against its gold key in every mode of the task. Writes
    nothing. A refusal raises the team's ``ScoringInputError`` (files named as uploaded,
    never the key's path), with the log line of the refusal as ``scoring_log``; a fault of
    the gold key raises a plain ``ScoringError``."""
    task = submission.phase.task
    modes = task_modes(task)
    procedure = task_procedure(task)
    with_analyses = procedure is not None and bool(procedure.analyses)
    key = str(submitted.subcorpus.key_path)
    response = str(submitted.absolute_path)
    name = submitted.subcorpus.name
    scores: list[ScoreValue] = []
    warnings: list[str] = []
    log: list[str] = []
    begun = time.perf_counter()
    try:
        # Every mode from one reading of the two files (the scorer reads them once for
        # the modes that read them alike), in one process: a worker is already one of
        # many scoring in parallel.
        results = score_modes(
            key,
            response,
            options=[mode.options for mode in modes],
            per_doc=[mode.per_doc for mode in modes],
        )
        # The analyses of the procedure (CRAC 2026), stored as rows of their own modes.
        analyses = analysis_rows(key, response) if with_analyses else []
    except ScoringInputError as exc:
        error = _public_error(exc, key=key, response=response, submitted=submitted)
        error.scoring_log = (
            f"{name}: {submitted.original_name} refused after "
            f"{time.perf_counter() - begun:.2f} s: {error}"
        )
        raise error from None
    spent = time.perf_counter() - begun
    scored = max((len(result.scored) for result in results), default=0)
    # One line per dataset: every mode came from the same reading of the two files.
    log.append(
        f"{name}: read {submitted.original_name} ({submitted.size:,} bytes) and "
        f"the gold key of {name}; {scored} document{'s' if scored != 1 else ''} "
        f"scored in {spent:.2f} s" + (f" ({len(modes)} modes)" if len(modes) > 1 else "")
    )
    said: set[str] = set()
    scores.extend(ScoreValue(submitted.subcorpus_id, row) for row in analyses)
    if with_analyses:
        log.append(
            f"{name}: {len(analyses)} analysis rows (entity range, entity type, mention type)"
        )
    for mode, result in zip(modes, results):
        scores.extend(
            ScoreValue(submitted.subcorpus_id, row)
            for row in score_rows(result, mode.options, mode=mode.name, per_doc=mode.per_doc)
        )
        for warning in (*mode.notes, *result.warnings):
            text = str(warning)
            if text in said:
                continue  # the same note from another mode
            said.add(text)
            if key in text:
                # About the gold key (its MarkableIDs, lines, entities): organizers only,
                # naming the key as they know it, not by its stored path.
                logger.warning(
                    "note on the gold key of %s (scoring submission %s; the run was scored): %s",
                    name,
                    submission.pk,
                    text.replace(key, f"gold key of {name}"),
                )
                continue
            warnings.append(text.replace(response, submitted.original_name))
            log.append(f"  warning [{mode_label(task, mode.name)}]: {warnings[-1]}")
    return PartResults(
        subcorpus_id=submitted.subcorpus_id,
        key=submitted.subcorpus.sha256,
        scores=tuple(scores),
        warnings=tuple(warnings),
        log=tuple(log),
    )


def _public_error(
    exc: ScoringInputError, *, key: str, response: str, submitted: SubmissionFile
) -> ScoringError:
    """The same input error, naming files as the team knows them and never the gold key's
    path or lines. A fault of the gold key itself (missing, unreadable) is the platform's:
    it becomes a plain ``ScoringError``, which does not count against the team."""
    on_key_side = exc.path == key
    message = exc.message.replace(key, f"gold key of {submitted.subcorpus.name}")
    message = web_wording(message.replace(response, submitted.original_name))
    if on_key_side:
        # Details of the gold annotation are for the organizers (the log), not the team.
        logger.error("gold key of %s refused by the scorer: %s", submitted.subcorpus.name, message)
        return ScoringError(
            f"the gold key of {submitted.subcorpus.name} cannot be used by the "
            f"scorer ({exc.code}); the organizers have to fix it. This run does "
            "not count against your limits."
        )
    return ScoringInputError(
        submitted.original_name, exc.line, message, code=exc.code, document=exc.document
    )


# --- parts: a multi-dataset run scored across the workers --------------------------------


def scoring_parts_create(*, submission: Submission, claim: str) -> list[int]:
    """The parts of a run's claim, one per scored dataset, largest file first (the longest
    jobs start first, so the run ends sooner): their sub-corpus ids. Created once; a second
    call (a redelivered job) returns the same parts."""
    files = list(
        scored_files(submission)
        .order_by("-size", "subcorpus__order")
        .values_list("subcorpus_id", flat=True)
    )
    ScoringPart.objects.bulk_create(
        [ScoringPart(submission_id=submission.pk, subcorpus_id=pk, claim=claim) for pk in files],
        ignore_conflicts=True,
    )
    return files


def scoring_part_start(
    *, submission_id: int, subcorpus_id: int, claim: str, task_id: str, worker: str
) -> tuple[Submission, SubmissionFile] | None:
    """Take one part of a run: its run and file, or None when the run's claim is no longer
    ``claim`` (queued again, cancelled, done) or the part is written already."""
    held = (
        Submission.objects.select_related("phase__task")
        .filter(pk=submission_id, status=Status.SCORING, claimed_by=claim)
        .first()
    )
    if held is None:
        return None
    started = ScoringPart.objects.filter(
        submission_id=submission_id,
        subcorpus_id=subcorpus_id,
        claim=claim,
        finished_at__isnull=True,
    ).update(task_id=task_id, worker=worker, started_at=timezone.now())
    submitted = (
        scored_files(held).select_related("subcorpus").filter(subcorpus_id=subcorpus_id).first()
    )
    if not started or submitted is None:
        return None
    return held, submitted


def scoring_part_store(
    *,
    submission_id: int,
    subcorpus_id: int,
    claim: str,
    results: PartResults | None = None,
    error: dict | None = None,
) -> bool:
    """Write a part's outcome, once: its results, or why it could not be scored
    (``error``: ``kind`` input, scorer, time, memory or crash, and ``message``)."""
    outcome: dict[str, object]
    if results is not None:
        outcome = {
            "key": results.key,
            "warnings": list(results.warnings),
            "log": list(results.log),
            "scores": [
                [
                    v.row.mode,
                    v.row.metric,
                    v.row.document,
                    v.row.recall,
                    v.row.precision,
                    v.row.f1,
                    v.row.counts,
                ]
                for v in results.scores
            ],
        }
    else:
        outcome = {"error": error or {"kind": "crash", "message": ""}}
    return (
        ScoringPart.objects.filter(
            submission_id=submission_id,
            subcorpus_id=subcorpus_id,
            claim=claim,
            finished_at__isnull=True,
        ).update(outcome=outcome, finished_at=timezone.now())
        == 1
    )


def scoring_part_release(
    *, submission_id: int, subcorpus_id: int, claim: str, task_id: str
) -> bool:
    """Give back a part whose job lost its database connection (the platform's hiccup): no
    process holds it now, and the job's retry (the same task id, the run's claim) takes it
    again. It spends nothing: the run keeps its one attempt however many of its parts lost
    their connection, and the recovery round no longer judges the part by a process that
    let it go (on its own node, a retry waiting for its countdown, or taken by another
    node, would pass for a dead worker's part and cost the run an attempt). Should the
    retry never come, the part waits like one the broker lost ("unsent": the run is queued
    again, its attempt given back). Only the part's own job may, while it is not written."""
    return (
        ScoringPart.objects.filter(
            submission_id=submission_id,
            subcorpus_id=subcorpus_id,
            claim=claim,
            task_id=task_id,
            finished_at__isnull=True,
        ).update(worker="", started_at=None)
        == 1
    )


@dataclass(frozen=True, slots=True)
class PartsOutcome:
    """What the parts of a claim came to: the run's results, or the first error (in the
    datasets' order) of a part that could not be scored, or neither (parts missing)."""

    results: ScoringResults | None = None
    error: dict | None = None


def scoring_parts_collect(*, submission: Submission, claim: str) -> PartsOutcome:
    parts = list(
        ScoringPart.objects.filter(submission=submission, claim=claim)
        .order_by("subcorpus__order", "subcorpus_id")
        .values_list("subcorpus_id", "finished_at", "outcome", "started_at")
    )
    if not parts or any(finished is None for _, finished, _, _ in parts):
        return PartsOutcome()
    for _, _, outcome, _ in parts:
        if "error" in outcome:
            return PartsOutcome(error=outcome["error"])
    started = min(begun for *_, begun in parts if begun is not None)
    collected = [
        PartResults(
            subcorpus_id=subcorpus_id,
            key=outcome["key"],
            warnings=tuple(outcome["warnings"]),
            log=tuple(outcome["log"]),
            scores=tuple(ScoreValue(subcorpus_id, ScoreRow(*row)) for row in outcome["scores"]),
        )
        for subcorpus_id, _, outcome, _ in parts
    ]
    return PartsOutcome(
        results=results_assemble(
            submission=submission,
            parts=collected,
            header=_log_header(submission.phase.task),
            seconds=(timezone.now() - started).total_seconds(),
        )
    )


# --- record -----------------------------------------------------------------------------


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
        now = timezone.now()
        if results.keys != scoring_keys(held) or results.options != scoring_modes(held.phase.task):
            logger.info(
                "submission %s: its gold keys or scorer options changed while it was "
                "scored; scoring it again",
                held.pk,
            )
            Submission.objects.filter(pk=held.pk).update(
                status=Status.QUEUED,
                queued_at=now,
                claimed_by="",
                claimed_at=None,
                attempts=F("attempts") - 1,
                updated_at=now,
            )
            scoring_enqueue(submission_id=held.pk)
            return False
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
            scorer_version=results.scorer_version,
            error="\n".join(results.warnings)[:10000],
            platform_failure=False,
            scoring_log=_log_after(held.scoring_log, results.log),
            updated_at=now,
        )
        ScoringPart.objects.filter(submission=held).delete()  # parts of any claim: done
        board_entries_write(submission_ids=[held.pk])
        notification_enqueue(submission_id=held.pk)
    return True


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
            [
                Score(
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
                for value in scores
            ],
            batch_size=1000,
        )
        return
    from psycopg.types.json import Jsonb

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


def submission_replaced_keys(*, submission: Submission) -> list[str]:
    """The sub-corpora (names) whose gold key was replaced since the run's files were
    checked: against the keys of its upload, or, for runs stored before those were kept,
    of its current scoring. Empty when nothing says so."""
    before: dict[str, str] = submission.validated_keys or next(
        iter(
            ScoringRun.objects.filter(submission=submission, is_current=True).values_list(
                "keys", flat=True
            )
        ),
        {},
    )
    if not before:
        return []
    now = scoring_keys(submission)
    changed = [int(pk) for pk, sha in now.items() if pk in before and before[pk] != sha]
    return list(
        SubCorpus.objects.filter(pk__in=changed)
        .order_by("order", "pk")
        .values_list("name", flat=True)
    )


def set_aside_message(*, names: list[str], problem: str) -> str:
    keys = (
        "the gold key of " + ", ".join(names)
        if len(names) == 1
        else "the gold keys of " + ", ".join(names)
    )
    return (
        f"The organizers replaced {keys} after this run was uploaded, and the run's "
        f"files do not fit the new key ({problem}). The run is set aside for the "
        "organizers to look at; it does not count against your team's limits."
    )


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


# --- re-score ---------------------------------------------------------------------------


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
    ).values_list("pk", "status", "attempts", "queued_at", "claimed_at", "claimed_by")
    requeued: list[int] = []
    failed: list[int] = []
    for pk, status, attempts, _queued_at, _claimed_at, claim in stuck:
        if (
            status == Status.SCORING
            and ScoringPart.objects.filter(
                Q(started_at__gte=limit) | Q(finished_at__gte=limit), submission_id=pk, claim=claim
            ).exists()
        ):
            continue  # scored in parts, and they move: a long run, not a stuck one
        # An attempt whose message was lost before any worker claimed it counts too.
        attempts_used = attempts + (1 if status == Status.QUEUED else 0)
        condition = Q(pk=pk, status=status, attempts=attempts)
        if attempts_used >= settings.SCORING_MAX_ATTEMPTS:
            updated = Submission.objects.filter(condition).update(
                status=Status.FAILED,
                failed_at=now,
                error=attempts_message(attempts_used),
                platform_failure=True,
                attempts=attempts_used,
                updated_at=now,
            )
            if updated:
                failed.append(pk)
                notification_enqueue(submission_id=pk)
            continue
        with transaction.atomic():
            updated = Submission.objects.filter(condition).update(
                status=Status.QUEUED,
                queued_at=now,
                claimed_by="",
                claimed_at=None,
                attempts=attempts_used,
                updated_at=now,
            )
            if updated:
                scoring_enqueue(submission_id=pk)
                requeued.append(pk)
    if requeued or failed:
        logger.warning("sweep: re-queued %s, failed %s", requeued, failed)
    return SweepReport(requeued=tuple(requeued), failed=tuple(failed))


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
