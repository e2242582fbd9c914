"""Queueing jobs (scoring, e-mails). The one place where the competition app reaches the task
layer.

The import is deferred so that ``competition`` does not import ``tasks`` at load time (tasks sit
one floor above). A broker that cannot be reached is logged and left to the sweep, which
re-queues submissions whose message never arrived.
"""

from __future__ import annotations

import logging

from django.db import transaction

logger = logging.getLogger(__name__)


def scoring_enqueue(*, submission_id: int) -> None:
    """Queue the scoring job of a submission once the current transaction commits."""
    _delay_on_commit("score_submission_task", submission_id,
                     "could not queue submission %s; the sweep will retry")


def notification_enqueue(*, submission_id: int) -> None:
    """Queue the e-mail telling the submitter how their run ended, once the transaction
    commits. A broker that cannot be reached loses the mail, not the run."""
    _delay_on_commit("notify_submission_task", submission_id,
                     "could not queue the e-mail of submission %s")


def _delay_on_commit(task_name: str, submission_id: int, failure: str) -> None:
    def send() -> None:
        from tasks import scoring as jobs

        try:
            getattr(jobs, task_name).delay(submission_id)
        except Exception:  # broker down: logged; the caller says what recovers it
            logger.exception(failure, submission_id)

    transaction.on_commit(send)
