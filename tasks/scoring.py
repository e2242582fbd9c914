"""Scoring jobs.

``score_submission_task`` is safe to run twice: it claims the submission (a redelivered
message keeps its task id and may re-take its own claim), computes without writing, and
records in one transaction only while it holds the claim. Messages are acknowledged late and
re-queued when a worker dies, each job has soft and hard time limits, and each worker child
has a memory cap. Every worker node runs ``heartbeat_loop`` in its main process: it says the
node is alive and takes back the runs of dead workers, publishes runs the broker never took
and sends again runs whose message the broker lost (``submission_recover``).
``sweep_stuck_submissions`` (celery beat) is the backstop: it re-queues jobs stuck for
``SWEEP_STUCK_AFTER`` and fails, with a message, those that used all their attempts.
With workers, a run of several datasets is scored in parts: its job claims it and hands
each dataset to ``score_part_task`` (a Celery chord), and ``finish_parts_task`` records the
run from the parts; each part is written once and the last job is safe twice. A job that
loses its database connection gives its claim back and the run is queued again at once; a
part that loses it gives the part back and is retried under the run's claim (the run keeps
its one attempt). Pool processes keep their database connection from one job to the next;
one the server ended meanwhile is replaced before the next job begins.
``notify_submission_task`` e-mails the submitter how a run ended. This module is the Celery
glue (signals, heartbeat, deadline, retries): every step of the life cycle, and the one
classification of how a scoring ended (``competition.scoring.outcome``), is in
``competition.scoring``; the services reach the jobs only through the queue port
(``tasks.queue``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import signal
import threading
from collections.abc import Callable, Iterator
from smtplib import SMTPException
from typing import TypeVar

from celery import chord, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from celery.signals import (
    task_failure,
    task_prerun,
    worker_process_init,
    worker_ready,
    worker_shutdown,
)
from django.conf import settings
from django.db import InterfaceError, close_old_connections, connection, connections

# Imported here, in the worker's main process before it forks its children: a child then
# starts scoring at once, and a soft time limit never lands inside an import (numpy's and
# scipy's machinery, where the assignment solver is not compiled, may swallow the exception
# it raises).
import scoring  # noqa: F401
import scoring.engine  # noqa: F401
import scoring.readers.exploded  # noqa: F401
from competition import scoring as lifecycle
from competition.models import Submission
from competition.scoring import DATABASE_ERRORS, HARD_LIMIT_MESSAGE, Outcome, outcome_of
from competition.services.notifications import submission_notify
from scoring.assignment import preload

logger = logging.getLogger(__name__)

R = TypeVar("R")

preload()  # the Kuhn–Munkres the scorer would load on its first assignment


@worker_process_init.connect
def limit_child_memory(**_: object) -> None:
    """Cap the data segment of every worker child: a runaway job raises MemoryError (and
    fails with a message) instead of taking the machine down."""
    limit = settings.SCORING_MEMORY_LIMIT_MB * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ValueError, OSError):  # pragma: no cover - platform without RLIMIT_DATA
        logger.warning("could not set a memory limit of %s MB", settings.SCORING_MEMORY_LIMIT_MB)


@task_prerun.connect
def drop_lost_connections(**_: object) -> None:
    """Before each job: close a database connection kept from an earlier job (pool processes
    keep theirs, ``CELERY_DB_REUSE_MAX``) that can no longer be used, so that the job opens
    a new one instead of failing on it: the server may have ended it while the process
    waited (a restart, a failover, a reaper of idle connections). One round trip."""
    for kept in connections.all(initialized_only=True):
        if kept.connection is not None and not kept.in_atomic_block and not kept.is_usable():
            kept.close()


def scoring_queue_length() -> int | None:
    """How many scoring messages wait in the broker's queue (delivered but unacknowledged
    ones not included), or None where that cannot be asked (jobs run in-process, or the
    broker cannot be reached)."""
    app = score_submission_task.app
    if app.conf.task_always_eager:
        return None
    name = app.conf.task_default_queue  # no routes: every job goes to the default queue
    try:
        with app.connection_for_read() as connection:
            # declared as the workers declare it (a passive declaration fails on Redis when
            # the queue is empty, for Redis keeps no empty list)
            queue = app.amqp.queues[name](connection.default_channel)
            _, count, _ = queue.queue_declare()
    except Exception as exc:  # noqa: BLE001 - broker away: the caller asks again later
        logger.info("could not read the length of queue %s: %s", name, exc)
        return None
    return count


_stop_heartbeat = threading.Event()


@worker_ready.connect
def start_heartbeat(sender=None, **_: object) -> None:
    """In the worker's main process: say every few seconds that this node is alive, take
    back the runs of nodes that stopped saying so, publish the runs the broker never got.
    No beat needed: every live worker does it, and the writes are conditional updates."""
    node = getattr(sender, "hostname", None) or "worker"
    thread = threading.Thread(
        target=heartbeat_loop, args=(node,), daemon=True, name="scoring-heartbeat"
    )
    thread.start()


@worker_shutdown.connect
def stop_heartbeat(**_: object) -> None:
    _stop_heartbeat.set()


def heartbeat_loop(node: str, *, rounds: int | None = None) -> None:
    """Heartbeat and recovery every ``WORKER_HEARTBEAT_INTERVAL`` seconds (``rounds``: for
    tests). A failing round (database away) is logged and the next one tries again."""
    done = 0
    while not _stop_heartbeat.is_set() and (rounds is None or done < rounds):
        try:
            lifecycle.worker_heartbeat(node=node)
            lifecycle.submission_recover(node=node, running=node_task_ids)
        except Exception:  # noqa: BLE001 - never let the loop die
            logger.exception("worker heartbeat or recovery failed; trying again")
        finally:
            close_old_connections()
        done += 1
        if rounds is None or done < rounds:
            _stop_heartbeat.wait(settings.WORKER_HEARTBEAT_INTERVAL)


def node_task_ids() -> set[str]:
    """The task ids this worker node holds now: started in one of its pool processes, or
    received and waiting there (a retry's countdown, a prefetched message). Read from the
    worker's own state, in its main process, where the heartbeat runs."""
    from celery.worker import state

    for _ in range(5):  # the main thread may change the sets while they are copied
        try:
            return {
                request.id
                for request in (
                    *state.active_requests,
                    *state.reserved_requests,
                    # a retry waiting for its countdown: Celery 5.5 on keeps it here, not
                    # among the reserved ones
                    *getattr(state, "scheduled_requests", ()),
                )
            }
        except RuntimeError:
            continue
    return {request.id for request in tuple(state.active_requests)}


@contextlib.contextmanager
def scoring_deadline(seconds: int) -> Iterator[None]:
    """Raise SoftTimeLimitExceeded in this job after ``seconds``, from an alarm of its own.

    Celery's soft limit is signalled by the worker's main process and was seen to arrive
    late or not at all on a loaded machine; the alarm is armed in the process that scores.
    Only possible in a main thread (a worker child); elsewhere Celery's limits alone apply.
    """
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    expired = False

    def expire(signum, frame):
        nonlocal expired
        expired = True
        raise SoftTimeLimitExceeded()

    previous = signal.signal(signal.SIGALRM, expire)
    # The alarm repeats: an exception raised while Python runs a finaliser or a callback is
    # reported and dropped, so one alarm alone could let an overdue job run to its end.
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.5)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if expired:  # every alarm was swallowed: the job is still over its limit
        raise SoftTimeLimitExceeded()


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=8)
def score_submission_task(self, submission_id: int) -> str:
    """Score one submission. A redelivered message is harmless: claim, compute, replace.

    A job that loses its database connection gives its claim back (the run is queued again
    at once, as a new job, and the attempt is not counted: the platform failed, not the
    run). When the database cannot be reached even for that, the message is retried later
    under the same task id, and that next try takes over the claim (``resumes``); should it
    never come, the node's recovery round sees the claim held by a job it no longer runs.
    """
    task_id = self.request.id or f"local-{submission_id}"
    worker = f"{self.request.hostname}:{os.getpid()}" if self.request.hostname else ""
    claimed = False
    try:
        submission = lifecycle.submission_claim(
            submission_id=submission_id,
            task_id=task_id,
            worker=worker,
            resumes=bool(self.request.retries),
        )
        if submission is None:
            return "skipped"  # done already, cancelled, or another task holds it
        claimed = True
        if not self.request.is_eager and _in_parts(submission):
            return _fan_out(submission, claim=task_id)
        return _score_claimed(submission, task_id=task_id)
    except DATABASE_ERRORS as exc:
        return _database_lost(
            self, submission_id=submission_id, task_id=task_id, claimed=claimed, exc=exc
        )


