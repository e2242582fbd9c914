"""Queueing jobs (scoring, e-mails): the port through which services hand work to the job
layer.

Services decide *that* a job must run; the job layer (``tasks``) decides *how*. The
competition app therefore never imports the job layer: ``tasks`` installs its queue here when
Django starts (``tasks.apps.TasksConfig.ready``), and its jobs import the services they call.
The import graph stays one-way (competition below tasks, docs/architecture.md), load time and
run time alike.

A scoring job the broker cannot take leaves its run marked unpublished; a live worker's
heartbeat round publishes it once the broker answers
(``competition.scoring.recovery.submission_recover``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

from django.db import connections, transaction

from competition.models import Submission

logger = logging.getLogger(__name__)


class JobQueue(Protocol):
    """What the services need of the job layer. ``score``, ``notify`` and ``announce`` hand
    a job to the broker and raise when it cannot take it; ``score_here`` runs a scoring job
    in this process (the embedded configuration); ``scoring_queue_length`` is the number of
    scoring messages waiting, or None where that cannot be asked; ``finish_parts`` sends
    again the last job of a run scored in parts (it records the run from its parts)."""

    def score(self, submission_id: int) -> None: ...

    def score_here(self, submission_id: int) -> None: ...

    def notify(self, submission_id: int) -> None: ...

    def announce(self, announcement_id: int) -> None: ...

    def load_definition(self, job_id: int) -> None: ...

    def scoring_queue_length(self) -> int | None: ...

    def finish_parts(self, submission_id: int, claim: str) -> None: ...

    def runs_in_process(self) -> bool: ...


_installed: JobQueue | None = None


def queue_install(queue: JobQueue) -> None:
    """Make ``queue`` the one the services hand their jobs to (called once at start-up)."""
    global _installed
    _installed = queue


def job_queue() -> JobQueue:
    if _installed is None:
        raise RuntimeError("no job queue is installed: add 'tasks' to INSTALLED_APPS")
    return _installed


def scoring_enqueue(*, submission_id: int) -> None:
    """Queue the scoring job of a submission once the current transaction commits. A broker
    that cannot be reached leaves the run marked unpublished: it says "waiting for the
    queue", and a live worker publishes it when the broker is back."""
    _on_commit(
        lambda: job_queue().score(submission_id),
        "could not queue submission %s; a worker will publish it",
        submission_id,
        unpublished=True,
    )


def scoring_publish(*, submission_id: int) -> bool:
    """Send the scoring job of a submission now (outside any transaction that could still
    roll back); whether the broker took it."""
    try:
        job_queue().score(submission_id)
    except Exception:  # broker down: the caller keeps the run as it was
        logger.info("could not queue submission %s yet", submission_id, exc_info=True)
        return False
    return True


def scoring_parts_finish_publish(*, submission_id: int, claim: str) -> bool:
    """Send the job that records a run from its written parts; whether the broker took
    it."""
    try:
        job_queue().finish_parts(submission_id, claim)
    except Exception:  # broker down: the next recovery round tries again
        logger.info(
            "could not send the last job of submission %s yet", submission_id, exc_info=True
        )
        return False
    return True


def scoring_queue_length() -> int | None:
    """How many scoring messages wait in the broker's queue, or None when unknown."""
    return job_queue().scoring_queue_length()


def scoring_queue_empty() -> bool:
    """Whether the broker's scoring queue holds no message (False when that is unknown)."""
    return scoring_queue_length() == 0


def notification_enqueue(*, submission_id: int) -> None:
    """Queue the e-mail telling the submitter how their run ended, once the transaction
    commits. A broker that cannot be reached loses the mail, not the run."""
    _on_commit(
        lambda: job_queue().notify(submission_id),
        "could not queue the e-mail of submission %s",
        submission_id,
    )


def announcement_email_enqueue(*, announcement_id: int) -> None:
    """Queue the e-mail of an announcement once the transaction commits. A broker that
    cannot be reached loses the mail (logged), not the announcement."""
    _on_commit(
        lambda: job_queue().announce(announcement_id),
        "could not queue the e-mail of announcement %s",
        announcement_id,
    )


def definition_job_enqueue(*, job_id: int) -> None:
    """Queue the loading of an uploaded definition once the transaction commits. In the
    embedded configuration it runs in a background thread, so that the request that
    uploaded it returns at once and the edit page shows its progress. A broker that cannot
    be reached leaves the job waiting (its page says so; the organizers upload again)."""
    if not job_queue().runs_in_process():
        _on_commit(
            lambda: job_queue().load_definition(job_id),
            "could not queue the definition job %s",
            job_id,
        )
        return

    def start() -> None:
        if connections["default"].in_atomic_block:  # a test's outer transaction
            job_queue().load_definition(job_id)
            return
        threading.Thread(
            target=_load_in_background, args=(job_id,), daemon=True, name="definition-in-process"
        ).start()

    transaction.on_commit(start)


def _load_in_background(job_id: int) -> None:
    try:
        job_queue().load_definition(job_id)
    except Exception:  # logged; the job's row says it failed
        logger.exception("in-process loading of definition job %s failed", job_id)
    finally:
        connections.close_all()


def _on_commit(
    send: Callable[[], None], failure: str, pk: int, *, unpublished: bool = False
) -> None:
    def attempt() -> None:
        try:
            send()
        except Exception:  # broker down: logged; the caller says what recovers it
            logger.exception(failure, pk)
            if unpublished:
                Submission.objects.filter(pk=pk).update(published=False)

    transaction.on_commit(attempt)


def scoring_enqueue_many(*, submission_ids: list[int]) -> None:
    """Queue the scoring of many submissions once the transaction commits.

    With workers, each is queued as ``scoring_enqueue`` does. In the embedded configuration
    (jobs run in-process) they are scored one after another in a background thread, so the
    request that asked for them returns at once; their pages show progress as each ends.
    """
    if not job_queue().runs_in_process():
        for submission_id in submission_ids:
            scoring_enqueue(submission_id=submission_id)
        return
    ids = list(submission_ids)

    def start() -> None:
        if connections["default"].in_atomic_block:
            # Still inside an outer transaction (a test's): another connection would not see
            # its rows, so score here.
            for submission_id in ids:
                job_queue().score_here(submission_id)
            return
        threading.Thread(
            target=_score_in_background, args=(ids,), daemon=True, name="rescore-in-process"
        ).start()

    transaction.on_commit(start)


def _score_in_background(submission_ids: list[int]) -> None:
    try:
        for submission_id in submission_ids:
            try:
                job_queue().score_here(submission_id)
            except Exception:  # one run's crash is logged; the others still get scored
                logger.exception("in-process scoring of submission %s failed", submission_id)
    finally:
        connections.close_all()
