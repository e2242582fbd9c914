"""Pure leaderboard ranking: which run represents a team, macro-averages, ranks, order.

Nothing here touches Django. The selector (`leaderboard.selectors`) turns score rows into
`Entry` values, and this module decides everything a board shows:

- the macro-average of every score field over the *available* sub-corpora. An entry that misses
  one of them has no average (``missing="unranked"``, CODI-CRAC), or, in phases that let teams
  skip datasets (``missing="zero"``, CRAC), a missing dataset counts as 0 in the average and
  such an entry ranks below every complete one;
- which entry represents a team (`counts`: best by the primary macro-average F1, latest, or the
  team's chosen run);
- ranks: competition ranking ("1, 2, 2, 4") where values equal within ``TIE_EPSILON`` share a
  rank; baselines, disqualified, failed and incomplete entries get no rank and are never placed
  above a ranked entry that has a value;
- the display order for any sortable column, ascending or descending.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal, NamedTuple

TIE_EPSILON = 1e-9
"""Scores closer than this are equal: they share a rank (CodaLab v1 used 1e-12)."""

FIELDS = ("recall", "precision", "f1")
AVERAGE = "avg"
"""Column group of the macro-average over the available sub-corpora."""

CountsRule = Literal["best", "latest", "chosen"]
MissingRule = Literal["unranked", "zero"]


class Score(NamedTuple):
    """Recall, precision and F1 of one metric on one sub-corpus, as fractions in [0, 1]
    (recall and precision None for a published result that printed F1 alone). A named tuple:
    a board of a thousand runs makes thousands of them per request."""

    recall: float | None
    precision: float | None
    f1: float

    def get(self, name: str) -> float:
        return getattr(self, name)


@dataclass(slots=True)
class Entry:
    """One run as the board sees it: its identity and its scores per sub-corpus slug.

    Treated as a value: nothing assigns to an entry once built (`dataclasses.replace` makes
    a changed copy). It is not declared frozen because a board builds one per run of the
    phase, a thousand per request, and a frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field) costs four times a plain one's."""

    submission_id: int
    team: str
    run_name: str
    submitted_at: datetime
    status: str = "scored"
    is_baseline: bool = False
    is_chosen: bool = False
    disqualified: bool = False
    team_id: int | None = None
    is_reference: bool = False
    """A published result of an edition that ran elsewhere (``source`` says where)."""
    source: str = ""
    description: str = ""
    link: str = ""
    """The run's paper or code, as its team gave it (an http(s) address)."""
    scores: Mapping[str, Score] = field(default_factory=dict)
    """Scores of the displayed metric, by sub-corpus slug."""
    primary: Mapping[str, Score] = field(default_factory=dict)
    """Scores of the task's primary metric, by sub-corpus slug (used to pick the best run)."""

    @property
    def is_scored(self) -> bool:
        return self.status == "scored"


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a board: an entry, its averages and its rank (None: not ranked)."""

    entry: Entry
    average: Score | None
    rank: int | None = None
    group: str | None = None
    """Marker of a statistically tied group (set by the significance step), e.g. "a"."""
    missing: tuple[str, ...] = ()
    """Available sub-corpora the entry has no score for (counted as 0 under the zero rule)."""

    @property
    def complete(self) -> bool:
        return not self.missing

    def value(self, column: str) -> float | None:
        """Value of a sortable column: ``avg.f1``, ``<slug>.recall``, ... (None if absent)."""
        group, _, name = column.partition(".")
        if name not in FIELDS:
            return None
        if group == AVERAGE:
            return None if self.average is None else self.average.get(name)
        score = self.entry.scores.get(group)
        return None if score is None else score.get(name)

    @property
    def rankable(self) -> bool:
        entry = self.entry
        return entry.is_scored and not entry.is_baseline and not entry.disqualified


def macro_average(
    scores: Mapping[str, Score], available: Sequence[str], missing: MissingRule = "unranked"
) -> Score | None:
    """Unweighted mean of each field over the available sub-corpora. A sub-corpus without a
    score makes the average None, or counts as 0 with ``missing="zero"`` (None only when
    there is no score at all).

    >>> macro_average({"a": Score(1.0, 0.5, 0.6), "b": Score(0.0, 0.5, 0.2)}, ["a", "b"])
    Score(recall=0.5, precision=0.5, f1=0.4)
    >>> macro_average({"a": Score(1.0, 0.5, 0.6)}, ["a", "b"]) is None
    True
    >>> macro_average({"a": Score(1.0, 0.5, 0.6)}, ["a", "b"], missing="zero")
    Score(recall=0.5, precision=0.25, f1=0.3)
    """
    present = _averaged(scores, available, missing)
    if present is None:
        return None
    n = len(available)

    def mean(values: list) -> float | None:
        if any(value is None for value in values):  # a published F1 without R and P
            return None
        return math.fsum(values) / n

    return Score(
        mean([s.recall for s in present]),
        mean([s.precision for s in present]),
        math.fsum(s.f1 for s in present) / n,
    )


def _averaged(
    scores: Mapping[str, Score], available: Sequence[str], missing: MissingRule
) -> list[Score] | None:
    """The scores a macro-average is taken over (the available sub-corpora's present ones),
    or None where there is no average: nothing available or present, or a sub-corpus missing
    without the zero rule."""
    present = [scores[slug] for slug in available if slug in scores]
    if not available or not present:
        return None
    if len(present) < len(available) and missing != "zero":
        return None
    return present


def missing_subcorpora(entry: Entry, available: Sequence[str]) -> tuple[str, ...]:
    """The available sub-corpora a scored entry has no score for."""
    return tuple(slug for slug in available if slug not in entry.scores)


def _primary_key(
    entry: Entry, available: Sequence[str], missing: MissingRule = "unranked"
) -> tuple[int, float]:
    """Which of a team's runs is best: complete runs before incomplete ones (which have an
    average only under the zero rule), then the higher primary average F1."""
    present = _averaged(entry.primary, available, missing) if entry.is_scored else None
    if present is None:
        return (0, 0.0)
    # the F1 of `macro_average`, without its recall and precision (1,000 runs a board)
    return (
        2 if len(present) == len(available) else 1,
        math.fsum([score.f1 for score in present]) / len(available),
    )


def select_team_entries(
    entries: Iterable[Entry],
    *,
    counts: CountsRule,
    available: Sequence[str],
    missing: MissingRule = "unranked",
) -> list[Entry]:
    """The entry that represents each team, per the phase's counts rule; baselines all stay.

    - ``best``: the highest primary macro-average F1; equal (within ``TIE_EPSILON``): the
      earlier run. A run with no average (missing sub-corpus, not scored) loses to any with one.
    - ``latest``: the most recent scored run.
    - ``chosen``: the run the team chose; if it chose none, its most recent scored run.

    Teams with no scored run are left out: they have nothing to show. Disqualified runs never
    represent a team (the selector decides separately whether organizers see them).
    """
    by_team: dict[object, list[Entry]] = {}
    baselines: list[Entry] = []
    for entry in entries:
        if entry.is_baseline:
            baselines.append(entry)
        elif entry.is_scored and not entry.disqualified:
            by_team.setdefault(
                entry.team_id if entry.team_id is not None else entry.team, []
            ).append(entry)
    chosen_entries: list[Entry] = []
    for runs in by_team.values():
        runs.sort(key=lambda e: (e.submitted_at, e.submission_id))
        if counts == "best":
            best = runs[0]
            best_key = _primary_key(best, available, missing)
            for run in runs[1:]:
                key = _primary_key(run, available, missing)
                if key[0] > best_key[0] or (
                    key[0] == best_key[0] and key[1] > best_key[1] + TIE_EPSILON
                ):
                    best, best_key = run, key
            chosen_entries.append(best)
        elif counts == "chosen":
            picked = [run for run in runs if run.is_chosen]
            chosen_entries.append(picked[-1] if picked else runs[-1])
        elif counts == "latest":
            chosen_entries.append(runs[-1])
        else:
            raise ValueError(f"unknown counts rule {counts!r}: expected best, latest or chosen")
    return chosen_entries + baselines


def rank_rows(
    entries: Iterable[Entry],
    *,
    available: Sequence[str],
    sort: str = "avg.f1",
    descending: bool = True,
    missing: MissingRule = "unranked",
) -> list[Row]:
    """Rows with averages and ranks, in display order for ``sort``.

    Ranks go by the sort column's value, best (highest) first, whatever the display direction;
    a non-score sort column (``team``, ``submitted``) ranks by ``avg.f1``. Values equal within
    ``TIE_EPSILON`` of the first entry of their tie group share its rank; the next distinct value
    gets rank = 1 + the number of ranked entries above it.

    Entries without a value in the ranking column (failed, incomplete) and unrankable ones
    (baselines, disqualified) get rank None. In display order, entries with a value come first
    (baselines sit among them at their score, as in the CODI-CRAC tables); entries without a
    value always come last, in either direction. Equal values keep submission order, so a later
    run never displaces an earlier one with the same score.

    Under the zero rule (``missing="zero"``) an entry that skipped datasets has an average (its
    missing datasets count as 0) but ranks, and is listed by the average, below every complete
    entry: skipping a dataset never puts a run above one that did them all.
    """
    rows = [
        Row(
            entry=e,
            average=macro_average(e.scores, available, missing) if e.is_scored else None,
            missing=missing_subcorpora(e, available) if e.is_scored else (),
        )
        for e in entries
    ]
    rank_column = sort if _is_score_column(sort) else f"{AVERAGE}.f1"
    tiered = missing == "zero"
    rows = _with_ranks(rows, rank_column, tiered=tiered)
    return _display_order(rows, sort, descending=descending, tiered=tiered)


def _tier(row: Row, column: str, tiered: bool) -> int:
    """Under the zero rule, averages of incomplete entries form a lower tier."""
    return int(row.complete) if tiered and column.startswith(f"{AVERAGE}.") else 0


def _chrono(row: Row) -> tuple[datetime, int]:
    """Submission order."""
    return (row.entry.submitted_at, row.entry.submission_id)


def _with_ranks(rows: list[Row], rank_column: str, *, tiered: bool) -> list[Row]:
    """The rows with their ranks: over the rankable rows with a value in ``rank_column``,
    best first, stable in submission order (the others: None)."""
    rankable = [r for r in rows if r.rankable and r.value(rank_column) is not None]
    rankable.sort(key=_chrono)
    rankable.sort(key=lambda r: (_tier(r, rank_column, tiered), r.value(rank_column)), reverse=True)
    ranks: dict[int, int] = {}
    leader: tuple[int, float] | None = None
    current = 0
    for position, row in enumerate(rankable, start=1):
        value = _present(row, rank_column)
        level = _tier(row, rank_column, tiered)
        if leader is None or leader[0] != level or leader[1] - value > TIE_EPSILON:
            leader, current = (level, value), position
        ranks[id(row)] = current
    return [replace(r, rank=ranks.get(id(r))) for r in rows]


def _display_order(rows: list[Row], sort: str, *, descending: bool, tiered: bool) -> list[Row]:
    """The rows in display order for ``sort`` (see `rank_rows`)."""
    rows.sort(key=_chrono)
    if _is_score_column(sort):
        with_value = [r for r in rows if r.value(sort) is not None]
        without = [r for r in rows if r.value(sort) is None]
        if tiered and sort.startswith(f"{AVERAGE}."):
            complete = [r for r in with_value if r.complete]
            partial = [r for r in with_value if not r.complete]
            tiers = [
                _tie_sorted(complete, sort, descending=descending),
                _tie_sorted(partial, sort, descending=descending),
            ]
            ordered = [*tiers[0], *tiers[1]] if descending else [*tiers[1], *tiers[0]]
            return ordered + without
        return _tie_sorted(with_value, sort, descending=descending) + without
    if sort == "team":
        rows.sort(key=lambda r: r.entry.team.casefold(), reverse=descending)
        return rows
    if sort == "submitted":
        return rows[::-1] if descending else rows
    raise ValueError(f"unknown sort column {sort!r}")


def _present(row: Row, column: str) -> float:
    """The value of a column that the caller has checked the row has."""
    value = row.value(column)
    assert value is not None
    return value


def _tie_sorted(rows: list[Row], column: str, *, descending: bool) -> list[Row]:
    """Rows (in submission order) sorted by value; values within ``TIE_EPSILON`` of their
    group's first value form one group that keeps submission order in either direction."""
    by_value = sorted(rows, key=lambda r: _present(r, column), reverse=True)
    groups: list[list[Row]] = []
    leader: float | None = None
    for row in by_value:
        value = _present(row, column)
        if leader is None or leader - value > TIE_EPSILON:
            groups.append([])
            leader = value
        groups[-1].append(row)
    if not descending:
        groups.reverse()
    position = {id(r): i for i, r in enumerate(rows)}
    return [row for group in groups for row in sorted(group, key=lambda r: position[id(r)])]


