"""Reading a bundle's YAML into a neutral description, with a report of what it holds.

Two dialects: CodaLab's ``competition.yaml`` (v1.x: ``phases`` a mapping keyed by phase
number, ``html`` pages, one ``leaderboard``) and Codabench's ``version: 2`` (``pages``,
``tasks``, ``phases`` and ``leaderboards`` as lists). What the platform has no place for is
put in the report as not imported, never dropped silently. Nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from competition.bundles.archive import BundleRefused
from competition.bundles.dates import FORMS, NotADate, bundle_date
from competition.bundles.html_text import html_to_markdown, looks_like_html
from competition.definition.spec import Limits
from competition.untrusted import yaml_read

UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)
YAML_VALUES_LIMIT = 100_000
PAGE_KINDS = ("overview", "evaluation", "data", "terms")
PARTICIPANT_DATA = ("input_data", "public_data", "starting_kit")

CODALAB_KNOWN = {
    "title",
    "description",
    "image",
    "start_date",
    "end_date",
    "has_registration",
    "html",
    "phases",
    "leaderboard",
    "admin_names",
    "anonymous_leaderboard",
    "enable_detailed_results",
    "competition_docker_image",
    "force_submission_to_leaderboard",
    "disallow_leaderboard_modifying",
    "enable_per_submission_metadata",
    "allow_public_submissions",
    "allow_teams",
    "enable_forum",
    "url_redirect",
    "show_datasets_from_yaml",
}
CODABENCH_KNOWN = {
    "version",
    "title",
    "image",
    "terms",
    "description",
    "registration_auto_approve",
    "docker_image",
    "queue",
    "enable_detailed_results",
    "show_detailed_results_in_submission_panel",
    "show_detailed_results_in_leaderboard",
    "make_programs_available",
    "make_input_data_available",
    "auto_run_submissions",
    "can_participants_make_submissions_public",
    "forum_enabled",
    "contact_email",
    "reward",
    "pages",
    "tasks",
    "solutions",
    "phases",
    "fact_sheet",
    "leaderboards",
    "end_date",
    "start_date",
}
NOT_IMPORTED_KEYS = {
    "image": "the logo",
    "competition_docker_image": "the Docker image",
    "docker_image": "the Docker image",
    "queue": "the compute queue",
    "solutions": "example solutions",
    "fact_sheet": "the fact sheet",
    "admin_names": "the administrators (the importing owner is the organizer)",
    "reward": "the reward",
    "contact_email": "the contact address",
}


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


def _count(data: Any, *, name: str) -> None:
    """Refuse a YAML whose values (aliases counted each time) exceed the limit."""
    count, stack = 0, [data]
    while stack:
        item = stack.pop()
        count += 1
        if count > YAML_VALUES_LIMIT:
            raise BundleRefused(
                name,
                f"refused: the YAML holds more than {YAML_VALUES_LIMIT} values (aliases counted)",
            )
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def find_yaml(names: list[str], *, bundle: str) -> str:
    """The bundle's YAML: ``competition.yaml`` at the root, else the one YAML at the root;
    a bundle zipped with its folder (one top folder holding them) is read inside it."""
    for prefix in ("", *sorted({n.split("/", 1)[0] + "/" for n in names if "/" in n})):
        level = [
            n
            for n in names
            if n.startswith(prefix)
            and "/" not in n[len(prefix) :]
            and n.lower().endswith((".yaml", ".yml"))
        ]
        for wanted in ("competition.yaml", "competition.yml"):
            if prefix + wanted in level:
                return prefix + wanted
        if len(level) == 1 and (not prefix or len({n.split("/", 1)[0] for n in names}) == 1):
            return level[0]
        if not prefix and level:
            break
    roots = [n for n in names if "/" not in n and n.lower().endswith((".yaml", ".yml"))]
    raise BundleRefused(
        bundle,
        "expected competition.yaml (or one .yaml file) at the root "
        f"of the bundle, found {', '.join(roots) or 'none'}",
    )


class _Reader:
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


def bundle_read(root: Path, names: list[str], *, bundle: str) -> Bundle:
    """The bundle unpacked at ``root`` (``names``: its members), read; raises
    `BundleRefused` naming the member and key at fault."""
    yaml_name = find_yaml(names, bundle=bundle)
    path = root / yaml_name
    limits = Limits.current()
    if path.stat().st_size > limits.definition_bytes:
        raise BundleRefused(
            f"{bundle}: {yaml_name}", f"larger than the limit of {limits.definition_bytes} bytes"
        )
    try:
        data = yaml_read(
            path.read_text(encoding="utf-8-sig"),
            name=f"{bundle}: {yaml_name}",
            error=BundleRefused,
        )
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise BundleRefused(f"{bundle}: {yaml_name}", f"does not read as YAML: {exc}") from None
    if not isinstance(data, dict):
        raise BundleRefused(f"{bundle}: {yaml_name}", "expected a mapping at the top")
    _count(data, name=f"{bundle}: {yaml_name}")
    report = Report()
    base = str(PurePosixPath(yaml_name).parent).strip(".")
    reader = _Reader(root / base if base else root, f"{bundle}: {yaml_name}", report)
    if str(data.get("version", "")).strip() in ("2", "2.0"):
        result = _codabench(data, reader)
        known = CODABENCH_KNOWN
    else:
        result = _codalab(data, reader)
        known = CODALAB_KNOWN
    for key in data:
        if key in NOT_IMPORTED_KEYS and data[key] not in (None, "", [], {}):
            report.add("not_imported", COMPETITION, NOT_IMPORTED_KEYS[key], str(key))
        elif key not in known:
            report.add("not_imported", COMPETITION, "a key neither platform defines", str(key))
    _code_submissions(result)
    result.report = report
    result.base = base
    return result


def _code_submissions(bundle: Bundle) -> None:
    """One line when the competition ran participants' code: here runs are result files."""
    running = [phase.label for phase in bundle.phases if phase.ingestion]
    if running:
        bundle.report.add(
            "not_imported",
            COMPETITION,
            "it takes code submissions (an ingestion program runs participants' code in "
            f"{', '.join(running)}); here participants submit result files, scored by the "
            "platform's own scorer",
        )


