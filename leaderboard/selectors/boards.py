"""Boards: the rows a leaderboard shows, live or frozen, as a viewer may see them.

`leaderboard_board` reads the phase's score rows (or its frozen snapshot) into `Entry` values
and lets the pure `leaderboard.ranking` pick, average and rank them; `board_tied_groups`
marks statistically tied rank neighbours; `task_gap_table` sets a task's predicted-mention
board beside its gold-mention board; `phase_final_submissions` lists the runs that count.
Who sees what is `competition.visibility`'s decision:

- organizers of the competition (and staff) see everything, disqualified runs included, and the
  live board even when it is frozen;
- everyone else sees a hidden phase's board empty until it is revealed, except their own team's
  runs when the phase says ``show_own_scores_when_hidden`` (then without ranks, which would
  reveal other teams' results); disqualified runs are left out;
- a frozen board (the newest active `BoardSnapshot`) is what non-organizers see.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from typing import Any

from django.core.cache import cache
from django.db import connections
from django.db.models import DateTimeField, FilteredRelation, Func, Q, TextField
from django.db.models.functions import Cast
from django.utils.dateparse import parse_datetime

from competition.models import Phase, PublishedAverage, Score, ScoringRun, Submission, Task
from competition.selectors import track_named
from competition.services.boards import board_pairs, pairs_text
from competition.visibility import Visibility, phase_visibility, viewer_team_ids
from leaderboard import significance
from leaderboard.models import BoardSnapshot
from leaderboard.ranking import (
    AVERAGE,
    Entry,
    GapRow,
    MissingRule,
    Row,
    predicted_vs_gold,
    rank_rows,
    select_team_entries,
    sort_columns,
)
from leaderboard.ranking import Score as Cell
from leaderboard.selectors.averaged import UNMEASURED_NOTE, averaged_datasets
from leaderboard.selectors.cards import BoardCards, CardFilterError, board_cards
from leaderboard.selectors.counts import compare_counts, document_counts
from leaderboard.selectors.inputs import RUN_KEYS, RUN_PATHS
from leaderboard.selectors.record import FrozenRecord
from scoring.vocabulary import metric_label, ordered_metrics

TASK_MODE = Score.TASK_MODE
WIDE_COLUMNS = 6
GROUP_SAMPLES = 1000
GROUP_SEED = significance.DEFAULT_SEED
PAIRS_KEPT = 20_000
"""Tested pairs kept per phase and column (a pair's p-value is a few dozen bytes)."""
DECODED_KEPT = 10_000
"""Board entries a process keeps decoded (`_entry_scores`; about 2 kB each)."""


class BoardQueryError(ValueError):
    """A board was asked for with a parameter that does not exist (unknown metric, column)."""


class _Timestamp(Func):
    """A datetime column read through psycopg's compiled loader: give the values read the
    time zone `zone` names, and they are the datetimes Django reads.

    Django loads PostgreSQL's ``timestamptz`` with a loader written in Python (for its time
    zone handling) at about 4 µs a value: 4 ms of a board's thousand runs, a tenth of the
    request. The same instant read as a plain ``timestamp`` on the connection's wall clock
    goes through psycopg's compiled loader; given the connection's time zone back (none
    without ``USE_TZ``, as Django's) it is the datetime Django's loader makes. The reader does
    that in its own loop: as a Django converter it would copy every row twice. Only on a UTC
    connection (Django's default), whose wall clock names each instant once; elsewhere, and
    on other databases, the column is read as it is.
    """

    arity = 1
    output_field = DateTimeField()

    def as_sql(self, compiler, connection, **extra_context):
        return compiler.compile(self.source_expressions[0])

    def as_postgresql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        if not self._on_wall_clock(connection):
            return sql, params
        return f"({sql} AT TIME ZONE %s)", (*params, connection.timezone_name)

    @staticmethod
    def _on_wall_clock(connection) -> bool:
        return connection.vendor == "postgresql" and connection.timezone_name == "UTC"

    @classmethod
    def zone(cls, connection) -> tzinfo | None:
        """The time zone the values read on ``connection`` lack (None: they lack nothing)."""
        return connection.timezone if cls._on_wall_clock(connection) else None


class _KeptCells(dict):
    """The cells (`Score` by sub-corpus slug) of one mode and metric of a kept board entry,
    as `_entry_scores` decoded them: shared by every board that shows them, so that an
    `Entry` takes them as they are. Changing one in place raises TypeError (it would change
    every later board of the process); a copy is a plain dict."""

    __slots__ = ()

    def _shared(self, *args, **kwargs):
        raise TypeError("kept board cells are shared between requests: copy them to change them")

    __setitem__ = __delitem__ = setdefault = update = pop = popitem = clear = _shared
    __ior__ = _shared

    def __reduce__(self):  # a copy (copy, pickle) is the caller's own: a plain dict
        return (dict, (dict(self),))


_decoded: dict[str, dict] = {}


def _entry_scores(text: str, make=Cell._make) -> dict:
    """The scores of a `BoardEntry`, decoded from its JSON text, once per process:
    ``{mode: {metric: _KeptCells}}``.

    Decoding a thousand entries (a dozen floats each) and making their cells was a quarter
    of a board's request, the same on every request: an entry changes only when its run's
    scoring does. Keyed by the text itself, a kept value can never be out of date, so nothing
    needs to forget it; the table is only emptied when full (a phase larger than it decodes
    as before). The value is shared between requests: readers must not change it.
    """
    scores = _decoded.get(text)
    if scores is None:
        if len(_decoded) >= DECODED_KEPT:
            _decoded.clear()
        scores = _decoded[text] = {
            mode: {
                metric: _KeptCells({slug: make(v) for slug, v in cells.items()})
                for metric, cells in metrics.items()
            }
            for mode, metrics in json.loads(text).items()
        }
    return scores


# --- raw material: the same structure live and frozen ----------------------------------------


def subcorpus_columns(phase: Phase) -> list[dict]:
    """The phase's sub-corpora in board order (`SubCorpus` orders by ``order``, ``id``),
    from the phase's prefetched sub-corpora when the caller has read them (the API has).

    A column is averaged (``available``) when its dataset has a gold key here. A phase none
    of whose datasets has one (an edition that ran elsewhere, such as a CRAC edition whose
    CorefUD keys are not in this repository) takes no runs: its only scores are the published
    results imported into it, printed per dataset, so every column is averaged, as the source
    averaged them."""
    subcorpora = list(phase.subcorpora.all())
    keyless = not any(s.available for s in subcorpora)
    return [
        {
            "slug": s.slug,
            "name": s.name,
            "available": s.available or keyless,
            "language": s.language,
        }
        for s in subcorpora
    ]


def board_material(
    *,
    phase: Phase,
    modes: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    pairs: Iterable[tuple[str, str]] | None = None,
    as_json: bool = True,
) -> dict:
    """Every scored or failed run of the phase with its sub-corpus scores (current scoring run),
    as plain JSON-able data. ``modes``/``metrics`` limit which scores are read to their
    combinations, ``pairs`` to exactly these (mode, metric) pairs (None: all of them).

    Scores of the pairs a board shows by default come from the runs' `BoardEntry` (one row per
    run, read with the runs themselves); the other pairs, and runs whose entry is missing or
    built from an older scoring, are read from the score rows. ``as_json=False`` leaves the
    submission times as datetimes (a live board that is not stored).
    """
    wanted: set[tuple[str, str]] | None = None
    if pairs is not None:
        wanted = set(pairs)
    elif modes is not None and metrics is not None:
        wanted = {(mode, metric) for mode in modes for metric in metrics}
    task = phase.task
    kept = set(board_pairs(primary_metric=task.primary_metric, procedure=task.procedure))
    kept_text = pairs_text(
        board_pairs(primary_metric=task.primary_metric, procedure=task.procedure)
    )
    asked = wanted if wanted is not None else set()  # what the entries can answer
    from_entries = wanted is not None and bool(asked & kept)
    fields = list(RUN_PATHS)  # one declaration of what a board reads of a run
    annotations = {
        "current": FilteredRelation("runs", condition=Q(runs__is_current=True)),
        "submitted": _Timestamp("created_at"),
    }
    if from_entries:  # the entries' scores as their JSON text, decoded by `_entry_scores`
        annotations["entry_scores"] = Cast("board_entry__scores", TextField())
        fields += ["board_entry__run_id", "board_entry__pairs", "entry_scores"]
    # Tuples, not dicts: a thousand rows a board, unpacked once each.
    submissions = (
        Submission.objects.filter(
            phase=phase, status__in=[Submission.Status.SCORED, Submission.Status.FAILED]
        )
        .annotate(**annotations)
        .order_by("created_at", "id")
        .values_list(*fields)
    )
    entry_pairs = tuple(asked & kept) if from_entries else ()
    zone = _Timestamp.zone(connections[submissions.db])
    entries = {}
    stale: list[int] = []
    width = len(RUN_KEYS)
    for row in submissions:
        entry = dict(zip(RUN_KEYS, row[:width]))
        sid, run, submitted = entry["submission_id"], entry["run"], entry["submitted_at"]
        scored = entry["status"] == Submission.Status.SCORED and run is not None
        if zone is not None:
            submitted = submitted.replace(tzinfo=zone)
        entry["submitted_at"] = submitted.isoformat() if as_json else submitted
        entry["procedure"] = (entry["procedure"] or "") if scored else ""
        scores: dict = {}
        entry["scores"] = scores
        entries[sid] = entry
        if not scored or not from_entries:
            continue
        entry_run, entry_pairs_text, entry_text = row[width:]
        if entry_run == run and entry_pairs_text == kept_text:
            entry_scores = _entry_scores(entry_text)
            for mode, metric in entry_pairs:
                cells = entry_scores.get(mode, {}).get(metric)
                if cells:
                    scores.setdefault(mode, {})[metric] = cells
        else:
            stale.append(sid)
    # The rest from the score rows: every pair for runs without a usable entry, the pairs no
    # entry keeps for all runs (nothing, when the entries hold it all).
    reads: list[tuple[Any, ...]] = []
    if not from_entries or stale or asked - kept:
        base = Score.objects.filter(
            submission__phase=phase,
            submission__status=Submission.Status.SCORED,
            run__is_current=True,
            document="",
        )
        if wanted is None:  # everything, or one side limited: the score rows as they are
            if modes is not None:
                base = base.filter(mode__in=list(modes))
            if metrics is not None:
                base = base.filter(metric__in=list(metrics))
        if not from_entries:
            reads.append((base, wanted))
        else:
            if stale:
                reads.append(
                    (
                        base.filter(submission_id__in=stale) if len(stale) <= 200 else base,
                        wanted,
                        set(stale),
                    )
                )
            if asked - kept:
                reads.append((base, asked - kept))
    for step in reads:
        rows_read, pairs_read = step[0], step[1]
        only = step[2] if len(step) > 2 else None
        if pairs_read is not None:
            rows_read = rows_read.filter(
                mode__in={mo for mo, _ in pairs_read}, metric__in={me for _, me in pairs_read}
            )
        for sid, mode, metric, slug, r, p, f in rows_read.values_list(
            "submission_id", "mode", "metric", "subcorpus__slug", "recall", "precision", "f1"
        ):
            if sid not in entries or (only is not None and sid not in only):
                continue
            if pairs_read is not None and (mode, metric) not in pairs_read:
                continue
            entries[sid]["scores"].setdefault(mode, {}).setdefault(metric, {})[slug] = [r, p, f]
    return {
        "subcorpora": subcorpus_columns(phase),
        "primary_metric": task.primary_metric,
        "entries": list(entries.values()),
    }


def _stored_metrics(phase: Phase) -> dict[str, list[str]]:
    """{mode: metrics} stored by the current scorings of the phase's latest scored runs (all
    runs of a phase are scored with the same options; the latest show a new scorer's set)."""
    runs = (
        ScoringRun.objects.filter(
            submission__phase=phase, is_current=True, submission__status=Submission.Status.SCORED
        )
        .order_by("-created_at", "-id")
        .values("id")[:5]
    )
    pairs = (  # one query: the runs as its subquery
        Score.objects.filter(run_id__in=runs, document="")
        .order_by()
        .values_list("mode", "metric")
        .distinct()
    )
    out: dict[str, set[str]] = defaultdict(set)
    for mode, metric in pairs:
        out[mode].add(metric)
    return {mode: list(metrics) for mode, metrics in out.items()}


def _material_metrics(data: dict) -> dict[str, list[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for entry in data["entries"]:
        for mode, metrics in entry["scores"].items():
            out[mode].update(metrics)
    return {mode: list(metrics) for mode, metrics in out.items()}


def ordered_modes(modes: Iterable[str]) -> list[str]:
    return sorted(set(modes), key=lambda m: (m != TASK_MODE, m))


def _cells(scores: dict, mode: str, metric: str, make=Cell._make) -> dict[str, Cell]:
    cells = scores.get(mode, {}).get(metric, {})
    if type(cells) is _KeptCells:  # made once per process, shared as they are
        return cells
    return {slug: make(v) for slug, v in cells.items()}


def _entries(data: dict, *, mode: str, metric: str, primary: str) -> list[Entry]:
    """One `Entry` per run of the material. The fields are named: given by position they
    cost 0.4 ms less a thousand runs, and a reordered `Entry` would silently take one
    field's value for another's."""
    out = []
    same = (mode, metric) == (TASK_MODE, primary)
    for e in data["entries"]:
        submitted = e["submitted_at"]
        scores = _cells(e["scores"], mode, metric)
        out.append(
            Entry(
                submission_id=e["submission_id"],
                team=e["team"],
                run_name=e["run_name"],
                submitted_at=(
                    submitted if isinstance(submitted, datetime) else parse_datetime(submitted)
                ),
                status=e["status"],
                is_baseline=e["is_baseline"],
                is_chosen=e["is_chosen"],
                disqualified=e["disqualified"],
                team_id=e["team_id"],
                is_reference=e.get("is_reference", False),
                source=e.get("source", ""),
                description=e.get("description", ""),
                link=e.get("link", ""),
                scores=scores,
                primary=scores if same else _cells(e["scores"], TASK_MODE, primary),
            )
        )
    return out


# --- boards -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    slug: str
    name: str
    available: bool
    language: str = ""
    note: str = ""
    """Why a column is not averaged, when it is for another reason than a missing key."""


@dataclass(frozen=True)
class TrackTab:
    slug: str
    name: str


@dataclass(frozen=True)
class Board:
    """One leaderboard view, ready for a template, a serializer or a DataFrame."""

    phase: Phase
    mode: str
    metric: str
    metrics: list[str]
    modes: list[str]
    columns: list[Column]
    rows: list[Row]
    runs: bool
    sort: str
    descending: bool
    visibility: Visibility
    snapshot: BoardSnapshot | None = None
    """The frozen board shown, if any (None: live scores)."""
    frozen: BoardSnapshot | None = None
    """The phase's active snapshot, shown or not (organizers looking at the live board)."""
    groups: dict[int, str] = field(default_factory=dict)
    group_samples: int = 0
    tracks: list[TrackTab] = field(default_factory=list)
    """The task's tracks, each ranked on its own board (empty: the task has none)."""
    track: str | None = None
    """The track shown (its slug), when the task has tracks."""

    @property
    def track_name(self) -> str:
        """The shown track's name ("" in a task without tracks)."""
        return next((t.name for t in self.tracks if t.slug == self.track), "")

    versions: list[str] = field(default_factory=list)
    """How the shown runs were scored: "<procedure or options> · scorer <version>", or
    "published" for reference results; more than one means the board mixes scorings."""
    material: dict[int, dict] = field(default_factory=dict, repr=False)
    """The scores read for the board, by submission id: ``{mode: {metric: {slug: [r, p,
    f1]}}}`` (a cell may be a `Score`), complete for the (mode, metric) pairs of
    ``material_pairs``. Read only: parts of it are shared with other requests
    (`_entry_scores`)."""
    material_pairs: frozenset[tuple[str, str]] | None = frozenset()
    """The pairs ``material`` holds completely (None: every pair, as a frozen board)."""
    current_runs: dict[int, int] | None = field(default=None, repr=False)
    """The current scoring run of each shown run, by submission id (None: not read)."""
    procedure: str = ""
    """The task's scoring procedure when the board's scores were read (frozen: at the freeze)."""
    procedures: dict[int, str] = field(default_factory=dict, repr=False)
    """Each run's procedure (its scoring's), by submission id."""
    scorer_versions: dict[int, str] = field(default_factory=dict, repr=False)
    """Each run's scorer version, by submission id."""
    record: FrozenRecord | None = field(default=None, repr=False)
    """What the shown frozen board stored beside its scores (None: live, or a snapshot from
    before these parts were stored)."""
    missing: MissingRule = "unranked"
    """How a run that skipped datasets is averaged (the phase's rule; frozen: at the freeze)."""
    counts: str = "best"
    """Which run of a team the board ranks (the phase's rule; frozen: at the freeze)."""

    @property
    def counts_label(self) -> str:
        return str(Phase.Counts(self.counts).label)

    cards: BoardCards = field(default_factory=BoardCards)
    """The system-card columns, the shown rows' answers and the filter by them (the rows
    kept by a filter keep their rank on the whole board)."""

    @property
    def available(self) -> list[str]:
        return [c.slug for c in self.columns if c.available]

    @property
    def hidden(self) -> bool:
        return self.visibility in (Visibility.NONE, Visibility.OWN)

    @property
    def metric_label(self) -> str:
        return metric_label(self.metric)

    @property
    def sortable(self) -> list[str]:
        return sort_columns([c.slug for c in self.columns])

    @property
    def sources(self) -> list[str]:
        """Where the shown published (reference) results come from."""
        return sorted({row.entry.source for row in self.rows if row.entry.is_reference})

    @property
    def wide(self) -> bool:
        """Too many sub-corpora to show the average after them on a laptop screen: the
        average (the ranking column) comes first."""
        return len(self.columns) > WIDE_COLUMNS

    @property
    def missing_rule(self) -> MissingRule:
        return self.missing

    @property
    def language_groups(self) -> list[tuple[str, list[Column]]]:
        """Consecutive columns of one language, for a header row (empty when no column has a
        language)."""
        if not any(c.language for c in self.columns):
            return []
        groups: list[tuple[str, list[Column]]] = []
        for column in self.columns:
            if groups and groups[-1][0] == column.language:
                groups[-1][1].append(column)
            else:
                groups.append((column.language, [column]))
        return groups


def active_snapshot(*, phase: Phase) -> BoardSnapshot | None:
    """The phase's shown frozen board, without its stored scores and document (large: read
    them with `snapshot_data`, or the fields themselves, where needed)."""
    return (
        BoardSnapshot.objects.filter(phase=phase, active=True)
        .defer("data", "document", "document_gzip")
        .order_by("-created_at", "-id")
        .first()
    )


SNAPSHOTS_KEPT = 2
"""Frozen boards a process keeps decoded (`snapshot_data`)."""
_snapshots: dict[tuple, dict] = {}


def snapshot_data(snapshot: BoardSnapshot) -> dict:
    """The stored material of a frozen board, read and decoded once per process: a snapshot
    is never changed once written, so a kept one is never out of date. Decoding a thousand
    runs' scores in every mode (tens of MB) on each request made a frozen board many times
    dearer than the live one, which reads only the pairs it shows. Shared between requests:
    readers must not change it."""
    # the id with the moment and phase: an id reused (a database restored) is another key
    key = (snapshot.pk, snapshot.phase_id, snapshot.created_at.isoformat())
    data = _snapshots.get(key)
    if data is None:
        if "data" in snapshot.__dict__:  # read with the snapshot already
            data = snapshot.data
        else:
            data = BoardSnapshot.objects.values_list("data", flat=True).get(pk=snapshot.pk)
        if len(_snapshots) >= SNAPSHOTS_KEPT:
            _snapshots.pop(next(iter(_snapshots)))
        _snapshots[key] = data
    return data


def active_record(*, phase: Phase) -> FrozenRecord | None:
    """The record of the phase's shown frozen board (None: not frozen, or frozen before the
    record was stored)."""
    frozen = active_snapshot(phase=phase)
    return FrozenRecord.of(snapshot_data(frozen)) if frozen is not None else None


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
    visibility = phase_visibility(phase=phase, user=viewer)
    primary = phase.task.primary_metric
    sort = sort or f"{AVERAGE}.f1"
    frozen = active_snapshot(phase=phase)
    use_snapshot = frozen is not None and not (live and visibility is Visibility.ALL)
    read: frozenset[tuple[str, str]] | None = None  # None: every pair (a frozen board)
    record: FrozenRecord | None = None
    counts, missing = phase.counts, phase.missing
    if use_snapshot and frozen is not None:
        data = snapshot_data(frozen)
        stored = _material_metrics(data)
        record = FrozenRecord.of(data)
        if record is not None:
            counts, missing = record.counts, record.missing
    else:
        stored = _stored_metrics(phase)
        data = None
    modes = ordered_modes(stored) or [TASK_MODE]
    if mode not in modes:
        raise BoardQueryError(f"unknown mode {mode!r}: expected one of {', '.join(modes)}")
    metrics = ordered_metrics(stored.get(mode, []), primary) or [primary]
    # A mode without the primary metric (CRAC 2026's empty nodes) shows its own first.
    metric = metric or (primary if primary in metrics else metrics[0])
    if metric not in metrics:
        raise BoardQueryError(f"unknown metric {metric!r}: expected one of {', '.join(metrics)}")
    if data is None:
        if visibility is Visibility.NONE:
            data = {"subcorpora": subcorpus_columns(phase), "entries": []}
            read = frozenset()
        else:
            wanted = {(mode, metric), (TASK_MODE, primary)}
            if (mode, metric) == (TASK_MODE, primary):  # the default board: with its variants
                wanted.update(board_pairs(primary_metric=primary, procedure=phase.task.procedure))
            data = board_material(phase=phase, pairs=wanted, as_json=False)
            read = frozenset(wanted)
    columns = [Column(**c) for c in data["subcorpora"]]
    if sort not in sort_columns([c.slug for c in columns]):
        raise BoardQueryError(
            f"unknown sort column {sort!r}: expected avg.f1, <sub-corpus>.recall|precision|f1, "
            "team or submitted"
        )
    available = [c.slug for c in columns if c.available]
    tracks = (
        [TrackTab(slug, name) for slug, name in record.tracks]
        if record is not None
        else [TrackTab(t.slug, t.name) for t in phase.task.tracks.all()]
    )
    if tracks:
        named = track_named(tracks=tracks, label=track or tracks[0].slug)
        if named is None:
            raise BoardQueryError(
                f"unknown track {track!r}: expected one of {', '.join(t.name for t in tracks)}"
            )
        track = named.slug
        data = {
            **data,
            "entries": [e for e in data["entries"] if e.get("track") == track or e["is_baseline"]],
        }
    else:
        track = None

    entries = _entries(data, mode=mode, metric=metric, primary=primary)
    entries = _visible_entries(entries, phase=phase, viewer=viewer, visibility=visibility)
    if not runs:
        shown = select_team_entries(entries, counts=counts, available=available, missing=missing)
        if visibility is Visibility.ALL:
            shown += [e for e in entries if e.disqualified and not e.is_baseline]
    else:
        shown = entries
    averaged = averaged_datasets(
        phase=phase,
        mode=mode,
        available=available,
        without=record.without_empty_nodes if record is not None else None,
    )
    if unmeasured := set(available) - set(averaged):
        shown, columns = _unmeasured(shown, columns, unmeasured)
    rows = rank_rows(shown, available=averaged, sort=sort, descending=descending, missing=missing)
    if visibility is Visibility.OWN or _published_ranking(
        phase, mode=mode, metric=metric, track=track, record=record
    ):
        # (published per-dataset figures beside an official ranking of averages: not ranked)
        rows = [
            replace(r, rank=None) if visibility is Visibility.OWN or r.entry.is_reference else r
            for r in rows
        ]
    board = Board(
        phase=phase,
        mode=mode,
        metric=metric,
        metrics=metrics,
        modes=modes,
        columns=columns,
        rows=rows,
        runs=runs,
        sort=sort,
        descending=descending,
        visibility=visibility,
        snapshot=frozen if use_snapshot else None,
        frozen=frozen,
        tracks=tracks,
        track=track,
        versions=_versions(data, {row.entry.submission_id for row in rows}),
        material={e["submission_id"]: e["scores"] for e in data["entries"]},
        current_runs={e["submission_id"]: e["run"] for e in data["entries"] if e.get("run")},
        material_pairs=read,
        procedure=record.procedure if record is not None else phase.task.procedure,
        record=record,
        missing=missing,
        counts=counts,
        procedures={e["submission_id"]: e.get("procedure") or "" for e in data["entries"]},
        scorer_versions={
            e["submission_id"]: e.get("scorer_version") or "" for e in data["entries"]
        },
    )
    if groups and visibility in (Visibility.ALL, Visibility.PUBLIC):
        markers = board_tied_groups(board)
        if markers:
            board = replace(
                board,
                rows=[replace(r, group=markers.get(r.entry.submission_id)) for r in rows],
                groups=markers,
                group_samples=GROUP_SAMPLES,
            )
    try:
        shown_rows, cards = board_cards(phase=phase, rows=board.rows, card=card, record=record)
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


def snapshot_board_material(*, phase: Phase) -> dict:
    """All scores of every mode and metric: what `BoardSnapshot.data` holds. Beside each
    entry's procedure and scorer version, the key file it was scored against (``keys``:
    sub-corpus slug → SHA-256 of the gold key file, from its scoring run), the phase's own
    key digests (``key_digests``: file and normalised content SHA-256 of each dataset's key)
    and the record's other parts (`leaderboard.selectors.record`: tracks, rules, variants,
    system cards, published averages, the runs that count), so that everything a frozen
    board shows is read from it and nothing that can change later."""
    material = board_material(phase=phase)
    slugs = dict(phase.subcorpora.values_list("pk", "slug"))
    runs = [e["run"] for e in material.get("entries", []) if e.get("run")]
    keys = dict(ScoringRun.objects.filter(pk__in=runs).values_list("pk", "keys"))
    for entry in material.get("entries", []):
        entry["keys"] = {
            slugs.get(int(k), str(k)): sha for k, sha in (keys.get(entry.get("run")) or {}).items()
        }
    material["key_digests"] = {
        slug: {"file_sha256": sha or None, "content_sha256": content or None}
        for slug, content, sha in phase.subcorpora.values_list("slug", "content_sha256", "sha256")
    }
    return material


# --- tied groups ------------------------------------------------------------------------------


def board_tied_groups(board: Board) -> dict[int, str]:
    """Group markers of the ranked rows (rank order): rank neighbours not significantly
    different at 0.05 share a marker. Empty when per-document counts are not available.

    Each neighbour pair's p-value is kept, keyed by both runs' current scorings, in one cache
    entry per phase and column (a board of a thousand runs has a thousand pairs: one entry
    each would be evicted by a small cache before the next request), so a new submission costs
    the tests of its own two new pairs, not the whole board's.
    """
    ranked = sorted((r for r in board.rows if r.rank is not None), key=lambda r: r.rank or 0)
    if len(ranked) < 2:
        return {}
    rank_column = board.sort if board.sort.partition(".")[2] else f"{AVERAGE}.f1"
    if not rank_column.endswith(".f1"):
        return {}  # the test is on F1: ranks by recall or precision get no groups
    subcorpora = (
        board.available
        if rank_column.startswith(f"{AVERAGE}.")
        else [rank_column.partition(".")[0]]
    )
    ids = [r.entry.submission_id for r in ranked]
    current = board.current_runs
    if current is None or any(sid not in current for sid in ids):
        current = dict(
            ScoringRun.objects.filter(submission_id__in=ids, is_current=True).values_list(
                "submission_id", "id"
            )
        )
    fingerprint = repr(
        (board.phase.pk, board.mode, board.metric, subcorpora, GROUP_SAMPLES, GROUP_SEED)
    )
    cache_key = "leaderboard:pairs:" + hashlib.sha256(fingerprint.encode()).hexdigest()
    keys = [(a, current.get(a), b, current.get(b)) for a, b in zip(ids, ids[1:])]
    known: dict = cache.get(cache_key) or {}
    p_values = {k: known[k] for k in keys if k in known}
    missing = [k for k in keys if k not in p_values]
    if missing:
        needed = sorted({sid for a, _, b, _ in missing for sid in (a, b)})
        found = document_counts(
            submission_ids=needed,
            mode=board.mode,
            metric=board.metric,
            # a frozen board tests the scorings it froze, whatever was scored since
            run_ids=[current[sid] for sid in needed if sid in current] if board.snapshot else None,
        )
        if found is None:
            return {}
        counts, score = found
        for k in missing:
            a, _, b, _ = k
            result = compare_counts(
                counts.get(a, {}),
                counts.get(b, {}),
                score=score,
                subcorpora=subcorpora,
                samples=GROUP_SAMPLES,
                seed=GROUP_SEED,
            )
            if result is None:
                return {}
            p_values[k] = result.p_value
        # Keep what other views of the column (teams, all runs) tested too, newest last.
        kept = {k: v for k, v in known.items() if k not in p_values}
        kept.update(p_values)
        cache.set(cache_key, dict(list(kept.items())[-PAIRS_KEPT:]), timeout=7 * 24 * 3600)
    markers = significance.tied_groups([p_values[k] for k in keys])
    return dict(zip(ids, markers))


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


# --- the runs that count ----------------------------------------------------------------------


@dataclass(frozen=True)
class OrganizeScore:
    """A run's primary score as the organize page lists it: the macro-average F1 over the
    phase's available datasets (None while some are missing) and how many it has."""

    average: float | None
    scored: int
    datasets: int


def phase_run_scores(*, phase: Phase, submission_ids) -> dict[int, OrganizeScore]:
    """The current primary scores of these runs of ``phase`` (task mode, whole datasets), for
    the organizers, whatever the board shows to others."""
    available = list(phase.subcorpora.filter(available=True).values_list("pk", flat=True))
    f1s: dict[int, dict[int, float]] = {}
    for sid, subcorpus, f1 in Score.objects.filter(
        submission_id__in=list(submission_ids),
        run__is_current=True,
        mode=TASK_MODE,
        metric=phase.task.primary_metric,
        document="",
        subcorpus_id__in=available,
    ).values_list("submission_id", "subcorpus_id", "f1"):
        f1s.setdefault(sid, {})[subcorpus] = f1
    return {
        sid: OrganizeScore(
            average=(
                sum(cells.values()) / len(available)
                if available and len(cells) == len(available)
                else None
            ),
            scored=len(cells),
            datasets=len(available),
        )
        for sid, cells in f1s.items()
    }


def final_run_ids(data: dict, *, phase: Phase) -> list[int]:
    """The runs of a board's material that count for each team under the phase rule (no
    baselines, none disqualified); in a task with tracks, per track."""
    primary = phase.task.primary_metric
    available = [c["slug"] for c in data["subcorpora"] if c["available"]]
    entries = _entries(data, mode=TASK_MODE, metric=primary, primary=primary)
    # Each track ranks on its own board: a team's final run is chosen per track.
    track_of = {e["submission_id"]: e.get("track") for e in data["entries"]}
    by_track: dict[str | None, list] = {}
    for entry in entries:
        by_track.setdefault(track_of[entry.submission_id], []).append(entry)
    return [
        e.submission_id
        for runs in by_track.values()
        for e in select_team_entries(
            runs, counts=phase.counts, available=available, missing=phase.missing
        )
        if not e.is_baseline
    ]


def phase_final_submissions(*, phase: Phase) -> list[Submission]:
    """The runs that count for each team under the phase rule (no baselines, none
    disqualified), for the organizers' download of all final submissions: on a frozen
    board, those that counted at the freeze."""
    record = active_record(phase=phase)
    if record is not None:
        ids = list(record.final_runs)
    else:
        data = board_material(phase=phase, modes=[TASK_MODE], metrics=[phase.task.primary_metric])
        ids = final_run_ids(data, phase=phase)
    return list(
        Submission.objects.filter(pk__in=ids)
        .select_related("team", "track")
        .prefetch_related("files__subcorpus")
        .order_by("team__name", "track__order", "id")
    )


@dataclass(frozen=True)
class FinalRun:
    """A run that counts, as the final-runs export lists it: from the frozen record when the
    board is frozen (its team name, scores and card as they stood), else as it is now."""

    submission: Submission
    team: str
    track: str
    run_name: str
    scores: dict
    """{mode: {metric: {sub-corpus slug: [recall, precision, f1]}}}: every measure stored."""
    card: dict[str, str]


@dataclass(frozen=True)
class FinalRuns:
    runs: list[FinalRun]
    questions: list[str]
    """The competition's system-card questions (slugs, in order)."""
    subcorpora: list[str]
    primary_metric: str


def phase_final_runs(*, phase: Phase) -> FinalRuns:
    """The runs that count for each team (`phase_final_submissions`) with what the export
    writes of them; on a frozen board, all of it from the snapshot."""
    frozen = active_snapshot(phase=phase)
    record = FrozenRecord.of(snapshot_data(frozen)) if frozen is not None else None
    if frozen is not None and record is not None:
        data = snapshot_data(frozen)
        questions = [q.slug for q in record.questions]
        answers = record.answers
    else:
        data = board_material(phase=phase)
        questions = [q.slug for q in phase.task.competition.card_questions.all()]
        answers = _all_answers(phase) if questions else {}
    by_id = {e["submission_id"]: e for e in data["entries"]}
    runs = []
    for submission in phase_final_submissions(phase=phase):
        entry = by_id.get(submission.pk, {})
        runs.append(
            FinalRun(
                submission=submission,
                team=entry.get("team", submission.team.name),
                track=entry.get("track") or "",
                run_name=entry.get("run_name", submission.run_name),
                scores=entry.get("scores", {}),
                card=answers.get(submission.pk, {}),
            )
        )
    if record is not None:  # in the order of the names and tracks of the freeze
        tracks = [slug for slug, _ in record.tracks]
        runs.sort(
            key=lambda r: (
                r.team,
                tracks.index(r.track) if r.track in tracks else -1,
                r.submission.pk,
            )
        )
    return FinalRuns(
        runs=runs,
        questions=questions,
        subcorpora=[c["slug"] for c in data["subcorpora"]],
        primary_metric=data.get("primary_metric") or phase.task.primary_metric,
    )


def _all_answers(phase: Phase) -> dict[int, dict[str, str]]:
    from competition.models import SystemCardAnswer

    answers: dict[int, dict[str, str]] = {}
    for sid, slug, value in SystemCardAnswer.objects.filter(submission__phase=phase).values_list(
        "submission_id", "question__slug", "value"
    ):
        answers.setdefault(sid, {})[slug] = value
    return answers
