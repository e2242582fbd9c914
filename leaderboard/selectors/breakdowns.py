"""A run's analyses by entity range, entity type and mention type (CRAC 2026), as the analysis
page shows them: one table per analysis, a line per category, the F1 of its main metric per
dataset and macro-averaged. The rows are the scorer's (`scoring.analyses`), stored with the
run's scores under modes such as ``entity range 10-99``; nothing is computed here but the
grouping."""

from __future__ import annotations

from dataclasses import dataclass

from competition.models import Score
from leaderboard.ranking import Score as Cell
from leaderboard.ranking import macro_average
from scoring.analyses import (
    ANALYSES,
    ENTITY_RANGE,
    ENTITY_TYPE,
    MENTION_TYPE,
    RANGE_BUCKETS,
    range_bucket,
)
from scoring.vocabulary import ANAPHOR, CONLL, metric_label

TITLES = {
    ENTITY_RANGE: (
        "By entity range",
        "nodes from the head of a gold entity's first mention to the head of its last",
    ),
    ENTITY_TYPE: ("By entity type", "the gold entity's etype"),
    MENTION_TYPE: (
        "By mention type",
        "anaphors whose head is a pronoun, an empty node (zero), anything else (nominal), or "
        "has no part of speech in the gold file (unknown)",
    ),
}
MAIN_METRIC = {ENTITY_RANGE: CONLL, ENTITY_TYPE: CONLL, MENTION_TYPE: ANAPHOR}


SIZE_OF = {
    ENTITY_RANGE: ("ceafe", "r_den"),
    ENTITY_TYPE: ("ceafe", "r_den"),
    MENTION_TYPE: (ANAPHOR, "r_den"),
}
"""Where a category's size is counted: CEAFe's recall denominator is the number of gold
entities scored, the anaphor score's the number of gold anaphors."""


@dataclass(frozen=True)
class BreakdownLine:
    category: str
    cells: dict[str, Cell]  # by sub-corpus slug
    average: Cell | None
    size: int | None = None  # gold entities (anaphors) of the category, all datasets


@dataclass(frozen=True)
class Breakdown:
    analysis: str
    title: str
    note: str
    metric: str
    lines: list[BreakdownLine]

    @property
    def metric_label(self) -> str:
        return metric_label(self.metric)


def analysis_of(mode: str) -> str | None:
    """The analysis a mode's rows belong to (``entity range`` …), or None."""
    for analysis in ANALYSES:
        if mode.startswith(analysis + " "):
            return analysis
    return None


def _order(analysis: str, category: str) -> tuple:
    if analysis == ENTITY_RANGE:
        buckets = [range_bucket(low) for low, _ in RANGE_BUCKETS]
        return (buckets.index(category) if category in buckets else len(buckets), category)
    return (0, category)


def breakdown_sizes(*, submission, modes: set[str]) -> dict[str, int]:
    """The size of each analysis mode's category in the submission's current scoring: the
    gold entities (or anaphors) it holds, summed over the datasets (`SIZE_OF`)."""
    metrics = {metric for metric, _ in SIZE_OF.values()}
    rows = Score.objects.filter(
        submission=submission, run__is_current=True, document="", mode__in=modes, metric__in=metrics
    ).values_list("mode", "metric", "counts")
    sizes: dict[str, int] = {}
    for mode, metric, counts in rows:
        analysis = analysis_of(mode)
        wanted, field = SIZE_OF[analysis] if analysis else (None, None)
        if metric == wanted and isinstance(counts, dict) and field in counts:
            sizes[mode] = sizes.get(mode, 0) + int(counts[field])
    return sizes


def run_breakdowns(lines, sizes: dict[str, int] | None = None) -> list[Breakdown]:
    """The analyses of a run from its analysis-mode `MetricLine`s (mode, metric, cells,
    average), in `ANALYSES` order; an analysis without rows is left out. ``sizes``: each
    mode's number of gold entities or anaphors (`breakdown_sizes`)."""
    found: dict[str, list[BreakdownLine]] = {analysis: [] for analysis in ANALYSES}
    for line in lines:
        analysis = analysis_of(line.mode)
        if analysis is None or line.metric != MAIN_METRIC[analysis]:
            continue
        category = line.mode[len(analysis) + 1 :]
        # A category absent from a dataset (no long entity, no zero there) is not a zero:
        # the average is over the datasets that have it.
        average = macro_average(line.cells, list(line.cells))
        found[analysis].append(
            BreakdownLine(category, line.cells, average, (sizes or {}).get(line.mode))
        )
    out = []
    for analysis, items in found.items():
        if items:
            items.sort(key=lambda item: _order(analysis, item.category))
            title, note = TITLES[analysis]
            out.append(Breakdown(analysis, title, note, MAIN_METRIC[analysis], items))
    return out
