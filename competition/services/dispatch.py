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

    def send() -> None:
        from tasks.scoring import score_submission_task

        try:
            score_submission_task.delay(submission_id)
        except Exception:  # broker down: the sweep re-queues it later
            logger.exception("could not queue submission %s; the sweep will retry",
                             submission_id)

    transaction.on_commit(send)


def notification_enqueue(*, submission_id: int) -> None:
    """Queue the e-mail telling the submitter how their run ended, once the transaction
    commits. A broker that cannot be reached loses the mail, not the run."""

    def send() -> None:
        from tasks.scoring import notify_submission_task

        try:
            notify_submission_task.delay(submission_id)
        except Exception:
            logger.exception("could not queue the e-mail of submission %s", submission_id)

    transaction.on_commit(send)
