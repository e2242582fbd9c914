"""The published official results of a phase that print only macro-averages
(`PublishedAverage`), as one table per track for the board page: a row per system in the
printed order, a column per variant (mode) in the procedure's order, with their sources, and
each system's official rank (by the first variant, the primary one; baselines unranked, as
on every board). Where a board is made of published results only, this table is its
official ranking, shown first (`leaderboard.board_views`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from competition.models import Phase, PublishedAverage
from leaderboard.selectors.record import FrozenRecord
from scoring.procedures import TASK_MODE, procedure
from scoring.vocabulary import metric_label


@dataclass
class PublishedRow:
    team: str
    system: str
    baseline: bool
    values: list[float | None] = field(default_factory=list)  # percent, per column
    rank: int | None = None


@dataclass
class PublishedTable:
    track: str  # the track's name ("" in a task without tracks)
    metric: str
    columns: list[str]  # the variants' labels
    rows: list[PublishedRow]
    sources: list[str]


def _ranked(rows: list[PublishedRow]) -> list[PublishedRow]:
    """The rows with their ranks by the first column (equal printed values share a rank),
    baselines and rows without that value unranked; the printed order is kept."""
    ranked = sorted(
        (r for r in rows if not r.baseline and r.values and r.values[0] is not None),
        key=lambda r: -(r.values[0] or 0.0),
    )
    previous: float | None = None
    rank = 0
    for position, row in enumerate(ranked, start=1):
        if row.values[0] != previous:
            rank, previous = position, row.values[0]
        row.rank = rank
    return rows


def published_averages_table(
    *, phase: Phase, record: FrozenRecord | None = None
) -> list[PublishedTable]:
    """The tables of the phase's published averages; with ``record`` (a frozen board's),
    those stored at the freeze, under the procedure of then."""
    # One phase's rows, grouped by track below: ordered by their printed order only (the
    # model's ordering through phase and track would join and sort by those models' own).
    averages: list[Any] = (
        record.published_averages()
        if record is not None
        else list(
            PublishedAverage.objects.filter(phase_id=phase.pk)
            .select_related("track")
            .order_by("order", "id")
        )
    )
    if not averages:
        return []
    name = record.procedure if record is not None else phase.task.procedure
    proc = procedure(name) if name else None
    order = list(proc.modes) if proc else [TASK_MODE]
    tables = []
    tracks: dict = {}
    for a in averages:
        tracks.setdefault(
            (a.track.order if a.track else 0, a.track.name if a.track else "", a.metric), []
        ).append(a)
    for (_, track, metric), items in sorted(tracks.items(), key=lambda kv: kv[0][:2]):
        modes = sorted(
            {a.mode for a in items}, key=lambda m: order.index(m) if m in order else len(order)
        )
        rows: dict[tuple[str, str], PublishedRow] = {}
        for a in items:  # the printed order of the first table a system appears in
            row = rows.setdefault(
                (a.team, a.system),
                PublishedRow(
                    team=a.team, system=a.system, baseline=a.is_baseline, values=[None] * len(modes)
                ),
            )
            row.values[modes.index(a.mode)] = round(100 * a.average, 2)
        tables.append(
            PublishedTable(
                track=track,
                metric=metric_label(metric),
                columns=[proc.label(m) if proc else m for m in modes],
                rows=_ranked(list(rows.values())),
                sources=sorted({a.source for a in items}),
            )
        )
    return tables
