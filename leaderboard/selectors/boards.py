"""Boards: the rows a leaderboard shows, live or frozen, as a viewer may see them.

`leaderboard_board` reads the phase's material (`leaderboard.selectors.material`: its runs'
scores, or its frozen snapshot) into `Entry` values and lets the pure `leaderboard.ranking` pick,
average and rank them, then marks statistically tied rank neighbours
(`leaderboard.selectors.ties`) and the system cards; `task_gap_table` sets a task's
predicted-mention board beside its gold-mention board. The `Board` value is
`leaderboard.selectors.board`'s, the runs that count `leaderboard.selectors.final_runs`'s;
their names are importable from here too.
Who sees what is `competition.visibility`'s decision:

- organizers of the competition (and staff) see everything, disqualified runs included, and the
  live board even when it is frozen;
- everyone else sees a hidden phase's board empty until it is revealed, except their own team's
  runs when the phase says ``show_own_scores_when_hidden`` (then without ranks, which would
  reveal other teams' results); disqualified runs are left out;
- a frozen board (the newest active `BoardSnapshot`) is what non-organizers see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from competition.models import Phase, PublishedAverage, Task
from competition.selectors import track_named
from competition.services.boards import board_pairs
from competition.visibility import Visibility, phase_visibility, viewer_team_ids
from leaderboard.models import BoardSnapshot
from leaderboard.ranking import (
    AVERAGE,
    CountsRule,
    Entry,
    GapRow,
    MissingRule,
    Row,
    predicted_vs_gold,
    rank_rows,
    select_team_entries,
    sort_columns,
)
from leaderboard.selectors.averaged import UNMEASURED_NOTE, averaged_datasets
from leaderboard.selectors.board import Board, BoardQueryError, Column, TrackTab
from leaderboard.selectors.cards import CardFilterError, board_cards
from leaderboard.selectors.final_runs import (
    FinalRun,
    FinalRuns,
    OrganizeScore,
    final_run_ids,
    phase_final_runs,
    phase_final_submissions,
    phase_run_scores,
)
from leaderboard.selectors.material import (
    TASK_MODE,
    active_record,
    active_snapshot,
    board_material,
    material_entries,
    material_metrics,
    ordered_modes,
    snapshot_board_material,
    snapshot_data,
    stored_metrics,
    subcorpus_columns,
)
from leaderboard.selectors.record import FrozenRecord
from leaderboard.selectors.ties import GROUP_SAMPLES, board_tied_groups
from scoring.vocabulary import ordered_metrics

__all__ = [  # the board's names, those of its parts' modules included
    "TASK_MODE",
    "Board",
    "BoardQueryError",
    "Column",
    "FinalRun",
    "FinalRuns",
    "GapTable",
    "OrganizeScore",
    "TrackTab",
    "active_record",
    "active_snapshot",
    "board_material",
    "board_tied_groups",
    "final_run_ids",
    "leaderboard_board",
    "ordered_modes",
    "phase_final_runs",
    "phase_final_submissions",
    "phase_run_scores",
    "snapshot_board_material",
    "snapshot_data",
    "subcorpus_columns",
    "task_gap_table",
]


def leaderboard_board(
    *,
    phase: Phase,
    viewer,
    metric: str | None = None,
    mode: str = TASK_MODE,
    sort: str | None = None,
    descending: bool = True,
    runs: bool = False,
    live: bool = False,
    groups: bool = False,
    track: str | None = None,
    card: Sequence[tuple[str, str]] = (),
) -> Board:
    """The board of ``phase`` as ``viewer`` may see it.

    ``track``: in a task with tracks, the track whose runs are ranked (default: the first);
    baselines are shown on every track's board. The phase's ``missing`` rule decides how a run
    that skipped datasets is averaged and ranked (`leaderboard.ranking`).
    ``runs``: one row per run instead of one per team (the phase's counts rule). ``live``:
    organizers only, the live scores even if the board is frozen. ``groups``: mark statistically
    tied groups (paired approximate randomization between rank neighbours, on per-document
    counts). ``card``: (question slug, answer) pairs; only the runs whose system card gives
    those answers are shown, each at its rank on the whole board. Unknown ``metric``,
    ``mode``, ``sort`` or card question raise `BoardQueryError`.
    """
    asked = _Asked(
        phase=phase,
        viewer=viewer,
        visibility=phase_visibility(phase=phase, user=viewer),
        mode=mode,
        sort=sort or f"{AVERAGE}.f1",
        descending=descending,
        runs=runs,
    )
    read = _board_read(asked, metric=metric, live=live)
    columns = _board_columns(read.data, sort=asked.sort)
    tracks = _track_tabs(phase, record=read.record)
    data, track = _on_track(read.data, tracks=tracks, track=track)
    shown = _shown_entries(asked, read, data, available=[c.slug for c in columns if c.available])
    rows, columns = _ranked_rows(asked, read, shown, columns, track=track)
    board = _assembled(asked, read, data, rows=rows, columns=columns, tracks=tracks, track=track)
    if groups and asked.visibility in (Visibility.ALL, Visibility.PUBLIC):
        board = _with_groups(board)
    return _with_cards(board, card=card)


@dataclass(frozen=True)
class _Asked:
    """A board request: whose view of which phase, in which mode, sorted how."""

    phase: Phase
    viewer: Any
    visibility: Visibility
    mode: str
    sort: str
    descending: bool
    runs: bool

    @property
    def primary(self) -> str:
        return self.phase.task.primary_metric


@dataclass(frozen=True)
class _Read:
    """What a board request read: the frozen board shown, or the live scores it shows."""

    data: dict
    """The board's material (`leaderboard.selectors.material`)."""
    pairs: frozenset[tuple[str, str]] | None
    """The (mode, metric) pairs ``data`` holds completely (None: every pair, a frozen board)."""
    modes: list[str]
    metrics: list[str]
    metric: str
    """The metric shown (the primary one, or the mode's first, when none was asked for)."""
    frozen: BoardSnapshot | None
    """The phase's active snapshot, shown or not."""
    snapshot: BoardSnapshot | None
    """The frozen board shown (None: live scores)."""
    record: FrozenRecord | None
    counts: CountsRule
    missing: MissingRule


def _board_read(asked: _Asked, *, metric: str | None, live: bool) -> _Read:
    """The material a board shows: the frozen board (unless an organizer asks for the live
    one), else the live scores of the pairs shown; with the modes and metrics it has, and the
    rules it ranks by (a frozen board's at the freeze). Unknown ``mode`` or ``metric``: a
    `BoardQueryError`."""
    phase = asked.phase
    frozen = active_snapshot(phase=phase)
    use_snapshot = frozen is not None and not (live and asked.visibility is Visibility.ALL)
    record: FrozenRecord | None = None
    counts, missing = phase.counts, phase.missing
    if use_snapshot and frozen is not None:
        data = snapshot_data(frozen)
        stored = material_metrics(data)
        record = FrozenRecord.of(data)
        if record is not None:
            counts, missing = record.counts, record.missing
    else:
        stored = stored_metrics(phase)
        data = None
    modes, metrics, metric = _measures(
        stored, mode=asked.mode, metric=metric, primary=asked.primary
    )
    pairs: frozenset[tuple[str, str]] | None = None  # None: every pair (a frozen board)
    if data is None:
        data, pairs = _live_material(asked, metric=metric)
    return _Read(
        data=data,
        pairs=pairs,
        modes=modes,
        metrics=metrics,
        metric=metric,
        frozen=frozen,
        snapshot=frozen if use_snapshot else None,
        record=record,
        counts=counts,
        missing=missing,
    )


def _measures(
    stored: dict[str, list[str]], *, mode: str, metric: str | None, primary: str
) -> tuple[list[str], list[str], str]:
    """The board's modes, the metrics of ``mode`` and the metric shown, from the ``stored``
    metrics of each mode; an unknown ``mode`` or ``metric`` raises `BoardQueryError`."""
    modes = ordered_modes(stored) or [TASK_MODE]
    if mode not in modes:
        raise BoardQueryError(f"unknown mode {mode!r}: expected one of {', '.join(modes)}")
    metrics = ordered_metrics(stored.get(mode, []), primary) or [primary]
    # A mode without the primary metric (CRAC 2026's empty nodes) shows its own first.
    metric = metric or (primary if primary in metrics else metrics[0])
    if metric not in metrics:
        raise BoardQueryError(f"unknown metric {metric!r}: expected one of {', '.join(metrics)}")
    return modes, metrics, metric


def _live_material(asked: _Asked, *, metric: str) -> tuple[dict, frozenset[tuple[str, str]]]:
    """The live material of the board (nothing for a viewer who sees none of it) and the
    pairs it holds: the one shown and the primary one, with the variants on the default
    board."""
    phase, mode, primary = asked.phase, asked.mode, asked.primary
    if asked.visibility is Visibility.NONE:
        return {"subcorpora": subcorpus_columns(phase), "entries": []}, frozenset()
    wanted = {(mode, metric), (TASK_MODE, primary)}
    if (mode, metric) == (TASK_MODE, primary):  # the default board: with its variants
        wanted.update(board_pairs(primary_metric=primary, procedure=phase.task.procedure))
    return board_material(phase=phase, pairs=wanted, as_json=False), frozenset(wanted)


def _board_columns(data: dict, *, sort: str) -> list[Column]:
    """The material's sub-corpus columns; a ``sort`` that is none of the board's columns
    raises `BoardQueryError`."""
    columns = [Column(**c) for c in data["subcorpora"]]
    if sort not in sort_columns([c.slug for c in columns]):
        raise BoardQueryError(
            f"unknown sort column {sort!r}: expected avg.f1, <sub-corpus>.recall|precision|f1, "
            "team or submitted"
        )
    return columns


def _track_tabs(phase: Phase, *, record: FrozenRecord | None) -> list[TrackTab]:
    """The task's tracks (a frozen board's as it kept them)."""
    if record is not None:
        return [TrackTab(slug, name) for slug, name in record.tracks]
    return [TrackTab(t.slug, t.name) for t in phase.task.tracks.all()]


def _on_track(data: dict, *, tracks: list[TrackTab], track: str | None) -> tuple[dict, str | None]:
    """The material of the track shown (its runs and the baselines) and its slug; the
    material as it is, and None, in a task without tracks. Unknown ``track``: a
    `BoardQueryError`."""
    if not tracks:
        return data, None
    named = track_named(tracks=tracks, label=track or tracks[0].slug)
    if named is None:
        raise BoardQueryError(
            f"unknown track {track!r}: expected one of {', '.join(t.name for t in tracks)}"
        )
    entries = [e for e in data["entries"] if e.get("track") == named.slug or e["is_baseline"]]
    return {**data, "entries": entries}, named.slug


def _shown_entries(asked: _Asked, read: _Read, data: dict, *, available: list[str]) -> list[Entry]:
    """The runs the viewer sees: all of them (``runs``), or each team's that counts, with the
    disqualified runs for the organizers."""
    entries = material_entries(data, mode=asked.mode, metric=read.metric, primary=asked.primary)
    entries = _visible_entries(
        entries, phase=asked.phase, viewer=asked.viewer, visibility=asked.visibility
    )
    if asked.runs:
        return entries
    shown = select_team_entries(
        entries, counts=read.counts, available=available, missing=read.missing
    )
    if asked.visibility is Visibility.ALL:
        shown += [e for e in entries if e.disqualified and not e.is_baseline]
    return shown


def _ranked_rows(
    asked: _Asked, read: _Read, shown: list[Entry], columns: list[Column], *, track: str | None
) -> tuple[list[Row], list[Column]]:
    """The shown runs ranked over the datasets the mode averages (the others' columns shown
    as not averaged), in display order; no ranks for a viewer who sees only their own runs,
    nor for published figures beside an official ranking of averages."""
    available = [c.slug for c in columns if c.available]
    averaged = averaged_datasets(
        phase=asked.phase,
        mode=asked.mode,
        available=available,
        without=read.record.without_empty_nodes if read.record is not None else None,
    )
    if unmeasured := set(available) - set(averaged):
        shown, columns = _unmeasured(shown, columns, unmeasured)
    rows = rank_rows(
        shown,
        available=averaged,
        sort=asked.sort,
        descending=asked.descending,
        missing=read.missing,
    )
    own = asked.visibility is Visibility.OWN
    if own or _published_ranking(
        asked.phase, mode=asked.mode, metric=read.metric, track=track, record=read.record
    ):
        # (published per-dataset figures beside an official ranking of averages: not ranked)
        rows = [replace(r, rank=None) if own or r.entry.is_reference else r for r in rows]
    return rows, columns


def _assembled(
    asked: _Asked,
    read: _Read,
    data: dict,
    *,
    rows: list[Row],
    columns: list[Column],
    tracks: list[TrackTab],
    track: str | None,
) -> Board:
    """The `Board` of the ranked rows, with what its material says of each run."""
    entries = data["entries"]
    return Board(
        phase=asked.phase,
        mode=asked.mode,
        metric=read.metric,
        metrics=read.metrics,
        modes=read.modes,
        columns=columns,
        rows=rows,
        runs=asked.runs,
        sort=asked.sort,
        descending=asked.descending,
        visibility=asked.visibility,
        snapshot=read.snapshot,
        frozen=read.frozen,
        tracks=tracks,
        track=track,
        versions=_versions(data, {row.entry.submission_id for row in rows}),
        material={e["submission_id"]: e["scores"] for e in entries},
        current_runs={e["submission_id"]: e["run"] for e in entries if e.get("run")},
        material_pairs=read.pairs,
        procedure=read.record.procedure if read.record is not None else asked.phase.task.procedure,
        record=read.record,
        missing=read.missing,
        counts=read.counts,
        procedures={e["submission_id"]: e.get("procedure") or "" for e in entries},
        scorer_versions={e["submission_id"]: e.get("scorer_version") or "" for e in entries},
    )


def _with_groups(board: Board) -> Board:
    """The board with its statistically tied groups marked (as it is when none are)."""
    markers = board_tied_groups(board)
    if not markers:
        return board
    return replace(
        board,
        rows=[replace(r, group=markers.get(r.entry.submission_id)) for r in board.rows],
        groups=markers,
        group_samples=GROUP_SAMPLES,
    )


def _with_cards(board: Board, *, card: Sequence[tuple[str, str]]) -> Board:
    """The board with its system-card columns, its rows those whose cards give the answers of
    ``card`` (each at its rank on the whole board); an unknown question: `BoardQueryError`."""
    try:
        shown_rows, cards = board_cards(
            phase=board.phase, rows=board.rows, card=card, record=board.record
        )
    except CardFilterError as exc:
        raise BoardQueryError(str(exc)) from None
    return replace(board, rows=shown_rows, cards=cards)


def _published_ranking(
    phase: Phase, *, mode: str, metric: str, track: str | None, record: FrozenRecord | None
) -> bool:
    """Whether the phase's official ranking in this mode and metric is a published table of
    averages (`PublishedAverage`, shown with the board; a frozen board's as it kept them):
    then the per-dataset figures published for some of its systems (a system paper's) are
    shown as such, not ranked above the systems that have averages only."""
    if record is not None:
        return record.publishes(mode=mode, metric=metric, track=track)
    published = PublishedAverage.objects.filter(phase_id=phase.pk, mode=mode, metric=metric)
    if track is not None:
        published = published.filter(track__slug=track)
    return published.exists()


def _unmeasured(
    entries: list[Entry], columns: list[Column], slugs: set[str]
) -> tuple[list[Entry], list[Column]]:
    """The datasets a mode does not average (`averaged_datasets`) shown as such: their
    cells blank ("—", null in the JSON), their columns not averaged, saying why."""
    return (
        [replace(e, scores={k: v for k, v in e.scores.items() if k not in slugs}) for e in entries],
        [
            replace(c, available=False, note=UNMEASURED_NOTE) if c.slug in slugs else c
            for c in columns
        ],
    )


def _versions(data: dict, shown: set[int]) -> list[str]:
    """The distinct scorings of the shown runs, for the board's mixed-versions notice."""
    found = []
    for entry in data["entries"]:
        if entry["submission_id"] not in shown or entry["status"] != "scored":
            continue
        if entry.get("is_reference"):
            label = "published results"
        else:
            label = (
                f"{entry.get('procedure') or 'the task options'} · scorer {entry['scorer_version']}"
            )
        if label not in found:
            found.append(label)
    return sorted(found)


def _visible_entries(
    entries: list[Entry], *, phase: Phase, viewer, visibility: Visibility
) -> list[Entry]:
    if visibility is Visibility.ALL:
        return entries
    if visibility is Visibility.NONE:
        return []
    entries = [e for e in entries if not e.disqualified]
    if visibility is Visibility.OWN:
        mine = viewer_team_ids(competition=phase.task.competition, user=viewer)
        return [e for e in entries if e.team_id in mine and not e.is_baseline]
    return entries


# --- predicted versus gold ------------------------------------------------------------------------


@dataclass(frozen=True)
class GapTable:
    task: Task
    predicted: Phase
    gold: Phase
    rows: list[GapRow]


def task_gap_table(*, task: Task, viewer) -> GapTable | None:
    """Each team's primary macro-average with predicted and with gold mentions, and the gap.

    None when the task lacks one of the two test phases. Each side obeys its own phase's
    visibility, so a hidden gold phase shows no gold numbers.
    """
    phases = {p.kind: p for p in task.phases.all()}
    predicted = phases.get(Phase.Kind.TEST_PREDICTED)
    gold = phases.get(Phase.Kind.TEST_GOLD)
    if predicted is None or gold is None:
        return None
    pred_board = leaderboard_board(phase=predicted, viewer=viewer)
    gold_board = leaderboard_board(phase=gold, viewer=viewer)
    rows = predicted_vs_gold(
        [r for r in pred_board.rows if not r.entry.disqualified],
        [r for r in gold_board.rows if not r.entry.disqualified],
    )
    return GapTable(task=task, predicted=predicted, gold=gold, rows=rows)
