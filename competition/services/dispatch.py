"""Queueing jobs (scoring, e-mails): the one place where the competition app reaches the
task layer.

The jobs are imported by name, at module level. The task module imports nothing of the
competition app when it loads: each job looks its services up when it runs (the style
guide's task pattern), so the load-time import graph has no circle. A scoring job the broker
cannot take leaves its run marked unpublished; a live worker's heartbeat round publishes it
once the broker answers (`competition.services.scoring.submission_recover`).
"""

from __future__ import annotations

import logging
import threading

from celery import Task as CeleryTask
from django.conf import settings
from django.db import connections, transaction

from competition.models import Submission
from tasks.mail import send_announcement_task
from tasks.scoring import notify_submission_task, score_submission_task
from tasks.scoring import scoring_queue_length as scoring_queue_length

logger = logging.getLogger(__name__)


def scoring_enqueue(*, submission_id: int) -> None:
    """Queue the scoring job of a submission once the current transaction commits. A broker
    that cannot be reached leaves the run marked unpublished: it says "waiting for the
    queue", and a live worker publishes it when the broker is back."""
    _delay_on_commit(score_submission_task, submission_id,
                     "could not queue submission %s; a worker will publish it",
                     unpublished=True)


def scoring_publish(*, submission_id: int) -> bool:
    """Send the scoring job of a submission now (outside any transaction that could still
    roll back); whether the broker took it."""
    try:
        score_submission_task.delay(submission_id)
    except Exception:  # broker down: the caller keeps the run as it was
        logger.info("could not queue submission %s yet", submission_id, exc_info=True)
        return False
    return True


def scoring_queue_empty() -> bool:
    """Whether the broker's scoring queue holds no message (False when that is unknown)."""
    return scoring_queue_length() == 0


def notification_enqueue(*, submission_id: int) -> None:
    """Queue the e-mail telling the submitter how their run ended, once the transaction
    commits. A broker that cannot be reached loses the mail, not the run."""
    _delay_on_commit(notify_submission_task, submission_id,
                     "could not queue the e-mail of submission %s")


def _delay_on_commit(job: CeleryTask, submission_id: int, failure: str, *,
                     unpublished: bool = False) -> None:
    def send() -> None:
        try:
            job.delay(submission_id)
        except Exception:  # broker down: logged; the caller says what recovers it
            logger.exception(failure, submission_id)
            if unpublished:
                Submission.objects.filter(pk=submission_id).update(published=False)

    transaction.on_commit(send)


def announcement_email_enqueue(*, announcement_id: int) -> None:
    """Queue the e-mail of an announcement once the transaction commits. A broker that
    cannot be reached loses the mail (logged), not the announcement."""
    def send() -> None:
        try:
            send_announcement_task.delay(announcement_id)
        except Exception:
            logger.exception("could not queue the e-mail of announcement %s", announcement_id)

    transaction.on_commit(send)


def scoring_enqueue_many(*, submission_ids: list[int]) -> None:
    """Queue the scoring of many submissions once the transaction commits.

    With workers, each is queued as ``scoring_enqueue`` does. In the embedded configuration
    (jobs run in-process) they are scored one after another in a background thread, so the
    request that asked for them returns at once; their pages show progress as each ends.
    """
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        for submission_id in submission_ids:
            scoring_enqueue(submission_id=submission_id)
        return
    ids = list(submission_ids)

    def start() -> None:
        if connections["default"].in_atomic_block:
            # Still inside an outer transaction (a test's): another connection would not see
            # its rows, so score here.
            for submission_id in ids:
                score_submission_task.apply(args=[submission_id])
            return
        threading.Thread(target=_score_in_background, args=(ids,), daemon=True,
                         name="rescore-in-process").start()

    transaction.on_commit(start)


def _score_in_background(submission_ids: list[int]) -> None:
    try:
        for submission_id in submission_ids:
            try:
                score_submission_task.apply(args=[submission_id])
            except Exception:  # one run's crash is logged; the others still get scored
                logger.exception("in-process scoring of submission %s failed", submission_id)
    finally:
        connections.close_all()
