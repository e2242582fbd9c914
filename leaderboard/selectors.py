"""Reads behind every leaderboard view: boards, predicted-vs-gold, analysis, comparisons.

The HTML pages, the JSON API and the CSV/JSON exports all call these functions, so the
visibility rules live here and only here:

- organizers of the competition (and staff) see everything, disqualified runs included, and the
  live board even when it is frozen;
- everyone else sees a hidden phase's board empty until it is revealed, except their own team's
  runs when the phase says ``show_own_scores_when_hidden`` (then without ranks, which would
  reveal other teams' results); disqualified runs are left out;
- a frozen board (the newest active `BoardSnapshot`) is what non-organizers see.

Selectors only read. Ranking, averaging and significance are pure modules (`ranking`,
`significance`); this module turns score rows into their inputs.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import Enum

import numpy as np
from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from competition.models import (
    Membership,
    Phase,
    Score,
    ScoringRun,
    SubCorpus,
    Submission,
    Task,
)
from competition.selectors import user_is_organizer
from leaderboard import significance
from leaderboard.models import BoardSnapshot
from leaderboard.ranking import (
    AVERAGE,
    Entry,
    GapRow,
    Row,
    macro_average,
    predicted_vs_gold,
    rank_rows,
    select_team_entries,
    sort_columns,
)
from leaderboard.ranking import Score as Cell

TASK_MODE = Score.TASK_MODE

METRIC_ORDER = (
    "conll", "muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mention",
    "non_referring", "bridging_entity", "bridging_mention", "bridging_ar",
)
METRIC_LABELS = {
    "conll": "CoNLL",
    "muc": "MUC",
    "bcub": "B³",
    "ceafe": "CEAFe",
    "ceafm": "CEAFm",
    "blanc": "BLANC",
    "lea": "LEA",
    "mention": "Mentions",
    "non_referring": "Non-referring",
    "bridging_entity": "Bridging (entity)",
    "bridging_mention": "Bridging (mention)",
    "bridging_ar": "Bridging (anaphor recognition)",
}
CONLL_PARTS = ("muc", "bcub", "ceafe")
GROUP_SAMPLES = 1000
GROUP_SEED = significance.DEFAULT_SEED


class BoardQueryError(ValueError):
    """A board was asked for with a parameter that does not exist (unknown metric, column)."""


class Visibility(str, Enum):
    ALL = "all"  # organizers: everything, disqualified runs included
    PUBLIC = "public"  # the board is public (or revealed)
    OWN = "own"  # hidden, but the viewer's team sees its own runs, unranked
    NONE = "none"  # hidden: nothing at all


def metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def viewer_is_organizer(*, competition, user) -> bool:
    """Staff, or an organizer of this competition (the competition app's one rule)."""
    return user_is_organizer(competition=competition, user=user)


def viewer_team_ids(*, competition, user) -> set[int]:
    if user is None or not user.is_authenticated:
        return set()
    return set(
        Membership.objects.filter(user=user, competition=competition).values_list(
            "team_id", flat=True
        )
    )


def phase_visibility(*, phase: Phase, user, at: datetime | None = None) -> Visibility:
    """What ``user`` may see of the scores of ``phase`` (the one rule for every read)."""
    competition = phase.task.competition
    if viewer_is_organizer(competition=competition, user=user):
        return Visibility.ALL
    if phase.leaderboard_is_public(at=at or timezone.now()):
        return Visibility.PUBLIC
    if phase.show_own_scores_when_hidden and viewer_team_ids(competition=competition,
                                                             user=user):
        return Visibility.OWN
    return Visibility.NONE


def submission_scores_visible(*, submission: Submission, user) -> bool:
    """Whether ``user`` may see the scores of one submission (analysis, API, exports)."""
    phase = submission.phase
    visibility = phase_visibility(phase=phase, user=user)
    if visibility is Visibility.ALL:
        return True
    if submission.disqualified and submission.team_id not in viewer_team_ids(
        competition=phase.task.competition, user=user
    ):
        return False
    if visibility is Visibility.PUBLIC:
        return True
    if visibility is Visibility.OWN:
        return submission.team_id in viewer_team_ids(
            competition=phase.task.competition, user=user
        )
    return False


# --- raw material: the same structure live and frozen ----------------------------------------


def _subcorpus_columns(phase: Phase) -> list[dict]:
    return [
        {"slug": s.slug, "name": s.name, "available": s.available}
        for s in SubCorpus.objects.filter(phase=phase).order_by("order", "id")
    ]


def board_material(
    *, phase: Phase, modes: Sequence[str] | None = None, metrics: Sequence[str] | None = None
) -> dict:
    """Every scored or failed run of the phase with its sub-corpus scores (current scoring run),
    as plain JSON-able data; ``modes``/``metrics`` limit which scores are read (None: all)."""
    submissions = (
        Submission.objects.filter(
            phase=phase, status__in=[Submission.Status.SCORED, Submission.Status.FAILED]
        )
        .order_by("created_at", "id")
        .values("id", "team_id", "team__name", "run_name", "created_at", "status",
                "is_baseline", "is_chosen", "disqualified", "scorer_version")
    )
    entries = {
        s["id"]: {
            "submission_id": s["id"],
            "team_id": s["team_id"],
            "team": s["team__name"],
            "run_name": s["run_name"],
            "submitted_at": s["created_at"].isoformat(),
            "status": s["status"],
            "is_baseline": s["is_baseline"],
            "is_chosen": s["is_chosen"],
            "disqualified": s["disqualified"],
            "scorer_version": s["scorer_version"],
            "scores": {},
        }
        for s in submissions
    }
    scores = Score.objects.filter(
        submission__phase=phase,
        submission__status=Submission.Status.SCORED,
        run__is_current=True,
        document="",
    )
    if modes is not None:
        scores = scores.filter(mode__in=list(modes))
    if metrics is not None:
        scores = scores.filter(metric__in=list(metrics))
    for sid, mode, metric, slug, r, p, f in scores.values_list(
        "submission_id", "mode", "metric", "subcorpus__slug", "recall", "precision", "f1"
    ):
        if sid in entries:
            entries[sid]["scores"].setdefault(mode, {}).setdefault(metric, {})[slug] = [r, p, f]
    return {
        "subcorpora": _subcorpus_columns(phase),
        "primary_metric": phase.task.primary_metric,
        "entries": list(entries.values()),
    }


def _stored_metrics(phase: Phase) -> dict[str, list[str]]:
    """{mode: metrics} stored by the current scorings of the phase's latest scored runs (all
    runs of a phase are scored with the same options; the latest show a new scorer's set)."""
    runs = list(
        ScoringRun.objects.filter(submission__phase=phase, is_current=True,
                                  submission__status=Submission.Status.SCORED)
        .order_by("-created_at", "-id").values_list("id", flat=True)[:5]
    )
    pairs = (
        Score.objects.filter(run_id__in=runs, document="").values_list("mode", "metric")
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


def ordered_metrics(metrics: Iterable[str], primary: str) -> list[str]:
    """The primary metric first, then the usual report order, then anything else by name."""
    metrics = set(metrics)
    rank = {m: i for i, m in enumerate(METRIC_ORDER)}
    rest = sorted(metrics - {primary}, key=lambda m: (rank.get(m, len(rank)), m))
    return ([primary] if primary in metrics else []) + rest


def ordered_modes(modes: Iterable[str]) -> list[str]:
    return sorted(set(modes), key=lambda m: (m != TASK_MODE, m))


def _cells(scores: dict, mode: str, metric: str) -> dict[str, Cell]:
    return {slug: Cell(*v) for slug, v in scores.get(mode, {}).get(metric, {}).items()}


def _entries(data: dict, *, mode: str, metric: str, primary: str) -> list[Entry]:
    out = []
    for e in data["entries"]:
        out.append(
            Entry(
                submission_id=e["submission_id"],
                team=e["team"],
                run_name=e["run_name"],
                submitted_at=parse_datetime(e["submitted_at"]),
                status=e["status"],
                is_baseline=e["is_baseline"],
                is_chosen=e["is_chosen"],
                disqualified=e["disqualified"],
                team_id=e["team_id"],
                scores=_cells(e["scores"], mode, metric),
                primary=_cells(e["scores"], TASK_MODE, primary),
            )
        )
    return out


# --- boards -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    slug: str
    name: str
    available: bool


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


def active_snapshot(*, phase: Phase) -> BoardSnapshot | None:
    return BoardSnapshot.objects.filter(phase=phase, active=True).order_by(
        "-created_at", "-id"
    ).first()


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
) -> Board:
    """The board of ``phase`` as ``viewer`` may see it.

    ``runs``: one row per run instead of one per team (the phase's counts rule). ``live``:
    organizers only, the live scores even if the board is frozen. ``groups``: mark statistically
    tied groups (paired approximate randomization between rank neighbours, on per-document
    counts). Unknown ``metric``, ``mode`` or ``sort`` raise `BoardQueryError`.
    """
    visibility = phase_visibility(phase=phase, user=viewer)
    primary = phase.task.primary_metric
    metric = metric or primary
    sort = sort or f"{AVERAGE}.f1"
    frozen = active_snapshot(phase=phase)
    use_snapshot = frozen is not None and not (live and visibility is Visibility.ALL)
    if use_snapshot:
        data = frozen.data
        stored = _material_metrics(data)
    else:
        stored = _stored_metrics(phase)
        data = None
    modes = ordered_modes(stored) or [TASK_MODE]
    if mode not in modes:
        raise BoardQueryError(f"unknown mode {mode!r}: expected one of {', '.join(modes)}")
    metrics = ordered_metrics(stored.get(mode, []), primary) or [primary]
    if metric not in metrics:
        raise BoardQueryError(
            f"unknown metric {metric!r}: expected one of {', '.join(metrics)}"
        )
    if data is None:
        if visibility is Visibility.NONE:
            data = {"subcorpora": _subcorpus_columns(phase), "entries": []}
        else:
            data = board_material(phase=phase, modes=[mode, TASK_MODE],
                                  metrics=[metric, primary])
    columns = [Column(**c) for c in data["subcorpora"]]
    if sort not in sort_columns([c.slug for c in columns]):
        raise BoardQueryError(
            f"unknown sort column {sort!r}: expected avg.f1, <sub-corpus>.recall|precision|f1, "
            "team or submitted"
        )
    available = [c.slug for c in columns if c.available]

    entries = _entries(data, mode=mode, metric=metric, primary=primary)
    entries = _visible_entries(entries, phase=phase, viewer=viewer, visibility=visibility)
    if not runs:
        shown = select_team_entries(entries, counts=phase.counts, available=available)
        if visibility is Visibility.ALL:
            shown += [e for e in entries if e.disqualified and not e.is_baseline]
    else:
        shown = entries
    rows = rank_rows(shown, available=available, sort=sort, descending=descending)
    if visibility is Visibility.OWN:
        rows = [replace(r, rank=None) for r in rows]
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
    return board


def _visible_entries(entries: list[Entry], *, phase: Phase, viewer,
                     visibility: Visibility) -> list[Entry]:
    if visibility is Visibility.ALL:
        return entries
    if visibility is Visibility.NONE:
        return []
    entries = [e for e in entries if not e.disqualified]
    if visibility is Visibility.OWN:
        mine = viewer_team_ids(competition=phase.task.competition, user=viewer)
        return [e for e in entries if e.team_id in mine and not e.is_baseline]
    return entries


def snapshot_material(*, phase: Phase) -> dict:
    """All scores of every mode and metric: what `BoardSnapshot.data` holds."""
    return board_material(phase=phase)


# --- per-document counts and significance -------------------------------------------------------


def _count_vector(counts) -> tuple[list[float], significance.ScoreFunction] | None:
    """A flat counts vector and its score function, from a stored counts JSON value."""
    if isinstance(counts, dict):
        if {"p_num", "p_den", "r_num", "r_den"} <= counts.keys():
            return ([float(counts[k]) for k in ("p_num", "p_den", "r_num", "r_den")],
                    significance.prf_f1)
        if {"tp", "fp", "fn"} <= counts.keys():
            return [float(counts[k]) for k in ("tp", "fp", "fn")], significance.tp_f1
        for key in ("counts", "parts"):
            if key in counts:
                return _count_vector(counts[key])
        return None
    if isinstance(counts, list) and counts:
        parts = [_count_vector(c) for c in counts]
        if any(p is None for p in parts):
            return None
        vector = [x for p in parts for x in p[0]]
        return vector, significance.mean_of([(p[1], len(p[0])) for p in parts])
    return None


def document_counts(
    *, submission_ids: Sequence[int], mode: str, metric: str
) -> tuple[dict[int, dict[tuple[str, str], list[float]]], significance.ScoreFunction] | None:
    """Per-document count vectors of each submission, keyed by (sub-corpus slug, document).

    CoNLL has no counts of its own: it is the mean of the MUC, B³ and CEAFe F1s, so its vector
    concatenates theirs. Returns None when the counts are not stored in a known form.
    """
    parts = CONLL_PARTS if metric == "conll" else (metric,)
    rows = Score.objects.filter(
        submission_id__in=list(submission_ids), run__is_current=True, mode=mode,
        metric__in=parts,
    ).exclude(document="").values_list(
        "submission_id", "subcorpus__slug", "document", "metric", "counts"
    )
    raw: dict[int, dict[tuple[str, str], dict[str, object]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for sid, slug, document, m, counts in rows:
        raw[sid][(slug, document)][m] = counts
    score_fn = None
    out: dict[int, dict[tuple[str, str], list[float]]] = {}
    for sid, docs in raw.items():
        out[sid] = {}
        for key, by_metric in docs.items():
            if any(m not in by_metric for m in parts):
                continue
            converted = [_count_vector(by_metric[m]) for m in parts]
            if any(c is None for c in converted):
                return None
            out[sid][key] = [x for c in converted for x in c[0]]
            if score_fn is None:
                score_fn = (
                    converted[0][1] if len(parts) == 1
                    else significance.mean_of([(c[1], len(c[0])) for c in converted])
                )
    if score_fn is None:
        return None
    return out, score_fn


def compare_counts(
    a: dict[tuple[str, str], list[float]],
    b: dict[tuple[str, str], list[float]],
    *,
    score: significance.ScoreFunction,
    subcorpora: Sequence[str],
    samples: int,
    seed: int,
) -> significance.Comparison | None:
    """Stratified test over the documents both runs have in the given sub-corpora."""
    keys = sorted(k for k in a.keys() & b.keys() if k[0] in set(subcorpora))
    if not keys or {k[0] for k in keys} != set(subcorpora):
        return None
    strata = [subcorpora.index(k[0]) for k in keys]
    return significance.approximate_randomization(
        np.array([a[k] for k in keys]), np.array([b[k] for k in keys]), score=score,
        strata=strata, samples=samples, seed=seed,
    )


def board_tied_groups(board: Board) -> dict[int, str]:
    """Group markers of the ranked rows (rank order): rank neighbours not significantly
    different at 0.05 share a marker. Empty when per-document counts are not available.

    Each neighbour pair's p-value is cached, keyed by both runs' current scorings, so a new
    submission costs the tests of its own two new pairs, not the whole board's.
    """
    ranked = sorted((r for r in board.rows if r.rank is not None), key=lambda r: r.rank)
    if len(ranked) < 2:
        return {}
    rank_column = board.sort if board.sort.partition(".")[2] else f"{AVERAGE}.f1"
    if not rank_column.endswith(".f1"):
        return {}  # the test is on F1: ranks by recall or precision get no groups
    subcorpora = (board.available if rank_column.startswith(f"{AVERAGE}.")
                  else [rank_column.partition(".")[0]])
    ids = [r.entry.submission_id for r in ranked]
    current = dict(ScoringRun.objects.filter(submission_id__in=ids, is_current=True)
                   .values_list("submission_id", "id"))

    def key(a: int, b: int) -> str:
        fingerprint = repr((board.mode, board.metric, subcorpora, GROUP_SAMPLES, GROUP_SEED,
                            a, current.get(a), b, current.get(b)))
        return "leaderboard:pair:" + hashlib.sha256(fingerprint.encode()).hexdigest()

    pairs = list(zip(ids, ids[1:]))
    keys = [key(a, b) for a, b in pairs]
    p_values = cache.get_many(keys)
    missing = [(pair, k) for pair, k in zip(pairs, keys) if k not in p_values]
    if missing:
        needed = sorted({sid for pair, _ in missing for sid in pair})
        found = document_counts(submission_ids=needed, mode=board.mode, metric=board.metric)
        if found is None:
            return {}
        counts, score = found
        computed = {}
        for (a, b), k in missing:
            result = compare_counts(counts.get(a, {}), counts.get(b, {}), score=score,
                                    subcorpora=subcorpora, samples=GROUP_SAMPLES,
                                    seed=GROUP_SEED)
            if result is None:
                return {}
            computed[k] = result.p_value
        cache.set_many(computed, timeout=7 * 24 * 3600)
        p_values.update(computed)
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


# --- one submission -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricLine:
    mode: str
    metric: str
    cells: dict[str, Cell]
    average: Cell | None

    @property
    def label(self) -> str:
        return metric_label(self.metric)


@dataclass(frozen=True)
class DocumentLine:
    subcorpus: str
    document: str
    recall: float
    precision: float
    f1: float


@dataclass(frozen=True)
class Analysis:
    submission: Submission
    columns: list[Column]
    lines: list[MetricLine]
    documents: list[DocumentLine]
    document_metric: str
    primary: str
    scorer_version: str
    history: list[dict]

    @property
    def available_columns(self) -> list[Column]:
        return [c for c in self.columns if c.available]

    @property
    def table_width(self) -> int:
        """Columns of the metrics table: the metric, R/P/F1 per available sub-corpus and avg."""
        return 1 + 3 * (len(self.available_columns) + 1)

    @property
    def unavailable_columns(self) -> list[Column]:
        return [c for c in self.columns if not c.available]

    def line(self, metric: str, mode: str = TASK_MODE) -> MetricLine | None:
        for line in self.lines:
            if line.mode == mode and line.metric == metric:
                return line
        return None


def submission_analysis(
    *, submission: Submission, viewer, document_metric: str | None = None
) -> Analysis | None:
    """All stored metrics of a submission's current scoring run, per sub-corpus and mode, and
    its per-document scores of one metric; None if the viewer may not see its scores."""
    if submission.status != Submission.Status.SCORED:
        return None
    if not submission_scores_visible(submission=submission, user=viewer):
        return None
    phase = submission.phase
    primary = phase.task.primary_metric
    columns = [Column(**c) for c in _subcorpus_columns(phase)]
    available = [c.slug for c in columns if c.available]
    rows = Score.objects.filter(submission=submission, run__is_current=True).values_list(
        "mode", "metric", "subcorpus__slug", "document", "recall", "precision", "f1"
    )
    sub_rows: dict[tuple[str, str], dict[str, Cell]] = defaultdict(dict)
    doc_rows: dict[str, list[DocumentLine]] = defaultdict(list)
    for mode, metric, slug, document, r, p, f in rows:
        if document:
            if mode == TASK_MODE:
                doc_rows[metric].append(DocumentLine(slug, document, r, p, f))
        else:
            sub_rows[(mode, metric)][slug] = Cell(r, p, f)
    lines = []
    for mode in ordered_modes(m for m, _ in sub_rows):
        for metric in ordered_metrics((m for md, m in sub_rows if md == mode), primary):
            cells = sub_rows[(mode, metric)]
            lines.append(MetricLine(mode, metric, cells, macro_average(cells, available)))
    document_metric = document_metric if document_metric in doc_rows else (
        primary if primary in doc_rows else next(iter(sorted(doc_rows)), primary)
    )
    order = {slug: i for i, slug in enumerate(c.slug for c in columns)}
    documents = sorted(doc_rows.get(document_metric, []),
                       key=lambda d: (order.get(d.subcorpus, 99), d.document))
    history = list(
        submission.runs.order_by("-created_at", "-id").values(
            "id", "scorer_version", "created_at", "is_current", "options"
        )
    )
    return Analysis(
        submission=submission,
        columns=columns,
        lines=lines,
        documents=documents,
        document_metric=document_metric,
        primary=primary,
        scorer_version=submission.scorer_version,
        history=history,
    )


@dataclass(frozen=True)
class PairedResult:
    subcorpus: str  # slug, or "avg" for the macro-average over available sub-corpora
    name: str
    comparison: significance.Comparison | None


def submission_compare(
    *, a: Submission, b: Submission, viewer, metric: str | None = None, mode: str = TASK_MODE,
    samples: int = significance.DEFAULT_SAMPLES, seed: int = significance.DEFAULT_SEED,
) -> list[PairedResult] | None:
    """Paired approximate randomization of two runs of one phase, per sub-corpus and on the
    macro-average; None if the viewer may not see both or they are of different phases."""
    if a.phase_id != b.phase_id:
        return None
    for s in (a, b):
        if s.status != Submission.Status.SCORED or not submission_scores_visible(
            submission=s, user=viewer
        ):
            return None
    metric = metric or a.phase.task.primary_metric
    columns = [Column(**c) for c in _subcorpus_columns(a.phase)]
    available = [c.slug for c in columns if c.available]
    found = document_counts(submission_ids=[a.pk, b.pk], mode=mode, metric=metric)
    results = []
    for column in [c for c in columns if c.available]:
        comparison = None
        if found is not None:
            counts, score = found
            comparison = compare_counts(counts.get(a.pk, {}), counts.get(b.pk, {}), score=score,
                                        subcorpora=[column.slug], samples=samples, seed=seed)
        results.append(PairedResult(column.slug, column.name, comparison))
    overall = None
    if found is not None:
        counts, score = found
        overall = compare_counts(counts.get(a.pk, {}), counts.get(b.pk, {}), score=score,
                                 subcorpora=available, samples=samples, seed=seed)
    results.append(PairedResult(AVERAGE, "Macro-average", overall))
    return results


def phase_final_submissions(*, phase: Phase) -> list[Submission]:
    """The runs that count for each team under the phase rule (no baselines, none disqualified),
    for the organizers' download of all final submissions."""
    data = board_material(phase=phase, modes=[TASK_MODE], metrics=[phase.task.primary_metric])
    available = [c["slug"] for c in data["subcorpora"] if c["available"]]
    entries = _entries(data, mode=TASK_MODE, metric=phase.task.primary_metric,
                       primary=phase.task.primary_metric)
    chosen = select_team_entries(entries, counts=phase.counts, available=available)
    ids = [e.submission_id for e in chosen if not e.is_baseline]
    return list(Submission.objects.filter(pk__in=ids).select_related("team")
                .prefetch_related("files__subcorpus").order_by("team__name", "id"))


def visible_submissions(*, phase: Phase, viewer) -> Q:
    """Filter for the submissions whose scores ``viewer`` may read (used by the API lists)."""
    visibility = phase_visibility(phase=phase, user=viewer)
    if visibility is Visibility.ALL:
        return Q()
    mine = viewer_team_ids(competition=phase.task.competition, user=viewer)
    if visibility is Visibility.PUBLIC:
        return Q(disqualified=False) | Q(team_id__in=mine)
    if visibility is Visibility.OWN:
        return Q(team_id__in=mine)
    return Q(pk__in=[])