def _title(data: dict, reader: _Reader) -> str:
    title = " ".join(str(data.get("title") or "").split())
    if not title:
        raise reader.fail("title", "the bundle has no title")
    return title


def _registration(bundle: Bundle, key: str, value: Any, *, approve_when: bool) -> None:
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


# --- CodaLab ------------------------------------------------------------------------------


def _codalab(data: dict, reader: _Reader) -> Bundle:
    report = reader.report
    bundle = Bundle(
        "codalab",
        _title(data, reader),
        description=str(data.get("description") or "").strip(),
        report=reader.report,
    )
    _registration(bundle, "has_registration", data.get("has_registration"), approve_when=True)
    html = data.get("html") or {}
    if not isinstance(html, dict):
        raise reader.fail("html", "expected a mapping of page name to file")
    extra = []
    for codename, file in html.items():
        text = reader.page(file, where=f"html.{codename}")
        if not text:
            continue
        kind = {"get_data": "data", "get_starting_kit": "data"}.get(str(codename), str(codename))
        if kind in PAGE_KINDS and kind not in bundle.pages:
            bundle.pages[kind] = text
            report.add("imported", f"Page {codename}", f"the {kind} page", f"html.{codename}")
        else:
            extra.append((str(codename), text, f"html.{codename}"))
    _extra_pages(bundle, extra)
    phases = data.get("phases") or {}
    if isinstance(phases, list):
        phases = {i + 1: p for i, p in enumerate(phases)}
    if not isinstance(phases, dict) or not phases:
        raise reader.fail("phases", "the bundle has no phases")
    items = sorted(
        phases.items(),
        key=lambda kv: _int(kv[1].get("phasenumber", kv[0]) if isinstance(kv[1], dict) else kv[0]),
    )
    end_notes: list[tuple[str, str]] = []
    end = reader.when(data.get("end_date"), where="end_date", end=True, notes=end_notes)
    for key, raw in items:
        where = f"phases.{key}"
        if not isinstance(raw, dict):
            raise reader.fail(where, "expected a mapping")
        label = str(raw.get("label") or f"Phase {key}").strip()
        if raw.get("is_parallel_parent"):
            report.add(
                "not_imported", phase_subject(label), "a parallel parent phase (v1.8)", where
            )
            continue
        phase = _phase(
            raw, reader, number=_int(raw.get("phasenumber", key)), label=label, where=where
        )
        phase.start = reader.when(
            raw.get("start_date"), where=f"{where}.start_date", notes=phase.date_notes
        )
        if phase.start is None:
            raise reader.fail(f"{where}.start_date", "a phase needs its start date")
        phase.hidden = raw.get("leaderboard_management_mode") == "hide_results"
        _items(phase, raw, reader, where)
        _unused(
            phase,
            raw,
            report,
            (
                "execution_time_limit",
                "color",
                "auto_migration",
                "force_best_submission_to_leaderboard",
            ),
        )
        if raw.get("is_scoring_only"):
            report.add(
                "imported",
                phase_subject(label),
                "participants submit results, as here",
                f"{where}.is_scoring_only",
            )
        if raw.get("datasets"):
            report.add(
                "not_imported",
                phase_subject(label),
                "links to data on other sites",
                f"{where}.datasets",
            )
        phase.end_proposed = not raw.get("phase_never_ends")
        bundle.phases.append(phase)
    _codalab_ends(bundle, end, end_notes)
    _codalab_columns(bundle, data.get("leaderboard") or {})
    return bundle


