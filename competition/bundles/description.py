"""A bundle as read: the neutral description of a competition from elsewhere (`Bundle`, its
phases and columns), the report of what it holds (`Report`), the reader of its YAML's values
(`Reader`: members, pages, dates, counts) and the steps both dialects share
(`competition.bundles.codalab`, `competition.bundles.codabench`). Nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from competition.bundles.archive import BundleRefused
from competition.bundles.dates import FORMS, NotADate, bundle_date
from competition.bundles.html_text import html_to_markdown, looks_like_html
from competition.definition.spec import Limits

UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)
PAGE_KINDS = ("overview", "evaluation", "data", "terms")
PARTICIPANT_DATA = ("input_data", "public_data", "starting_kit")


class Line(str):
    """One line of the report: what it is about (``subject``: the competition, a phase by
    its name, a page, a column), what was done (``text``) and, apart, where the bundle says
    it (``path``: a YAML path such as ``phases[0].end``, or a member). It reads as
    ``subject: text (path)``."""

    subject: str
    text: str
    path: str

    def __new__(cls, subject: str, text: str, path: str = "") -> Line:
        line = super().__new__(cls, f"{subject}: {text}" + (f" ({path})" if path else ""))
        line.subject, line.text, line.path = subject, text, path
        return line

    def as_dict(self) -> dict[str, str]:
        return {"subject": self.subject, "text": self.text, "path": self.path}


@dataclass(slots=True)
class Report:
    """What an import did and did not bring: lines for the result page and the command."""

    imported: list[Line] = field(default_factory=list)
    proposed: list[Line] = field(default_factory=list)
    not_imported: list[Line] = field(default_factory=list)

    def add(self, section: str, subject: str, text: str, path: str = "") -> None:
        """Add a line to ``section`` ("imported", "proposed" or "not_imported")."""
        getattr(self, section).append(Line(subject, text, path))

    @property
    def sections(self) -> list[tuple[str, str, list[Line]]]:
        """(element id, title, lines) of each section, as the result pages show them."""
        return [
            ("bundle-imported", "Imported", self.imported),
            ("bundle-proposed", "Proposed: confirm in the editor", self.proposed),
            ("bundle-not-imported", "Not imported", self.not_imported),
        ]

    def as_dict(self) -> dict[str, list[dict[str, str]]]:
        return {
            name: [line.as_dict() for line in getattr(self, name)]
            for name in ("imported", "proposed", "not_imported")
        }

    @classmethod
    def from_dict(cls, data: dict) -> Report:
        return cls(
            **{
                name: [Line(**line) for line in data.get(name, ())]
                for name in ("imported", "proposed", "not_imported")
            }
        )


def phase_subject(label: str) -> str:
    """How the report names a phase: by its name ("Phase Development", "Final Phase")."""
    return label if "phase" in label.lower() else f"Phase {label}"


COMPETITION = "Competition"


@dataclass(slots=True)
class Column:
    key: str
    label: str
    leaderboard: str = ""
    sort: str = "desc"
    computed: str = ""  # the operation (Max, Avg, MRR, sum...) of a computed column
    where: str = ""  # its YAML path


@dataclass(slots=True)
class BundlePhase:
    """One phase as the bundle gives it. Data items are member paths of the bundle (or
    ``uuid:<id>`` for a dataset left on the old server)."""

    number: int
    label: str
    description: str = ""
    start: datetime | None = None
    end: datetime | None = None
    end_proposed: bool = False
    where: str = ""  # its YAML path: phases.1 (CodaLab), phases[0] (Codabench)
    # dates without a time, as read: (YAML path, how)
    date_notes: list[tuple[str, str]] = field(default_factory=list)
    daily_limit: int = 5
    total_limit: int = 100
    hidden: bool = False
    references: list[str] = field(default_factory=list)
    programs: list[str] = field(default_factory=list)
    data: list[tuple[str, str]] = field(default_factory=list)  # (role, member)
    ingestion: bool = False  # the phase runs participants' code (an ingestion program)


@dataclass(slots=True)
class Bundle:
    dialect: str  # "codalab" or "codabench"
    title: str
    description: str = ""
    team_approval: bool | None = None
    pages: dict[str, str] = field(default_factory=dict)
    phases: list[BundlePhase] = field(default_factory=list)
    columns: list[Column] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    base: str = ""  # the folder of the bundle holding its YAML ("" : the root)


class Reader:
    def __init__(self, root: Path, bundle: str, report: Report) -> None:
        self.root, self.bundle, self.report = root, bundle, report
        self.limits = Limits.current()

    def fail(self, where: str, reason: str) -> BundleRefused:
        return BundleRefused(f"{self.bundle}: {where}", reason)

    def member(self, value: Any, *, where: str, subject: str = COMPETITION) -> str | None:
        """A member path the YAML names: a file of the bundle (a zip, or a single file) or a
        folder of it (Codabench zips a folder item itself); None for a dataset UUID
        (reported)."""
        if value is None or value == "":
            return None
        text = str(value).strip()
        if UUID.match(text):
            self.report.add(
                "not_imported",
                subject,
                f"dataset {text} is on the old server, not in the bundle",
                where,
            )
            return None
        pure = PurePosixPath(text.replace("\\", "/").rstrip("/") or ".")
        if pure.is_absolute() or ".." in pure.parts or (len(text) > 1 and text[1] == ":"):
            raise self.fail(where, f"{text!r} points outside the bundle")
        path = self.root.joinpath(*pure.parts)
        if path.is_symlink() or not (path.is_file() or (path.is_dir() and pure.parts)):
            raise self.fail(where, f"{text!r} is neither a file nor a folder of the bundle")
        return pure.as_posix()

    def page(self, value: Any, *, where: str) -> str:
        member = self.member(value, where=where)
        if member is None:
            return ""
        path = self.root / member
        if path.stat().st_size > self.limits.page_bytes:
            raise self.fail(member, f"larger than the page limit of {self.limits.page_bytes} bytes")
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise self.fail(member, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        text = text.replace("\x00", "")
        return html_to_markdown(text) if looks_like_html(member, text) else text.strip() + "\n"

    def when(
        self,
        value: Any,
        *,
        where: str,
        end: bool = False,
        notes: list[tuple[str, str]] | None = None,
    ) -> datetime | None:
        """A date of the bundle (`competition.bundles.dates`); how a date without a time was
        read goes to ``notes``."""
        if value is None or value == "":
            return None
        try:
            read = bundle_date(value, end=end)
        except NotADate:
            raise self.fail(
                where, f"{str(value).strip()!r} is not a date (expected {FORMS})"
            ) from None
        if read.date_only and notes is not None:
            notes.append((where, read.note))
        return read.moment

    def count(self, value: Any, default: int, *, where: str) -> int:
        if value is None or value == "":
            return default
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise self.fail(where, f"{value!r} is not a whole number") from None
        if number < 0:
            raise self.fail(where, f"{value!r} is below 0")
        return number


# --- steps both dialects take -------------------------------------------------------------


def title_read(data: dict, reader: Reader) -> str:
    title = " ".join(str(data.get("title") or "").split())
    if not title:
        raise reader.fail("title", "the bundle has no title")
    return title


def registration_read(bundle: Bundle, key: str, value: Any, *, approve_when: bool) -> None:
    """Team approval from ``has_registration`` (CodaLab) or ``registration_auto_approve``
    (Codabench), with the line that says what was set."""
    if value is None:
        return
    bundle.team_approval = bool(value) is approve_when
    bundle.report.add(
        "imported",
        "Registration",
        "teams need the organizers' approval"
        if bundle.team_approval
        else "teams join without the organizers' approval",
        f"{key}: {value}",
    )


def phase_read(raw: dict, reader: Reader, *, number: int, label: str, where: str) -> BundlePhase:
    """A phase's number, label, description and limits (both dialects name them alike)."""
    phase = BundlePhase(
        number=number,
        label=label,
        description=str(raw.get("description") or "").strip(),
        where=where,
    )
    phase.daily_limit = reader.count(
        raw.get("max_submissions_per_day"), 5, where=f"{where}.max_submissions_per_day"
    )
    phase.total_limit = reader.count(
        raw.get("max_submissions"), 100, where=f"{where}.max_submissions"
    )
    return phase


