"""Reading a bundle's YAML into a neutral description, with a report of what it holds.

Two dialects: CodaLab's ``competition.yaml`` (v1.x: ``phases`` a mapping keyed by phase
number, ``html`` pages, one ``leaderboard``) and Codabench's ``version: 2`` (``pages``,
``tasks``, ``phases`` and ``leaderboards`` as lists). What the platform has no place for is
put in the report as not imported, never dropped silently. Nothing here writes. The
description it reads into is `competition.bundles.description`; each dialect is read by its
own module (`codalab`, `codabench`).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from competition.bundles.archive import BundleRefused
from competition.bundles.codabench import codabench_read
from competition.bundles.codalab import codalab_read
from competition.bundles.description import COMPETITION, Bundle, Reader, Report
from competition.definition.spec import Limits
from competition.untrusted import yaml_read

YAML_VALUES_LIMIT = 100_000

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
    reader = Reader(root / base if base else root, f"{bundle}: {yaml_name}", report)
    if str(data.get("version", "")).strip() in ("2", "2.0"):
        result = codabench_read(data, reader)
        known = CODABENCH_KNOWN
    else:
        result = codalab_read(data, reader)
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