def _phase(raw: dict, reader: _Reader, *, number: int, label: str, where: str) -> BundlePhase:
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


def _unused(phase: BundlePhase, raw: dict, report: Report, keys: tuple[str, ...]) -> None:
    for key_name in keys:
        if raw.get(key_name) not in (None, "", False):
            report.add(
                "not_imported",
                phase_subject(phase.label),
                f"{key_name} {raw[key_name]!r}",
                f"{phase.where}.{key_name}",
            )


def _codalab_ends(bundle: Bundle, end: datetime | None, end_notes: list[tuple[str, str]]) -> None:
    """A CodaLab phase has no end: it ends when the next one starts, the last one at the
    competition's ``end_date``; each is proposed."""
    for index, phase in enumerate(bundle.phases):
        following = bundle.phases[index + 1] if index + 1 < len(bundle.phases) else None
        if following is not None:
            phase.end = following.start
        elif phase.end_proposed and end is not None:
            phase.end = end
            phase.date_notes.extend(end_notes)
        else:
            phase.end_proposed = False
        if phase.end_proposed:
            assert phase.end is not None
            source = "the next phase's start" if following else "the competition's end_date"
            bundle.report.add(
                "proposed",
                phase_subject(phase.label),
                f"end {phase.end:%Y-%m-%d %H:%M:%S} UTC, proposed from {source} (a CodaLab "
                "phase has no end date): confirm it in the editor",
                phase.where,
            )


def _codalab_columns(bundle: Bundle, board: Any) -> None:
    if not (isinstance(board, dict) and isinstance(board.get("columns"), dict)):
        return
    # CodaLab orders columns by their rank (1 when not given); the first ranks.
    ranked = sorted(
        ((key, raw) for key, raw in board["columns"].items() if isinstance(raw, dict)),
        key=lambda kv: _int(kv[1].get("rank", 1)),
    )
    for key, raw in ranked:
        leaderboard = raw.get("leaderboard")
        label = leaderboard.get("label", "") if isinstance(leaderboard, dict) else leaderboard
        computed = raw.get("computed")
        bundle.columns.append(
            Column(
                key=str(key),
                label=str(raw.get("label") or key),
                leaderboard=str(label or ""),
                sort=str(raw.get("sort") or "desc"),
                computed=str(computed.get("operation", "computed"))
                if isinstance(computed, dict)
                else "",
                where=f"leaderboard.columns.{key}",
            )
        )


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _items(phase: BundlePhase, raw: dict, reader: _Reader, where: str) -> None:
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


def _extra_pages(bundle: Bundle, extra: list[tuple[str, str, str]]) -> None:
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


# --- Codabench ----------------------------------------------------------------------------


