"""Reading a bundle's YAML into a neutral description, with a report of what it holds.

Two dialects: CodaLab's ``competition.yaml`` (v1.x: ``phases`` a mapping keyed by phase
number, ``html`` pages, one ``leaderboard``) and Codabench's ``version: 2`` (``pages``,
``tasks``, ``phases`` and ``leaderboards`` as lists). What the platform has no place for is
put in the report as not imported, never dropped silently. Nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from competition.bundles.archive import BundleRefused
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


@dataclass(slots=True)
class Report:
    """What an import did and did not bring: lines for the result page and the command."""

    imported: list[str] = field(default_factory=list)
    proposed: list[str] = field(default_factory=list)
    not_imported: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Column:
    key: str
    label: str
    leaderboard: str = ""
    sort: str = "desc"
    computed: str = ""  # the operation (Max, Avg, MRR, sum...) of a computed column


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
    daily_limit: int = 5
    total_limit: int = 100
    hidden: bool = False
    references: list[str] = field(default_factory=list)
    programs: list[str] = field(default_factory=list)
    data: list[tuple[str, str]] = field(default_factory=list)  # (role, member)


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

    def member(self, value: Any, *, where: str) -> str | None:
        """A member path the YAML names (checked to be a file of the bundle), or None for a
        dataset UUID (reported)."""
        if value is None or value == "":
            return None
        text = str(value).strip()
        if UUID.match(text):
            self.report.not_imported.append(
                f"{where}: dataset {text} is on the old server (not in the bundle)"
            )
            return None
        pure = PurePosixPath(text.replace("\\", "/"))
        if pure.is_absolute() or ".." in pure.parts or (len(text) > 1 and text[1] == ":"):
            raise self.fail(where, f"{text!r} points outside the bundle")
        path = self.root.joinpath(*pure.parts)
        if not path.is_file() or path.is_symlink():
            raise self.fail(where, f"{text!r} is not a file of the bundle")
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

    def when(self, value: Any, *, where: str) -> datetime | None:
        if value is None or value == "":
            return None
        if isinstance(value, datetime):
            moment = value
        elif isinstance(value, date):
            moment = datetime.combine(value, time())
        else:
            text = str(value).strip()
            try:
                moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                raise self.fail(
                    where, f"{text!r} is not a date (expected YYYY-MM-DD or YYYY-MM-DD HH:MM:SS)"
                ) from None
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)

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
            report.not_imported.append(f"{key}: {NOT_IMPORTED_KEYS[key]}")
        elif key not in known:
            report.not_imported.append(f"{key}: unknown key")
    result.report = report
    result.base = base
    return result


def _title(data: dict, reader: _Reader) -> str:
    title = " ".join(str(data.get("title") or "").split())
    if not title:
        raise reader.fail("title", "the bundle has no title")
    return title


# --- CodaLab ------------------------------------------------------------------------------


def _codalab(data: dict, reader: _Reader) -> Bundle:
    report = reader.report
    bundle = Bundle(
        "codalab", _title(data, reader), description=str(data.get("description") or "").strip()
    )
    if data.get("has_registration") is not None:
        bundle.team_approval = bool(data["has_registration"])
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
            report.imported.append(f"page {codename} → {kind}")
        else:
            extra.append((str(codename), text))
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
    end = reader.when(data.get("end_date"), where="end_date")
    for key, raw in items:
        where = f"phases.{key}"
        if not isinstance(raw, dict):
            raise reader.fail(where, "expected a mapping")
        if raw.get("is_parallel_parent"):
            report.not_imported.append(f"{where}: a parallel parent phase (v1.8)")
            continue
        phase = BundlePhase(
            number=_int(raw.get("phasenumber", key)),
            label=str(raw.get("label") or f"Phase {key}").strip(),
            description=str(raw.get("description") or "").strip(),
        )
        phase.start = reader.when(raw.get("start_date"), where=f"{where}.start_date")
        if phase.start is None:
            raise reader.fail(f"{where}.start_date", "a phase needs its start date")
        phase.daily_limit = reader.count(
            raw.get("max_submissions_per_day"), 5, where=f"{where}.max_submissions_per_day"
        )
        phase.total_limit = reader.count(
            raw.get("max_submissions"), 100, where=f"{where}.max_submissions"
        )
        phase.hidden = raw.get("leaderboard_management_mode") == "hide_results"
        _items(phase, raw, reader, where)
        for key_name in (
            "execution_time_limit",
            "color",
            "auto_migration",
            "is_scoring_only",
            "force_best_submission_to_leaderboard",
        ):
            if raw.get(key_name) not in (None, "", False):
                report.not_imported.append(f"{where}.{key_name}: {raw[key_name]!r}")
        if raw.get("datasets"):
            report.not_imported.append(f"{where}.datasets: links to data on other sites")
        phase_never_ends = bool(raw.get("phase_never_ends"))
        phase.end_proposed = not phase_never_ends
        bundle.phases.append(phase)
    for index, phase in enumerate(bundle.phases):
        following = bundle.phases[index + 1] if index + 1 < len(bundle.phases) else None
        if following is not None:
            phase.end = following.start
        elif phase.end_proposed and end is not None:
            phase.end = end
        else:
            phase.end_proposed = False
        if phase.end_proposed:
            source = "the next phase's start" if following else "the competition's end"
            report.proposed.append(
                f"phase {phase.label}: end {phase.end:%Y-%m-%d %H:%M} UTC, "
                f"proposed from {source} (a CodaLab phase has no end "
                "date): confirm it in the editor"
            )
    board = data.get("leaderboard") or {}
    if isinstance(board, dict) and isinstance(board.get("columns"), dict):
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
                )
            )
    return bundle


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _items(phase: BundlePhase, raw: dict, reader: _Reader, where: str) -> None:
    if member := reader.member(raw.get("reference_data"), where=f"{where}.reference_data"):
        phase.references.append(member)
    if member := reader.member(raw.get("scoring_program"), where=f"{where}.scoring_program"):
        phase.programs.append(member)
    for role in PARTICIPANT_DATA:
        if member := reader.member(raw.get(role), where=f"{where}.{role}"):
            phase.data.append((role, member))
    if raw.get("ingestion_program"):
        reader.report.not_imported.append(f"{where}.ingestion_program: code, never run")


def _extra_pages(bundle: Bundle, extra: list[tuple[str, str]]) -> None:
    for name, text in extra:
        heading = name.replace("_", " ").strip().capitalize()
        bundle.pages["overview"] = (
            bundle.pages.get("overview", "").rstrip() + f"\n\n## {heading}\n\n{text}"
        ).lstrip()
        bundle.report.imported.append(f"page {name} → a section of the overview")


# --- Codabench ----------------------------------------------------------------------------


def _codabench(data: dict, reader: _Reader) -> Bundle:
    report = reader.report
    bundle = Bundle(
        "codabench", _title(data, reader), description=str(data.get("description") or "").strip()
    )
    if data.get("registration_auto_approve") is not None:
        bundle.team_approval = not bool(data["registration_auto_approve"])
    if terms := reader.page(data.get("terms"), where="terms"):
        bundle.pages["terms"] = terms
        report.imported.append("terms")
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
            report.imported.append(f"page {title} → {kind}")
        elif text:
            extra.append((title, text))
    _extra_pages(bundle, extra)
    tasks: dict[int, dict] = {}
    for index, raw in enumerate(data.get("tasks") or []):
        where = f"tasks[{index}]"
        if not isinstance(raw, dict):
            raise reader.fail(where, "expected a mapping")
        if raw.get("key"):
            report.not_imported.append(f"{where}: task {raw['key']} is on the old server")
        tasks[_int(raw.get("index", index))] = raw
    phases = data.get("phases") or []
    if not isinstance(phases, list) or not phases:
        raise reader.fail("phases", "the bundle has no phases")
    if not all(isinstance(raw, dict) for raw in phases):
        raise reader.fail("phases", "expected a list of mappings")
    # Codabench orders phases by their index, as written.
    phases = sorted(enumerate(phases), key=lambda item: _int(item[1].get("index", item[0])))
    for index, raw in phases:
        where = f"phases[{index}]"
        phase = BundlePhase(
            number=_int(raw.get("index", index)),
            label=str(raw.get("name") or f"Phase {index + 1}").strip(),
            description=str(raw.get("description") or "").strip(),
        )
        phase.start = reader.when(raw.get("start"), where=f"{where}.start")
        if phase.start is None:
            raise reader.fail(f"{where}.start", "a phase needs its start")
        phase.end = reader.when(raw.get("end"), where=f"{where}.end")
        phase.daily_limit = reader.count(
            raw.get("max_submissions_per_day"), 5, where=f"{where}.max_submissions_per_day"
        )
        phase.total_limit = reader.count(
            raw.get("max_submissions"), 100, where=f"{where}.max_submissions"
        )
        for role in ("starting_kit", "public_data"):
            if member := reader.member(raw.get(role), where=f"{where}.{role}"):
                phase.data.append((role, member))
        for task_index in raw.get("tasks") or []:
            task = tasks.get(_int(task_index))
            if task is None:
                raise reader.fail(f"{where}.tasks", f"no task with index {task_index}")
            _items(phase, task, reader, f"tasks[{task_index}]")
        for key_name in (
            "execution_time_limit",
            "execution_time_limit_ms",
            "auto_migrate_to_this_phase",
            "hide_output",
            "hide_score_output",
            "hide_prediction_output",
            "accepts_only_result_submissions",
        ):
            if raw.get(key_name) not in (None, "", False):
                report.not_imported.append(f"{where}.{key_name}: {raw[key_name]!r}")
        bundle.phases.append(phase)
    for index, raw in enumerate(data.get("leaderboards") or []):
        if not isinstance(raw, dict):
            continue
        title = str(raw.get("title") or raw.get("key") or f"leaderboard {index}")
        if raw.get("submission_rule") not in (None, "", "Add"):
            report.not_imported.append(
                f"leaderboards[{index}].submission_rule: {raw['submission_rule']!r}"
            )
        for column in raw.get("columns") or []:
            if isinstance(column, dict):
                bundle.columns.append(
                    Column(
                        key=str(column.get("key") or ""),
                        label=str(column.get("title") or column.get("key") or ""),
                        leaderboard=title,
                        sort=str(column.get("sorting") or "desc"),
                        computed=str(column.get("computation") or ""),
                    )
                )
    return bundle
