"""Rebuilding the public board views when scores change, once per batch.

Each run a worker records sends `competition.services.boards.board_entries_written`; a
batch (a phase re-scored, a gold key replaced, many parts of runs ending together) sends it
once per run. `board_views_on_scores` notes the change in the cache
(`leaderboard.services.board_views_refresh_request`) and, for the first change of a batch,
schedules `board_views_refresh_task`, which waits until the phase's scores have not changed
for ``BOARD_VIEWS_QUIET`` seconds (at most ``BOARD_VIEWS_MAX_WAIT`` after the first) and
then builds each view once. A visitor never reads a stale board meanwhile: a kept view's key
names the scores it was built from (`leaderboard.selectors.precomputed`), so until the
rebuild a request builds the board itself. With jobs run in-process (the embedded mode),
the views are built at once, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from celery import shared_task
from django.conf import settings

from leaderboard import services

# the results package's job, written beside the service it runs (registered with the others)
from leaderboard.package_jobs import results_package_task as results_package_task

logger = logging.getLogger(__name__)


def board_views_on_scores(*, phase_ids: Iterable[int], **_) -> None:
    """`board_entries_written`'s receiver: ask for the phases' views to be rebuilt; a failure
    is logged, never raised into the scoring that sent it (visitors then build the views
    themselves)."""
    if not getattr(settings, "BOARD_VIEWS_WARM", True):
        return
    phase_ids = list(phase_ids)
    try:
        if settings.BOARD_VIEWS_QUIET <= 0:
            services.board_views_warm(phase_ids=phase_ids)
            return
        for phase_id in services.board_views_refresh_request(phase_ids=phase_ids):
            _schedule(phase_id, countdown=settings.BOARD_VIEWS_QUIET)
    except Exception:  # the scores are saved; a view not built is built on request
        logger.exception("building the board views of phases %s failed", phase_ids)


def _schedule(phase_id: int, *, countdown: float) -> None:
    try:
        board_views_refresh_task.apply_async((phase_id,), countdown=countdown)
    except Exception:  # broker away: build now rather than never
        logger.warning(
            "could not schedule the board views of phase %s; building them now", phase_id
        )
        services.board_views_refresh(phase_id=phase_id)


@shared_task(bind=True, ignore_result=True)
def board_views_refresh_task(self, phase_id: int) -> int:
    """Build a phase's views once its scores have stopped changing; until then, wait again.
    Run in-process (no broker), it builds them at once. The number of views built."""
    if not self.request.is_eager:
        wait = services.board_views_refresh_wait(phase_id=phase_id)
        if wait > 0:
            _schedule(phase_id, countdown=wait)
            return 0
    return services.board_views_refresh(phase_id=phase_id)
