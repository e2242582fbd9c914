"""Phases: reveal or hide a hidden leaderboard (recorded in the audit log)."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from competition.models import AuditEntry, Phase
from competition.services.audit import audit_record


@transaction.atomic
def phase_reveal(
    *, phase: Phase, at: datetime | None = None, actor: AbstractBaseUser | None = None
) -> Phase:
    """Show a hidden phase's leaderboard and scores from ``at`` (default: now) on. A reveal
    now is a reveal by hand; one at a later moment is scheduled (a clone carries it)."""
    now = timezone.now()
    phase.revealed_at = at or now
    phase.reveal_scheduled = phase.revealed_at > now
    phase.save(update_fields=["revealed_at", "reveal_scheduled"])
    audit_record(
        competition=phase.task.competition,
        actor=actor,
        action=AuditEntry.Action.REVEAL,
        detail=f"{phase.task.title} › {phase.title}, from {phase.revealed_at:%Y-%m-%d %H:%M} UTC",
    )
    return phase


@transaction.atomic
def phase_hide(*, phase: Phase, actor: AbstractBaseUser | None = None) -> Phase:
    """Hide the phase's leaderboard (again) until an organizer reveals it."""
    phase.leaderboard_visibility = Phase.Visibility.HIDDEN
    phase.revealed_at = None
    phase.reveal_scheduled = False
    phase.save(update_fields=["leaderboard_visibility", "revealed_at", "reveal_scheduled"])
    audit_record(
        competition=phase.task.competition,
        actor=actor,
        action=AuditEntry.Action.HIDE,
        detail=f"{phase.task.title} › {phase.title}",
    )
    return phase