def _codabench(data: dict, reader: _Reader) -> Bundle:
    report = reader.report
    bundle = Bundle(
        "codabench",
        _title(data, reader),
        description=str(data.get("description") or "").strip(),
        report=reader.report,
    )
    _registration(
        bundle,
        "registration_auto_approve",
        data.get("registration_auto_approve"),
        approve_when=False,
    )
    if terms := reader.page(data.get("terms"), where="terms"):
        bundle.pages["terms"] = terms
        report.add("imported", "Page terms", "the terms page", "terms")
    _codabench_pages(bundle, data, reader)
    tasks = _codabench_tasks(data, reader)
    phases = data.get("phases") or []
    if not isinstance(phases, list) or not phases:
        raise reader.fail("phases", "the bundle has no phases")
    if not all(isinstance(raw, dict) for raw in phases):
        raise reader.fail("phases", "expected a list of mappings")
    # Codabench orders phases by their index, as written.
    for index, raw in sorted(
        enumerate(phases), key=lambda item: _int(item[1].get("index", item[0]))
    ):
        where = f"phases[{index}]"
        label = str(raw.get("name") or f"Phase {index + 1}").strip()
        phase = _phase(raw, reader, number=_int(raw.get("index", index)), label=label, where=where)
        phase.start = reader.when(raw.get("start"), where=f"{where}.start", notes=phase.date_notes)
        if phase.start is None:
            raise reader.fail(f"{where}.start", "a phase needs its start")
        phase.end = reader.when(
            raw.get("end"), where=f"{where}.end", end=True, notes=phase.date_notes
        )
        for role in ("starting_kit", "public_data"):
            member = reader.member(
                raw.get(role), where=f"{where}.{role}", subject=phase_subject(label)
            )
            if member and member not in {m for _, m in phase.data}:
                phase.data.append((role, member))
        for task_index in raw.get("tasks") or []:
            task = tasks.get(_int(task_index))
            if task is None:
                raise reader.fail(f"{where}.tasks", f"no task with index {task_index}")
            _items(phase, task, reader, f"tasks[{task_index}]")
        _unused(
            phase,
            raw,
            report,
            (
                "execution_time_limit",
                "execution_time_limit_ms",
                "auto_migrate_to_this_phase",
                "hide_output",
                "hide_score_output",
                "hide_prediction_output",
                "accepts_only_result_submissions",
            ),
        )
        bundle.phases.append(phase)
    _codabench_columns(bundle, data.get("leaderboards") or [])
    return bundle


def _codabench_pages(bundle: Bundle, data: dict, reader: _Reader) -> None:
    extra = []
    for index, raw in enumerate(data.get("pages") or []):
        if not isinstance(raw, dict):
            raise reader.fail(f"pages[{index}]", "expected {title, file}")
        title = str(raw.get("title") or f"Page {index + 1}").strip()
        text = reader.page(raw.get("file"), where=f"pages[{index}].file")
        lowered = title.lower()
        kind = next((k for k in PAGE_KINDS if k in lowered), "")
        if kind and kind not in bundle.pages:
            bundle.pages[kind] = text
            report_where = f"pages[{index}]"
            bundle.report.add("imported", f"Page {title}", f"the {kind} page", report_where)
        elif text:
            extra.append((title, text, f"pages[{index}]"))
    _extra_pages(bundle, extra)


def _codabench_tasks(data: dict, reader: _Reader) -> dict[int, dict]:
    tasks: dict[int, dict] = {}
    for index, raw in enumerate(data.get("tasks") or []):
        where = f"tasks[{index}]"
        if not isinstance(raw, dict):
            raise reader.fail(where, "expected a mapping")
        if raw.get("key"):
            reader.report.add(
                "not_imported",
                f"Task {raw.get('name') or index}",
                f"task {raw['key']} is on the old server",
                where,
            )
        tasks[_int(raw.get("index", index))] = raw
    return tasks


def _codabench_columns(bundle: Bundle, boards: Any) -> None:
    for index, raw in enumerate(boards if isinstance(boards, list) else []):
        if not isinstance(raw, dict):
            continue
        title = str(raw.get("title") or raw.get("key") or f"leaderboard {index}")
        if raw.get("submission_rule") not in (None, "", "Add"):
            bundle.report.add(
                "not_imported",
                f"Leaderboard {title}",
                f"submission rule {raw['submission_rule']!r}: every scored run is on the board",
                f"leaderboards[{index}].submission_rule",
            )
        for position, column in enumerate(raw.get("columns") or []):
            if isinstance(column, dict):
                bundle.columns.append(
                    Column(
                        key=str(column.get("key") or ""),
                        label=str(column.get("title") or column.get("key") or ""),
                        leaderboard=title,
                        sort=str(column.get("sorting") or "desc"),
                        computed=str(column.get("computation") or ""),
                        where=f"leaderboards[{index}].columns[{position}]",
                    )
                )