def _is_score_column(column: str) -> bool:
    group, _, name = column.partition(".")
    return bool(group) and name in FIELDS


def sort_columns(subcorpora: Sequence[str]) -> list[str]:
    """Every column a board may be sorted by, average first."""
    columns = [f"{AVERAGE}.{name}" for name in FIELDS]
    columns += [f"{slug}.{name}" for slug in subcorpora for name in FIELDS]
    return columns + ["team", "submitted"]


def column_leaders(
    rows: Sequence[Row], subcorpora: Sequence[str], name: str = "f1"
) -> dict[str, set[int]]:
    """For each sub-corpus slug and ``avg``: the submission ids of the ranked rows holding the
    best value (ties within ``TIE_EPSILON`` all lead), for bold cells as in the CODI-CRAC
    result tables."""
    leaders: dict[str, set[int]] = {}
    ranked = [r for r in rows if r.rank is not None]
    for group in [*subcorpora, AVERAGE]:
        column = f"{group}.{name}"
        values = [
            (value, r.entry.submission_id) for r in ranked if (value := r.value(column)) is not None
        ]
        if not values:
            continue
        best = max(v for v, _ in values)
        leaders[group] = {sid for v, sid in values if best - v <= TIE_EPSILON}
    return leaders


@dataclass(frozen=True, slots=True)
class GapRow:
    """One team in the predicted-versus-gold comparison (averages as fractions)."""

    team: str
    predicted: float | None
    gold: float | None

    @property
    def gap(self) -> float | None:
        """Predicted minus gold: how much the team loses by detecting its own mentions."""
        if self.predicted is None or self.gold is None:
            return None
        return self.predicted - self.gold


def predicted_vs_gold(predicted: Sequence[Row], gold: Sequence[Row]) -> list[GapRow]:
    """Pair the teams of two boards (already one row per team); best gold average first.

    Baselines pair by run name; teams present on only one board keep None on the other side.
    """

    def key(row: Row) -> str:
        return f"baseline:{row.entry.run_name}" if row.entry.is_baseline else row.entry.team

    def average(row: Row | None) -> float | None:
        return None if row is None or row.average is None else row.average.f1

    pred_by = {key(r): r for r in predicted}
    gold_by = {key(r): r for r in gold}
    names = list(dict.fromkeys([*gold_by, *pred_by]))
    out = []
    for name in names:
        p, g = pred_by.get(name), gold_by.get(name)
        shown = p or g  # the name comes from one board or the other
        assert shown is not None
        entry = shown.entry
        label = entry.run_name or entry.team if entry.is_baseline else entry.team
        out.append(GapRow(team=label, predicted=average(p), gold=average(g)))
    out.sort(
        key=lambda r: (r.gold is None, -(r.gold or 0.0), r.predicted is None, -(r.predicted or 0.0))
    )
    return out
