"""Writes of the leaderboard app: freezing a board as the official record, and unfreezing it.

Everything else an organizer does (re-score, cancel, disqualify, reveal, hide) is a rule of the
competition and lives in `competition.services`; the leaderboard pages only call it.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from competition.models import Phase
from leaderboard.models import BoardSnapshot
from leaderboard.selectors import snapshot_material


@transaction.atomic
def board_freeze(*, phase: Phase, user=None, note: str = "") -> BoardSnapshot:
    """Record the phase's current scores as its official board; earlier snapshots stay as
    history but stop being shown."""
    Phase.objects.select_for_update().get(pk=phase.pk)  # one freeze at a time per phase
    BoardSnapshot.objects.filter(phase=phase, active=True).update(active=False)
    return BoardSnapshot.objects.create(
        phase=phase, created_by=user, note=note[:300], created_at=timezone.now(),
        data=snapshot_material(phase=phase),
    )


def board_unfreeze(*, phase: Phase) -> int:
    """Show the live board again; returns how many snapshots were deactivated (kept)."""
    return BoardSnapshot.objects.filter(phase=phase, active=True).update(active=False)
