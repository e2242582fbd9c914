"""Writes of the leaderboard app: freezing a board as the official record, and unfreezing it;
building the public views of boards whose scores changed (`board_views_warm`), once a batch of
changes is over (`board_views_refresh_request`, `board_views_refresh`; the job:
`leaderboard.jobs`).

Everything else an organizer does (re-score, cancel, disqualify, reveal, hide) is a rule of the
competition and lives in `competition.services`; the leaderboard pages only call it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db import transaction
from django.http import QueryDict
from django.utils import timezone

from competition.models import AuditEntry, Phase
from competition.services.audit import audit_record
from leaderboard.frozen import document_etag, document_file, document_gzip, frozen_board_bytes
from leaderboard.models import BoardSnapshot
from leaderboard.selectors import snapshot_material
from leaderboard.selectors.precomputed import kept_view

logger = logging.getLogger(__name__)

WARMED_QUERIES = ("", "runs=all")
"""The views built ahead of visitors: the board of teams and the board of all runs."""


@transaction.atomic
def board_freeze(
    *, phase: Phase, user=None, note: str = "", at: datetime | None = None
) -> BoardSnapshot:
    """Record the phase's current scores as its official board; earlier snapshots stay as
    history but stop being shown. ``at``: the date of the record when it is not now (a
    board of published results is dated by its source's publication)."""
    Phase.objects.select_for_update().get(pk=phase.pk)  # one freeze at a time per phase
    BoardSnapshot.objects.filter(phase=phase, active=True).update(active=False)
    snapshot = BoardSnapshot.objects.create(
        phase=phase,
        created_by=user,
        note=note[:300],
        created_at=at or timezone.now(),
        data=snapshot_material(phase=phase),
    )
    # The public document, encoded once: every GET sends these bytes (`views_record`).
    body = frozen_board_bytes(snapshot)
    snapshot.document = body
    snapshot.document_gzip = document_gzip(body)
    snapshot.document_etag = document_etag(body)
    snapshot.save(update_fields=["document", "document_gzip", "document_etag"])
    for zipped, form in ((False, body), (True, snapshot.document_gzip)):
        document_file(snapshot, zipped=zipped, body=form)
    audit_record(
        competition=phase.task.competition,
        actor=user,
        action=AuditEntry.Action.FREEZE,
        detail=f"{phase.task.title} › {phase.title}" + (f": {note}" if note else ""),
    )
    return snapshot


@transaction.atomic
def board_unfreeze(*, phase: Phase, user=None) -> int:
    """Show the live board again; returns how many snapshots were deactivated (kept)."""
    count = BoardSnapshot.objects.filter(phase=phase, active=True).update(active=False)
    audit_record(
        competition=phase.task.competition,
        actor=user,
        action=AuditEntry.Action.UNFREEZE,
        detail=f"{phase.task.title} › {phase.title}",
    )
    return count


def board_views_warm(*, phase_ids: Iterable[int]) -> int:
    """Build the public page and API views of these phases' boards (`WARMED_QUERIES`) and
    keep them in the cache, as a visitor's request would; the number of views built. A phase
    whose board is not public builds none. Called when scores change
    (`competition.services.boards.board_entries_written`, through `leaderboard.jobs`);
    ``BOARD_VIEWS_WARM = False`` turns it off (a bulk load that warms once at its end)."""
    from leaderboard.board_views import board_api_body, board_api_payload, board_page_content

    viewer = AnonymousUser()
    built = 0
    phases = (
        Phase.objects.select_related("task__competition")
        .prefetch_related("subcorpora")
        .filter(pk__in=list(phase_ids))
    )
    for phase in phases:
        for text in WARMED_QUERIES:
            query = QueryDict(text)
            builders = {
                "page": lambda phase=phase, query=query: board_page_content(
                    phase=phase, viewer=viewer, query=query
                ),
                "api": lambda phase=phase, query=query: (
                    board_api_body(board_api_payload(phase=phase, viewer=viewer, query=query)),
                    False,
                ),
            }
            for view, build in builders.items():
                found = kept_view(
                    phase=phase, viewer=viewer, view=view, query=query, build=build, only_kept=True
                )
                if not found.kept:
                    break
                built += found.built and not found.error
    return built


REFRESH_PREFIX = "leaderboard:refresh:"
"""Cache keys of the rebuilds asked for: ``first:<phase>`` (the pending mark, the moment of
the first change since the last rebuild) and ``last:<phase>`` (the latest change)."""


def board_views_refresh_request(*, phase_ids: Iterable[int], at: float | None = None) -> list[int]:
    """Note that the scores of these phases changed and their views are to be rebuilt; the
    phases whose rebuild was not pending yet, for which the caller schedules one job
    (`leaderboard.jobs`). A change while a rebuild is pending only moves its time on, so a
    batch of runs recorded one after another asks for one rebuild per phase."""
    now = time.time() if at is None else at
    kept = settings.BOARD_VIEWS_MAX_WAIT + settings.BOARD_VIEWS_QUIET + 60  # a lost job
    pending: list[int] = []
    for pk in sorted(set(phase_ids)):
        cache.set(f"{REFRESH_PREFIX}last:{pk}", now, timeout=kept)  # before the mark is read
        if cache.add(f"{REFRESH_PREFIX}first:{pk}", now, timeout=kept):
            pending.append(pk)
    return pending


def board_views_refresh_wait(*, phase_id: int, at: float | None = None) -> float:
    """Seconds until the pending rebuild of a phase's views is due: once its scores have not
    changed for ``BOARD_VIEWS_QUIET`` seconds, and at the latest ``BOARD_VIEWS_MAX_WAIT``
    seconds after the first change. 0.0: due now (or nothing is pending)."""
    now = time.time() if at is None else at
    first = cache.get(f"{REFRESH_PREFIX}first:{phase_id}")
    last = cache.get(f"{REFRESH_PREFIX}last:{phase_id}")
    if first is None or last is None:
        return 0.0
    due = min(last + settings.BOARD_VIEWS_QUIET, first + settings.BOARD_VIEWS_MAX_WAIT)
    return max(0.0, due - now)


def board_views_refresh(*, phase_id: int) -> int:
    """Rebuild the views of a phase whose rebuild was pending; the number of views built.
    The pending mark is taken away first: a score recorded from then on asks for a rebuild
    of its own, so the last rebuild always reads the last score."""
    cache.delete(f"{REFRESH_PREFIX}first:{phase_id}")
    return board_views_warm(phase_ids=[phase_id])