def _in_parts(submission: Submission) -> bool:
    """Whether a run is scored one job per dataset: with workers, from
    ``SCORING_PARTS_FROM`` datasets on."""
    least = settings.SCORING_PARTS_FROM
    return bool(least) and lifecycle.scored_files(submission).count() >= max(least, 2)


def _fan_out(submission: Submission, *, claim: str) -> str:
    """Hand each dataset of a claimed run to a job of its own (a Celery chord: the group of
    parts, then ``finish_parts_task``, which records the run from the parts once all are
    written). The run keeps its claim; the parts and the last job check it."""
    subcorpora = lifecycle.scoring_parts_create(submission=submission, claim=claim)
    parts = [score_part_task.si(submission.pk, subcorpus_id, claim) for subcorpus_id in subcorpora]
    chord(parts)(finish_parts_task.si(submission.pk, claim))
    return "in parts"


def scored(compute: Callable[[], R]) -> Outcome[R]:
    """Run ``compute`` under the job's deadline and say how it ended (a lost database
    connection is raised: the job gives its claim or its part back)."""

    def within_deadline() -> R:
        with scoring_deadline(settings.SCORING_SOFT_TIME_LIMIT):
            return compute()

    return outcome_of(within_deadline, timed_out=(SoftTimeLimitExceeded,))


