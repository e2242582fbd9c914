"""Queueing scoring jobs. The one place where the competition app reaches the task layer.

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
