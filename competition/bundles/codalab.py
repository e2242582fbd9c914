"""A CodaLab bundle's ``competition.yaml`` (v1.x: ``phases`` a mapping keyed by phase
number, ``html`` pages, one ``leaderboard``) read into a `Bundle`."""

from __future__ import annotations

from datetime import datetime
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


def codalab_read(data: dict, reader: Reader) -> Bundle:
    bundle = Bundle(
        "codalab",
        title_read(data, reader),
        description=str(data.get("description") or "").strip(),
        report=reader.report,
    )
    registration_read(bundle, "has_registration", data.get("has_registration"), approve_when=True)
    _codalab_pages(bundle, data.get("html") or {}, reader)
    items = _codalab_phase_items(data, reader)
    end_notes: list[tuple[str, str]] = []
    end = reader.when(data.get("end_date"), where="end_date", end=True, notes=end_notes)
    for key, raw in items:
        if (phase := _codalab_phase(key, raw, reader)) is not None:
            bundle.phases.append(phase)
    _codalab_ends(bundle, end, end_notes)
    _codalab_columns(bundle, data.get("leaderboard") or {})
    return bundle


def _codalab_pages(bundle: Bundle, html: Any, reader: Reader) -> None:
    """``html``: the pages by their CodaLab names; those the platform has no place for
    become sections of the overview."""
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
            reader.report.add(
                "imported", f"Page {codename}", f"the {kind} page", f"html.{codename}"
            )
        else:
            extra.append((str(codename), text, f"html.{codename}"))
    extra_pages(bundle, extra)


def _codalab_phase_items(data: dict, reader: Reader) -> list[tuple[Any, Any]]:
    """The phases as (key, raw) by phase number (a list is numbered from 1)."""
    phases = data.get("phases") or {}
    if isinstance(phases, list):
        phases = {i + 1: p for i, p in enumerate(phases)}
    if not isinstance(phases, dict) or not phases:
        raise reader.fail("phases", "the bundle has no phases")
    return sorted(
        phases.items(),
        key=lambda kv: as_int(
            kv[1].get("phasenumber", kv[0]) if isinstance(kv[1], dict) else kv[0]
        ),
    )


def _codalab_phase(key: Any, raw: Any, reader: Reader) -> BundlePhase | None:
    """One phase; None for a parallel parent phase (reported)."""
    report = reader.report
    where = f"phases.{key}"
    if not isinstance(raw, dict):
        raise reader.fail(where, "expected a mapping")
    label = str(raw.get("label") or f"Phase {key}").strip()
    if raw.get("is_parallel_parent"):
        report.add("not_imported", phase_subject(label), "a parallel parent phase (v1.8)", where)
        return None
    phase = phase_read(
        raw, reader, number=as_int(raw.get("phasenumber", key)), label=label, where=where
    )
    phase.start = reader.when(
        raw.get("start_date"), where=f"{where}.start_date", notes=phase.date_notes
    )
    if phase.start is None:
        raise reader.fail(f"{where}.start_date", "a phase needs its start date")
    phase.hidden = raw.get("leaderboard_management_mode") == "hide_results"
    items_read(phase, raw, reader, where)
    unused_report(
        phase,
        raw,
        report,
        ("execution_time_limit", "color", "auto_migration", "force_best_submission_to_leaderboard"),
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
    return phase


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
        key=lambda kv: as_int(kv[1].get("rank", 1)),
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