def _score_claimed(
    submission: Submission,
    *,
    task_id: str,
    outcome: Outcome[lifecycle.ScoringResults] | None = None,
) -> str:
    """Compute (unless its ``outcome`` is known: every dataset, here) and record a claimed
    run, or end it with the message of what stopped it. A crash ends the run, then is raised
    again for the worker to log."""
    if outcome is None:
        outcome = scored(lambda: lifecycle.submission_compute(submission=submission))
    ended = lifecycle.outcome_record(submission=submission, outcome=outcome, task_id=task_id)
    if outcome.crash is not None:
        raise outcome.crash
    return ended


# SQLSTATE classes of a connection that is gone: 08 (connection exception), 57P01-57P03
# (the server shut down, crashed or cannot take connections now).
_LOST_STATES = ("08", "57P01", "57P02", "57P03")


def connection_lost(exc: Exception) -> bool:
    """Whether a database error says the connection itself was lost (terminated by the
    server, a failover, a broken socket), rather than a statement refused (a timeout, a
    lock) on a connection that lives on."""
    if isinstance(exc, InterfaceError):
        return True
    state = getattr(exc.__cause__, "sqlstate", None)
    if state:
        return state.startswith(_LOST_STATES)
    text = str(exc).lower()  # no answer from the server at all
    return "connection" in text or "server closed" in text


def _database_lost(task, *, submission_id: int, task_id: str, claimed: bool, exc: Exception) -> str:
    """After a database error: drop the broken connection, give the claim back and queue
    the run again; if the database still cannot be reached, retry this message later."""
    lost = connection_lost(exc)
    connection.close()
    if claimed:
        try:
            # A dead connection is the platform's hiccup: the attempt is given back. A
            # statement the database refused (a timeout) keeps it, so that a run that
            # always fails so is bounded by SCORING_MAX_ATTEMPTS.
            if lifecycle.submission_release(
                submission_id=submission_id, task_id=task_id, spent=not lost
            ):
                return "released"
            return "skipped"  # no longer ours
        except DATABASE_ERRORS:
            connection.close()
    logger.warning(
        "submission %s: the database is away (%s); retrying job %s", submission_id, exc, task_id
    )
    raise task.retry(exc=exc, countdown=min(2**task.request.retries, 30))


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=False,
    autoretry_for=DATABASE_ERRORS,
    retry_backoff=True,
    retry_backoff_max=30,
    max_retries=8,
)
def score_part_task(self, submission_id: int, subcorpus_id: int, claim: str) -> str:
    """Score one dataset of a run scored in parts and write its outcome, once: results, or
    why it could not be scored (the last job turns that into the run's message). It never
    raises for the run's sake, so that the chord always reaches its last job; a database
    error is retried (the part is written once whoever writes it). A part that lost its
    connection gives the part back first (``scoring_part_release``): its retry takes it
    again under the run's claim, and the run keeps its one attempt however many of its
    parts lost theirs."""
    task_id = self.request.id or ""
    try:
        return _score_part(
            self, submission_id=submission_id, subcorpus_id=subcorpus_id, claim=claim
        )
    except DATABASE_ERRORS as exc:
        lost = connection_lost(exc)
        connection.close()
        if lost and task_id:
            try:
                lifecycle.scoring_part_release(
                    submission_id=submission_id,
                    subcorpus_id=subcorpus_id,
                    claim=claim,
                    task_id=task_id,
                )
            except DATABASE_ERRORS:  # still away: the recovery round judges the part
                connection.close()
        raise  # retried (autoretry_for)


