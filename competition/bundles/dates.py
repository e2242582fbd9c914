"""A bundle's dates, read as the platform that wrote them reads them.

Both platforms keep their dates in UTC. CodaLab writes ISO dates (``2013-06-30``,
``2020-01-15 18:53:00+00:00``); Codabench's own example bundles write month-day-year
(``start: 1-1-2026``, ``end: 12-31-2026``), which its unpacker reads month first, as well as
ISO dates and ``YYYY-MM-DD HH:MM:SS``. YAML itself turns an unquoted ISO date into a date and
an ISO date with a time into a datetime; the rest arrive as text.

A date without a time starts at 00:00 UTC of that day; as an end it closes at 23:59:59 UTC of
that day (a phase's end is inclusive), so ``end: 12-31-2026`` keeps the whole of
31 December open. `BundleDate.note` says so for the report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

ZONE = "UTC"
END_OF_DAY = time(23, 59, 59)
MONTH_FIRST = re.compile(
    r"^(?P<month>\d{1,2})[-/](?P<day>\d{1,2})[-/](?P<year>\d{4})"
    r"(?:[ T](?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?)?$"
)
FORMS = "YYYY-MM-DD, YYYY-MM-DD HH:MM:SS (ISO, with or without a zone) or M-D-YYYY [HH:MM[:SS]]"


class NotADate(ValueError):
    """The value is none of the forms the platforms write (`FORMS`)."""


@dataclass(frozen=True, slots=True)
class BundleDate:
    moment: datetime
    date_only: bool

    @property
    def note(self) -> str:
        """How a date without a time was read, for the report ("" when it had a time)."""
        if not self.date_only:
            return ""
        return f"{self.moment:%Y-%m-%d} has no time: read as {self.moment:%H:%M:%S} {ZONE}"


def bundle_date(value: object, *, end: bool = False) -> BundleDate:
    """``value`` (a YAML date, datetime or text) as an aware moment; a date without a time
    is the start of its day, or with ``end`` its last second. Raises `NotADate`."""
    if isinstance(value, datetime):
        return BundleDate(_aware(value), date_only=False)
    if isinstance(value, date):
        return _day(value, end=end)
    text = " ".join(str(value).split())
    if match := MONTH_FIRST.match(text):
        day = _date(int(match["year"]), int(match["month"]), int(match["day"]), text)
        if match["hour"] is None:
            return _day(day, end=end)
        try:
            at = time(int(match["hour"]), int(match["minute"]), int(match["second"] or 0))
        except ValueError:
            raise NotADate(text) from None
        return BundleDate(datetime.combine(day, at, tzinfo=UTC), date_only=False)
    if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", text):
        year, month, number = (int(part) for part in text.split("-"))
        return _day(_date(year, month, number, text), end=end)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise NotADate(text) from None
    return BundleDate(_aware(moment), date_only=False)


def _date(year: int, month: int, day: int, text: str) -> date:
    try:
        return date(year, month, day)
    except ValueError:
        raise NotADate(text) from None


def _day(day: date, *, end: bool) -> BundleDate:
    at = END_OF_DAY if end else time()
    return BundleDate(datetime.combine(day, at, tzinfo=UTC), date_only=True)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
