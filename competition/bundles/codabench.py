"""A Codabench bundle's ``competition.yaml`` (``version: 2``: ``pages``, ``tasks``, ``phases``
and ``leaderboards`` as lists) read into a `Bundle`."""

from __future__ import annotations

from typing import Any

from competition.bundles.description import (
    PAGE_KINDS,
    Bundle,
    BundlePhase,
    Column,
    Reader,
    as_int,
    extra_pages,
    items_read,
    phase_read,
    phase_subject,
    registration_read,
    title_read,
    unused_report,
)


def codabench_read(data: dict, reader: Reader) -> Bundle:
    bundle = Bundle(
        "codabench",
        title_read(data, reader),
        description=str(data.get("description") or "").strip(),
        report=reader.report,
    )
    registration_read(
        bundle,
        "registration_auto_approve",
        data.get("registration_auto_approve"),
        approve_when=False,
    )
    if terms := reader.page(data.get("terms"), where="terms"):
        bundle.pages["terms"] = terms
        reader.report.add("imported", "Page terms", "the terms page", "terms")
    _codabench_pages(bundle, data, reader)
    tasks = _codabench_tasks(data, reader)
    phases = data.get("phases") or []
    if not isinstance(phases, list) or not phases:
        raise reader.fail("phases", "the bundle has no phases")
    if not all(isinstance(raw, dict) for raw in phases):
        raise reader.fail("phases", "expected a list of mappings")
    # Codabench orders phases by their index, as written.
    for index, raw in sorted(
        enumerate(phases), key=lambda item: as_int(item[1].get("index", item[0]))
    ):
        bundle.phases.append(_codabench_phase(index, raw, tasks, reader))
    _codabench_columns(bundle, data.get("leaderboards") or [])
    return bundle


def _codabench_phase(index: int, raw: dict, tasks: dict[int, dict], reader: Reader) -> BundlePhase:
    """One phase: its dates, its data items and those of the tasks it names."""
    where = f"phases[{index}]"
    label = str(raw.get("name") or f"Phase {index + 1}").strip()
    phase = phase_read(
        raw, reader, number=as_int(raw.get("index", index)), label=label, where=where
    )
    phase.start = reader.when(raw.get("start"), where=f"{where}.start", notes=phase.date_notes)
    if phase.start is None:
        raise reader.fail(f"{where}.start", "a phase needs its start")
    phase.end = reader.when(raw.get("end"), where=f"{where}.end", end=True, notes=phase.date_notes)
    for role in ("starting_kit", "public_data"):
        member = reader.member(raw.get(role), where=f"{where}.{role}", subject=phase_subject(label))
        if member and member not in {m for _, m in phase.data}:
            phase.data.append((role, member))
    for task_index in raw.get("tasks") or []:
        task = tasks.get(as_int(task_index))
        if task is None:
            raise reader.fail(f"{where}.tasks", f"no task with index {task_index}")
        items_read(phase, task, reader, f"tasks[{task_index}]")
    unused_report(
        phase,
        raw,
        reader.report,
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
    return phase


def _codabench_pages(bundle: Bundle, data: dict, reader: Reader) -> None:
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
    extra_pages(bundle, extra)


def _codabench_tasks(data: dict, reader: Reader) -> dict[int, dict]:
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
        tasks[as_int(raw.get("index", index))] = raw
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
