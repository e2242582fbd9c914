"""Writes of the leaderboard app: freezing a board as the official record, and unfreezing it.

Everything else an organizer does (re-score, cancel, disqualify, reveal, hide) is a rule of the
competition and lives in `competition.services`; the leaderboard pages only call it.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from competition.models import AuditEntry, Phase
from competition.services.audit import audit_record
from leaderboard.models import BoardSnapshot
from leaderboard.selectors import snapshot_material


@transaction.atomic
def board_freeze(*, phase: Phase, user=None, note: str = "") -> BoardSnapshot:
    """Record the phase's current scores as its official board; earlier snapshots stay as
    history but stop being shown."""
    Phase.objects.select_for_update().get(pk=phase.pk)  # one freeze at a time per phase
    BoardSnapshot.objects.filter(phase=phase, active=True).update(active=False)
    snapshot = BoardSnapshot.objects.create(
        phase=phase, created_by=user, note=note[:300], created_at=timezone.now(),
        data=snapshot_material(phase=phase),
    )
    audit_record(competition=phase.task.competition, actor=user,
                 action=AuditEntry.Action.FREEZE,
                 detail=f"{phase.task.title} › {phase.title}" + (f": {note}" if note else ""))
    return snapshot


@transaction.atomic
def board_unfreeze(*, phase: Phase, user=None) -> int:
    """Show the live board again; returns how many snapshots were deactivated (kept)."""
    count = BoardSnapshot.objects.filter(phase=phase, active=True).update(active=False)
    audit_record(competition=phase.task.competition, actor=user,
                 action=AuditEntry.Action.UNFREEZE, detail=f"{phase.task.title} › {phase.title}")
    return count
