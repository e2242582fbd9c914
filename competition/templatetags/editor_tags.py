"""Template filters of the organizers' editor and the phase page."""

from __future__ import annotations

from django import template

from competition.timezones import zone_display

register = template.Library()


@register.filter
def in_phase_zone(moment, phase) -> str:
    """A moment in the zone the phase announces its dates in, with the zone:
    ``{{ phase.end|in_phase_zone:phase }}`` → ``2026-06-30 23:59 AoE (UTC−12)``."""
    return zone_display(moment, phase.time_zone)


@register.filter
def filesize(size) -> str:
    """Bytes as people read them: 1.2 MB, 340 kB, 12 bytes."""
    size = int(size or 0)
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"
