"""Phases: reveal or hide a hidden leaderboard."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from competition.models import Phase


def phase_reveal(*, phase: Phase, at: datetime | None = None) -> Phase:
    """Show a hidden phase's leaderboard and scores from ``at`` (default: now) on."""
    phase.revealed_at = at or timezone.now()
    phase.save(update_fields=["revealed_at"])
    return phase


def phase_hide(*, phase: Phase) -> Phase:
    """Hide the phase's leaderboard (again) until an organizer reveals it."""
    phase.leaderboard_visibility = Phase.Visibility.HIDDEN
    phase.revealed_at = None
    phase.save(update_fields=["leaderboard_visibility", "revealed_at"])
    return phase