def _score_part(task, *, submission_id: int, subcorpus_id: int, claim: str) -> str:
    worker = f"{task.request.hostname}:{os.getpid()}" if task.request.hostname else ""
    started = lifecycle.scoring_part_start(
        submission_id=submission_id,
        subcorpus_id=subcorpus_id,
        claim=claim,
        task_id=task.request.id or "",
        worker=worker,
    )
    if started is None:
        return "skipped"  # the run was queued again, cancelled or done; or written already
    submission, submitted = started
    outcome = scored(lambda: lifecycle.part_compute(submission=submission, submitted=submitted))
    if outcome.crash is not None:
        logger.error(
            "part %s of submission %s crashed",
            subcorpus_id,
            submission_id,
            exc_info=outcome.crash,
        )
    lifecycle.scoring_part_store(
        submission_id=submission_id, subcorpus_id=subcorpus_id, claim=claim, outcome=outcome
    )
    return "done"


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=8)
def finish_parts_task(self, submission_id: int, claim: str) -> str:
    """The chord's last job: record the run from its parts, or end it with the message of
    the first part (in the datasets' order) that could not be scored. Safe to run twice:
    only the holder of the claim records, once."""
    try:
        submission = lifecycle.submission_held(submission_id=submission_id, claim=claim)
        if submission is None:
            return "skipped"
        outcome = lifecycle.scoring_parts_collect(submission=submission, claim=claim)
        if outcome is None:
            return "waiting"  # parts missing: the recovery round decides
        return _score_claimed(submission, task_id=claim, outcome=outcome)
    except DATABASE_ERRORS as exc:
        return _database_lost(
            self, submission_id=submission_id, task_id=claim, claimed=True, exc=exc
        )


@shared_task(acks_late=True, ignore_result=True)
def sweep_stuck_submissions() -> dict[str, list[int]]:
    """Re-queue submissions stuck in queued/scoring; fail those out of attempts."""
    report = lifecycle.submission_sweep()
    return {"requeued": list(report.requeued), "failed": list(report.failed)}


@task_failure.connect
def fail_on_hard_time_limit(
    sender=None, task_id=None, exception=None, args=None, **_: object
) -> None:
    """At the hard time limit Celery kills the child and reports the failure from the
    worker's main process: end the submission there, rather than leave it 'scoring' until
    the sweep."""
    name = getattr(sender, "name", None)
    if name not in (score_submission_task.name, score_part_task.name):
        return
    if not isinstance(exception, TimeLimitExceeded) or not args:
        return
    if name == score_part_task.name:  # a part: the run's claim is its third argument
        task_id = args[2]
    lifecycle.submission_fail(
        submission=Submission(pk=args[0]),
        task_id=task_id,
        platform_failure=True,
        reason=HARD_LIMIT_MESSAGE.format(seconds=settings.SCORING_HARD_TIME_LIMIT),
    )


@shared_task(
    acks_late=True,
    ignore_result=True,
    autoretry_for=(OSError, SMTPException),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=5,
)
def notify_submission_task(submission_id: int) -> bool:
    """E-mail the submitter how their run ended; a mail server that is down is retried."""
    return submission_notify(submission_id=submission_id)
