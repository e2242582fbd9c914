"""Writes of the leaderboard app: freezing a board as the official record, and unfreezing it;
building the public views of boards whose scores changed (`board_views_warm`).

Everything else an organizer does (re-score, cancel, disqualify, reveal, hide) is a rule of the
competition and lives in `competition.services`; the leaderboard pages only call it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db import transaction
from django.http import QueryDict
from django.utils import timezone

from competition.models import AuditEntry, Phase
from competition.services.audit import audit_record
from leaderboard.models import BoardSnapshot
from leaderboard.selectors import snapshot_material
from leaderboard.selectors.precomputed import KEPT_SECONDS, public_view_key

logger = logging.getLogger(__name__)

WARMED_QUERIES = ("", "runs=all")
"""The views built ahead of visitors: the board of teams and the board of all runs."""


@transaction.atomic
def board_freeze(*, phase: Phase, user=None, note: str = "") -> BoardSnapshot:
    """Record the phase's current scores as its official board; earlier snapshots stay as
    history but stop being shown."""
    Phase.objects.select_for_update().get(pk=phase.pk)  # one freeze at a time per phase
    BoardSnapshot.objects.filter(phase=phase, active=True).update(active=False)
    snapshot = BoardSnapshot.objects.create(
        phase=phase,
        created_by=user,
        note=note[:300],
        created_at=timezone.now(),
        data=snapshot_material(phase=phase),
    )
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
    (`competition.services.boards.board_entries_written`); ``BOARD_VIEWS_WARM = False``
    turns it off (a bulk load that warms once at its end)."""
    from leaderboard.board_views import board_api_payload, board_page_content

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
            for view in ("page", "api"):
                key = public_view_key(phase=phase, viewer=viewer, view=view, query=query)
                if key is None:
                    break
                if cache.get(key) is not None:
                    continue
                content: str | dict
                if view == "page":
                    content, error = board_page_content(phase=phase, viewer=viewer, query=query)
                    if error:
                        continue
                else:
                    content = board_api_payload(phase=phase, viewer=viewer, query=query)
                cache.set(key, content, timeout=KEPT_SECONDS)
                built += 1
    return built


def board_views_on_scores(*, phase_ids: Iterable[int], **_) -> None:
    """`board_entries_written`'s receiver: warm the views; a failure is logged, never raised
    into the scoring that sent it (visitors then build the views themselves)."""
    if not getattr(settings, "BOARD_VIEWS_WARM", True):
        return
    try:
        board_views_warm(phase_ids=phase_ids)
    except Exception:  # the scores are saved; a view not built is built on request
        logger.exception("building the board views of phases %s failed", list(phase_ids))
