"""The time zones a phase's dates are announced in.

Dates are stored in UTC; a phase names the zone its organizers announce them in, and pages
show its dates in that zone, with the zone. ``AoE`` (anywhere on Earth) is UTC−12: a deadline
at 23:59 AoE has passed everywhere on Earth. Other zones are IANA names (``Europe/Prague``).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

AOE = "AoE"
UTC = "UTC"
AOE_OFFSET = timedelta(hours=-12)
AOE_ZONE = timezone(AOE_OFFSET, AOE)


def zone_get(name: str) -> tzinfo:
    """The tzinfo of a zone name; raises ValueError naming what is expected."""
    if name == AOE:
        return AOE_ZONE
    if name == UTC:
        return timezone.utc  # noqa: UP017 (UTC names the zone's string here)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"time zone {name!r} is unknown (expected AoE, UTC or an IANA name "
            "such as Europe/Prague)"
        ) from None


@cache
def zone_choices() -> tuple[tuple[str, str], ...]:
    """(name, label) of every zone a form offers: AoE and UTC first, then IANA names."""
    names = sorted(
        name
        for name in available_timezones()
        if "/" in name and not name.startswith(("Etc/", "SystemV/"))
    )
    return (
        (AOE, "AoE: anywhere on Earth (UTC−12)"),
        (UTC, "UTC"),
        *((name, name) for name in names),
    )


def offset_label(moment: datetime) -> str:
    """``UTC−12``, ``UTC+2``, ``UTC+05:30``, ``UTC``: the moment's offset from UTC."""
    offset = moment.utcoffset() or timedelta(0)
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes > 0 else "−"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" if not rest else f"UTC{sign}{hours:02d}:{rest:02d}"


def in_zone(moment: datetime, name: str) -> datetime:
    return moment.astimezone(zone_get(name))


def zone_display(moment: datetime | None, name: str) -> str:
    """``2026-06-30 23:59 AoE (UTC−12)``; ``2026-06-30 23:59 UTC``; '' for None."""
    if moment is None:
        return ""
    local = in_zone(moment, name)
    stamp = local.strftime("%Y-%m-%d %H:%M")
    if name == UTC:
        return f"{stamp} UTC"
    return f"{stamp} {name} ({offset_label(local)})"
