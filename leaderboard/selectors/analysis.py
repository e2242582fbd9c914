"""One run, or two: every stored score of a submission's current scoring (the analysis
page), and a paired significance test of two runs of a phase (the comparison page)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from competition.models import Phase, Score, Submission
from competition.selectors import nothing_to_score
from competition.visibility import submission_details_visible
from leaderboard import significance
from leaderboard.ranking import AVERAGE, macro_average
from leaderboard.ranking import Score as Cell
from leaderboard.selectors.averaged import averaged_datasets
from leaderboard.selectors.boards import Column, ordered_modes, subcorpus_columns
from leaderboard.selectors.breakdowns import (
    Breakdown,
    analysis_of,
    breakdown_sizes,
    run_breakdowns,
)
from leaderboard.selectors.counts import compare_counts, document_counts
from scoring.vocabulary import EMPTY_NODES, metric_label, ordered_metrics

TASK_MODE = Score.TASK_MODE


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
    breakdowns: list[Breakdown] = field(default_factory=list)
    analysis_lines: list[MetricLine] = field(default_factory=list)
    """The lines of the analysis modes (entity range …), which `breakdowns` shows."""

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

    @property
    def empty_nodes(self) -> bool:
        """Whether the run has the empty-node measures (CRAC 2026), averaged by their rule."""
        return any(line.mode == EMPTY_NODES for line in self.lines)

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
    if not submission_details_visible(submission=submission, user=viewer):
        return None
    phase = submission.phase
    primary = phase.task.primary_metric
    columns = [Column(**c) for c in subcorpus_columns(phase)]
    available = [c.slug for c in columns if c.available]
    scores = _run_scores(submission)
    lines, breakdown_lines = _metric_lines(
        scores, phase=phase, available=available, primary=primary
    )
    doc_rows = scores.documents
    document_metric = (
        document_metric
        if document_metric in doc_rows
        else (primary if primary in doc_rows else next(iter(sorted(doc_rows)), primary))
    )
    order = {slug: i for i, slug in enumerate(c.slug for c in columns)}
    documents = sorted(
        doc_rows.get(document_metric, []), key=lambda d: (order.get(d.subcorpus, 99), d.document)
    )
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
        breakdowns=run_breakdowns(
            breakdown_lines,
            sizes=breakdown_sizes(
                submission=submission, modes={line.mode for line in breakdown_lines}
            ),
        ),
        analysis_lines=breakdown_lines,
    )


@dataclass(frozen=True)
class _RunScores:
    """The stored scores of a run's current scoring."""

    cells: dict[tuple[str, str], dict[str, Cell]]
    """Whole sub-corpora: {(mode, metric): {sub-corpus slug: cell}}."""
    counts: dict[tuple[str, str], list]
    """The stored counts of each (mode, metric), one per sub-corpus."""
    documents: dict[str, list[DocumentLine]]
    """The task mode's per-document scores, by metric."""


def _run_scores(submission: Submission) -> _RunScores:
    """Every score row of the submission's current scoring, sorted by what it scores."""
    rows = Score.objects.filter(submission=submission, run__is_current=True).values_list(
        "mode", "metric", "subcorpus__slug", "document", "recall", "precision", "f1", "counts"
    )
    sub_rows: dict[tuple[str, str], dict[str, Cell]] = defaultdict(dict)
    sub_counts: dict[tuple[str, str], list] = defaultdict(list)
    doc_rows: dict[str, list[DocumentLine]] = defaultdict(list)
    for mode, metric, slug, document, r, p, f, counts in rows:
        if document:
            if mode == TASK_MODE:
                doc_rows[metric].append(DocumentLine(slug, document, r, p, f))
        else:
            sub_rows[(mode, metric)][slug] = Cell(r, p, f)
            sub_counts[(mode, metric)].append(counts)
    return _RunScores(cells=sub_rows, counts=sub_counts, documents=doc_rows)


def _metric_lines(
    scores: _RunScores, *, phase: Phase, available: list[str], primary: str
) -> tuple[list[MetricLine], list[MetricLine]]:
    """The metrics table's lines, mode by mode, and those of the analysis modes (entity range
    …, shown as breakdowns); each averaged over the datasets its mode averages."""
    sub_rows, sub_counts = scores.cells, scores.counts
    lines: list[MetricLine] = []
    breakdown_lines: list[MetricLine] = []
    for mode in ordered_modes(m for m, _ in sub_rows):
        # (the empty-node measures: over the datasets whose key has empty nodes, "—" elsewhere)
        averaged = averaged_datasets(phase=phase, mode=mode, available=available)
        for metric in ordered_metrics((m for md, m in sub_rows if md == mode), primary):
            if nothing_to_score(metric, sub_counts[(mode, metric)]):
                continue  # the zeros' row of data without zeros
            cells = sub_rows[(mode, metric)]
            if len(averaged) < len(available):
                cells = {slug: cell for slug, cell in cells.items() if slug in averaged}
            average = macro_average(cells, averaged) if averaged else None
            line = MetricLine(mode, metric, cells, average)
            (breakdown_lines if analysis_of(mode) else lines).append(line)
    return lines, breakdown_lines


@dataclass(frozen=True)
class PairedResult:
    subcorpus: str  # slug, or "avg" for the macro-average over available sub-corpora
    name: str
    comparison: significance.Comparison | None


def submission_compare(
    *,
    a: Submission,
    b: Submission,
    viewer,
    metric: str | None = None,
    mode: str = TASK_MODE,
    samples: int = significance.DEFAULT_SAMPLES,
    seed: int = significance.DEFAULT_SEED,
) -> list[PairedResult] | None:
    """Paired approximate randomization of two runs of one phase, per sub-corpus and on the
    macro-average; None if the viewer may not see both or they are of different phases."""
    if a.phase_id != b.phase_id:
        return None
    for s in (a, b):
        if s.status != Submission.Status.SCORED or not submission_details_visible(
            submission=s, user=viewer
        ):
            return None
    metric = metric or a.phase.task.primary_metric
    columns = [Column(**c) for c in subcorpus_columns(a.phase)]
    available = [c.slug for c in columns if c.available]
    found = document_counts(submission_ids=[a.pk, b.pk], mode=mode, metric=metric)
    results = []
    for column in [c for c in columns if c.available]:
        comparison = None
        if found is not None:
            counts, score = found
            comparison = compare_counts(
                counts.get(a.pk, {}),
                counts.get(b.pk, {}),
                score=score,
                subcorpora=[column.slug],
                samples=samples,
                seed=seed,
            )
        results.append(PairedResult(column.slug, column.name, comparison))
    overall = None
    if found is not None:
        counts, score = found
        overall = compare_counts(
            counts.get(a.pk, {}),
            counts.get(b.pk, {}),
            score=score,
            subcorpora=available,
            samples=samples,
            seed=seed,
        )
    results.append(PairedResult(AVERAGE, "Macro-average", overall))
    return results