def unused_report(phase: BundlePhase, raw: dict, report: Report, keys: tuple[str, ...]) -> None:
    for key_name in keys:
        if raw.get(key_name) not in (None, "", False):
            report.add(
                "not_imported",
                phase_subject(phase.label),
                f"{key_name} {raw[key_name]!r}",
                f"{phase.where}.{key_name}",
            )


def as_int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def items_read(phase: BundlePhase, raw: dict, reader: Reader, where: str) -> None:
    subject = phase_subject(phase.label)
    if member := reader.member(
        raw.get("reference_data"), where=f"{where}.reference_data", subject=subject
    ):
        phase.references.append(member)
    if member := reader.member(
        raw.get("scoring_program"), where=f"{where}.scoring_program", subject=subject
    ):
        phase.programs.append(member)
    for role in PARTICIPANT_DATA:
        member = reader.member(raw.get(role), where=f"{where}.{role}", subject=subject)
        if member and member not in {m for _, m in phase.data}:
            phase.data.append((role, member))
    if raw.get("ingestion_program"):
        phase.ingestion = True
        reader.report.add(
            "not_imported",
            subject,
            "the ingestion program: code, never run",
            f"{where}.ingestion_program",
        )


ACRONYMS = {"faq": "FAQ", "qa": "Q&A", "api": "API"}


def extra_pages(bundle: Bundle, extra: list[tuple[str, str, str]]) -> None:
    """Pages the platform has no place for become sections of the overview, under their
    own first heading when they open with one (never a second heading of the same name)."""
    for name, text, where in extra:
        body = text.strip()
        first, _, rest = body.partition("\n")
        heading = re.match(r"^#{1,6}\s+(.*\S)\s*$", first)
        if heading:
            section = f"## {heading.group(1)}\n\n{rest.strip()}"
        else:
            words = name.replace("_", " ").strip()
            title = ACRONYMS.get(words.lower()) or words[:1].upper() + words[1:]
            section = f"## {title}\n\n{body}"
        bundle.pages["overview"] = (
            bundle.pages.get("overview", "").rstrip() + f"\n\n{section.rstrip()}\n"
        ).lstrip()
        bundle.report.add("imported", f"Page {name}", "a section of the overview", where)
