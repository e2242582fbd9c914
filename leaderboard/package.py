"""The results package of a phase for an overview paper: per track and variant (mode), the
ranked runs with their score per dataset and macro-average and, in the ranking's own table
(the task's mode), a bootstrap 95 % confidence interval of each macro-average and the
paired significance of each run against the next one down, as CSV and as a LaTeX (booktabs)
table, in one zip, with the phase's participation figures.

Built from what `leaderboard_board` shows the viewer (so nothing hidden from them is in it),
and from the per-document counts of each run's scoring (`document_counts`; on a frozen board
the scorings it froze, else the current ones): the
interval resamples documents within datasets (`significance.bootstrap_interval`), the test is
the board's own stratified approximate randomization (`compare_counts`), its swaps and the
bootstrap's draws drawn once per table and reused by every run (`leaderboard.significance`:
the same numbers as drawing them for each). A run without
per-document counts for every dataset of the board (a published result, a run that skipped a
dataset) gets no interval and no test: the cells stay empty rather than guessed.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from django.utils.text import slugify

from competition.models import Phase
from leaderboard import participation, significance
from leaderboard.exports import csv_safe, rows_csv
from leaderboard.participation import participation_figures
from leaderboard.selectors import Board, leaderboard_board
from leaderboard.selectors.boards import active_record
from leaderboard.selectors.counts import compare_counts, document_counts
from scoring.procedures import PROCEDURES, TASK_MODE
from scoring.vocabulary import EMPTY_NODES, metric_label

Progress = Callable[[int, int], None]
"""Told (steps done, steps in all) while a package is built."""

BOOTSTRAP_SAMPLES = 1000
TEST_SAMPLES = 10_000


@dataclass(frozen=True, slots=True)
class PackageTable:
    """One ranked table: a phase's board in one track, mode and metric."""

    name: str  # file stem inside the zip, e.g. "llm/task" or "empty-nodes/ARC"
    caption: str
    label: str  # the LaTeX \\label, e.g. "tab:crac-2026-coreference-test-llm-task"
    datasets: list[str]  # sub-corpus slugs, in board order
    frame: pd.DataFrame
    cards: list[str] = field(default_factory=list)  # system-card columns ("card.<slug>")
    languages: dict[str, str] = field(default_factory=dict)  # dataset slug → language


def _board_table(
    board: Board,
    *,
    name: str,
    caption: str,
    samples: int,
    test_samples: int,
    seed: int,
    tests: bool = True,
) -> PackageTable:
    datasets = [c.slug for c in board.columns if c.available]
    counts, score = _board_counts(board) if tests else ({}, None)
    cards = [f"card.{q.slug}" for q in board.cards.columns]
    records = []
    for i, row in enumerate(board.rows):
        below = board.rows[i + 1].entry.submission_id if i + 1 < len(board.rows) else None
        record = _scores_record(row, datasets=datasets)
        record.update(
            _statistics_record(
                counts.get(row.entry.submission_id, {}),
                counts.get(below) if below is not None else None,
                datasets=datasets,
                score=score,
                samples=samples,
                test_samples=test_samples,
                seed=seed,
            )
        )
        record.update(_about_record(board, row.entry.submission_id, cards=cards))
        record["source"] = row.entry.source
        records.append(record)
    frame = pd.DataFrame.from_records(records, columns=_columns(datasets, cards)).astype(
        {"rank": "Int64"}
    )
    return PackageTable(
        name=name,
        caption=caption,
        label="tab:" + slugify(f"{_where(board.phase)} {name}".replace("/", " ")),
        datasets=datasets,
        frame=frame,
        cards=cards,
        languages={c.slug: c.language for c in board.columns if c.language},
    )


def _board_counts(board: Board) -> tuple[dict, significance.ScoreFunction | None]:
    """The per-document counts of the board's runs and their score function: on a frozen
    board those of the scorings it froze (kept), not whatever was scored since."""
    ids = [row.entry.submission_id for row in board.rows]
    runs = board.current_runs or {}
    found = document_counts(
        submission_ids=ids,
        mode=board.mode,
        metric=board.metric,
        run_ids=[runs[sid] for sid in ids if sid in runs] if board.snapshot else None,
    )
    return found if found else ({}, None)


def _scores_record(row, *, datasets: list[str]) -> dict[str, object]:
    """A row's rank, run and scores: one per dataset, the datasets it has no score for
    (told apart from a score of 0) and the macro-average."""
    entry = row.entry
    record: dict[str, object] = {
        "rank": row.rank,
        "team": entry.team,
        "run_name": entry.run_name,
        "submission_id": entry.submission_id,
        "baseline": entry.is_baseline,
        "published": entry.is_reference,
    }
    for slug in datasets:
        value = entry.scores.get(slug)
        record[slug] = None if value is None else value.get("f1")
    record["skipped"] = " ".join(d for d in datasets if entry.scores.get(d) is None)
    record["average"] = None if row.average is None else row.average.get("f1")
    return record


def _statistics_record(
    mine, below, *, datasets, score, samples, test_samples, seed
) -> dict[str, float | None]:
    """A row's bootstrap interval and its test against the row below (``below``: that run's
    counts, None for the last row); empty without counts or a score function."""
    record: dict[str, float | None] = {"ci_low": None, "ci_high": None, "p_next": None}
    if score is None:
        return record
    record["ci_low"], record["ci_high"] = _interval(
        mine, datasets=datasets, score=score, samples=samples, seed=seed
    )
    if mine and below:
        test = compare_counts(
            mine, below, score=score, subcorpora=datasets, samples=test_samples, seed=seed
        )
        record["p_next"] = None if test is None else test.p_value
    return record


def _about_record(board: Board, submission_id: int, *, cards: list[str]) -> dict[str, str]:
    """A run's system-card answers, procedure and scorer version."""
    answers = board.cards.of(submission_id)
    record = {column: answers.get(column.removeprefix("card."), "") for column in cards}
    record["procedure"] = board.procedures.get(submission_id, "")
    record["scorer_version"] = board.scorer_versions.get(submission_id, "")
    return record


def _columns(datasets: list[str], cards: list[str]) -> list[str]:
    return [
        "rank",
        "team",
        "run_name",
        "submission_id",
        "baseline",
        "published",
        *datasets,
        "skipped",
        "average",
        "ci_low",
        "ci_high",
        "p_next",
        *cards,
        "procedure",
        "scorer_version",
        "source",
    ]


def _where(phase: Phase) -> str:
    return f"{phase.task.competition.slug} {phase.task.slug} {phase.slug}"


def _interval(mine, *, datasets, score, samples, seed) -> tuple[float | None, float | None]:
    """The bootstrap interval of a run's macro-average, when it has per-document counts in
    every dataset of the board (else none: not guessed)."""
    keys = sorted(k for k in mine if k[0] in datasets)
    if not keys or {k[0] for k in keys} != set(datasets):
        return None, None
    interval = significance.bootstrap_interval(
        np.array([mine[k] for k in keys]),
        score=score,
        strata=[datasets.index(k[0]) for k in keys],
        samples=samples,
        seed=seed,
    )
    return interval.low, interval.high


def _caption(board: Board, *, mode_label: str) -> str:
    """What a table is, in words: task, phase, track, variant, metric."""
    phase = board.phase
    parts = [phase.task.title, phase.title]
    if board.track:
        parts.append(f"track {board.track_name or board.track}")
    return (
        f"{', '.join(parts)}: {metric_label(board.metric)} F1 (%), {mode_label}, "
        f"ranked by the macro-average over the datasets"
    )


def package_tables(
    *,
    phase: Phase,
    viewer,
    samples: int = BOOTSTRAP_SAMPLES,
    test_samples: int = TEST_SAMPLES,
    seed: int = significance.DEFAULT_SEED,
    progress: Progress | None = None,
) -> list[PackageTable]:
    """Every track × mode table of ``phase`` as ``viewer`` may see it: the mode's ranking
    metric (the primary one), and for CRAC 2026's empty nodes one table per measure.
    ``progress`` is told (done, total) after each track × mode."""
    first = leaderboard_board(phase=phase, viewer=viewer)
    tracks: list[str | None] = [t.slug for t in first.tracks] or [None]
    found = PROCEDURES.get(first.procedure) if first.procedure else None
    tables = []
    steps = [(track, mode) for track in tracks for mode in first.modes]
    for step, (track, mode) in enumerate(steps, start=1):
        board = leaderboard_board(phase=phase, viewer=viewer, mode=mode, track=track)
        metrics = board.metrics if mode == EMPTY_NODES else [board.metric]
        for metric in metrics:
            if metric != board.metric:
                board = leaderboard_board(
                    phase=phase, viewer=viewer, mode=mode, metric=metric, track=track
                )
            stem = f"{mode}/{metric}" if mode == EMPTY_NODES else mode
            name = f"{track}/{stem}" if track else stem
            label = found.label(mode) if found else mode
            tables.append(
                _board_table(
                    board,
                    name=name,
                    caption=_caption(board, mode_label=label),
                    samples=samples,
                    test_samples=test_samples,
                    seed=seed,
                    # the ranking's own table: the variants print their scores only
                    tests=mode == TASK_MODE,
                )
            )
        if progress is not None:
            progress(step, len(steps))
    return tables


def table_csv(table: PackageTable) -> str:
    frame = table.frame.copy()
    for column in ("team", "run_name", "source"):
        frame[column] = frame[column].map(csv_safe)
    return frame.to_csv(index=False, float_format="%.10g")


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _pct(value) -> str:
    return "--" if value is None or pd.isna(value) else f"{100 * value:.2f}"


LATEX_DATASETS = 7
"""Dataset columns in one LaTeX table. A table with more datasets, or with its summary
columns (average, interval, test, system cards) too many beside them (`LATEX_COLUMNS`),
is split: the datasets in parts (cut between languages where the board groups its datasets
by language), then a part of its own for the summary, each fitting a page's width."""
LATEX_COLUMNS = 10
"""Data and summary columns a table keeps in one piece."""


def _parts(datasets: list[str], languages: dict[str, str]) -> list[list[str]]:
    """The datasets cut in consecutive parts of at most `LATEX_DATASETS`, cut between
    languages where a part can end at one."""
    parts: list[list[str]] = []
    current: list[str] = []
    for i, slug in enumerate(datasets):
        current.append(slug)
        rest = datasets[i + 1 :]
        language_ends = not rest or languages.get(rest[0], "") != languages.get(slug, "")
        if len(current) == LATEX_DATASETS or (
            language_ends and len(current) + _next_group(rest, languages) > LATEX_DATASETS
        ):
            parts.append(current)
            current = []
    if current:
        parts.append(current)
    return parts


def _next_group(rest: list[str], languages: dict[str, str]) -> int:
    if not rest:
        return 0
    first = languages.get(rest[0], "")
    size = 0
    for slug in rest:
        if languages.get(slug, "") != first:
            break
        size += 1
    return size


def table_latex(table: PackageTable) -> str:
    """A booktabs table: rank, system, one column per dataset, then the average, its 95 %
    CI, the p-value of the test against the next row down and the system-card columns;
    percent with two decimals, ``--`` where a run has no score (a skipped dataset, never
    shown as 0). Split in parts where it would not fit a page (`LATEX_DATASETS`)."""
    summary = 3 + len(table.cards)
    if len(table.datasets) <= LATEX_DATASETS and len(table.datasets) + summary <= LATEX_COLUMNS:
        parts: list[tuple[list[str], bool]] = [(table.datasets, True)]
    else:
        parts = [(part, False) for part in _parts(table.datasets, table.languages)]
        parts.append(([], True))
    out = []
    for index, (datasets, last) in enumerate(parts):
        suffix = "" if len(parts) == 1 else f" (part {index + 1} of {len(parts)})"
        label = table.label if len(parts) == 1 else f"{table.label}-{index + 1}"
        out.append(_latex_part(table, datasets, last=last, suffix=suffix, label=label))
    return "\n".join(out)


def _dataset_head(slug: str) -> str:
    """A dataset's column head, turned upright (``graphicx``): a CorefUD name such as
    ``no_bokmaalnarc`` is wider than its numbers."""
    return f"\\rotatebox{{90}}{{{latex_escape(slug)}}}"


def _latex_part(table: PackageTable, datasets: list[str], *, last: bool, suffix: str, label: str):
    cards = table.cards if last else []
    head = ["\\#", "System", *[_dataset_head(d) for d in datasets]]
    if last:
        head += ["Avg.", "95\\% CI", "$p$"]
    head += [latex_escape(c.removeprefix("card.")) for c in cards]
    columns = "rl" + "r" * (len(head) - 2 - len(cards)) + "p{5em}" * len(cards)
    lines = [
        "\\begin{table}",
        "\\centering",
        "\\footnotesize",
        "\\setlength{\\tabcolsep}{3pt}",
        f"\\caption{{{latex_escape(table.caption + suffix)}. -- : no score.}}",
        f"\\label{{{label}}}",
        f"\\begin{{tabular}}{{{columns}}}",
        "\\toprule",
        " & ".join(head) + " \\\\",
        "\\midrule",
    ]
    for rec in table.frame.to_dict(orient="records"):
        rank = "" if pd.isna(rec["rank"]) else str(rec["rank"])
        system = latex_escape(rec["team"] + (f" ({rec['run_name']})" if rec["run_name"] else ""))
        cells = [rank, system, *[_pct(rec[d]) for d in datasets]]
        if last:
            ci = (
                "--"
                if rec["ci_low"] is None or pd.isna(rec["ci_low"])
                else f"[{_pct(rec['ci_low'])}, {_pct(rec['ci_high'])}]"
            )
            p = "--" if rec["p_next"] is None or pd.isna(rec["p_next"]) else f"{rec['p_next']:.3f}"
            cells += [_pct(rec["average"]), ci, p]
        cells += [latex_escape(rec[c] or "") for c in cards]
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}", ""]
    return "\n".join(lines)


def phase_results_package(
    *,
    phase: Phase,
    viewer,
    samples: int = BOOTSTRAP_SAMPLES,
    test_samples: int = TEST_SAMPLES,
    seed: int = significance.DEFAULT_SEED,
    progress: Progress | None = None,
) -> bytes:
    """The zip: ``<track>/<mode>.csv`` and ``.tex`` per table (no track folder in a task
    without tracks), the participation figures and a README naming the seed and sample
    counts."""
    buffer = io.BytesIO()
    tables = package_tables(
        phase=phase,
        viewer=viewer,
        samples=samples,
        test_samples=test_samples,
        seed=seed,
        progress=progress,
    )
    record = active_record(phase=phase)
    figures = (
        record.participation
        if record is not None and record.participation is not None
        else participation_figures(phase=phase)
    )
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for table in tables:
            archive.writestr(f"{table.name}.csv", table_csv(table))
            archive.writestr(f"{table.name}.tex", table_latex(table))
        archive.writestr("participation/summary.csv", rows_csv(participation.summary_rows(figures)))
        archive.writestr(
            "participation/runs-per-team.csv", rows_csv(participation.runs_rows(figures))
        )
        archive.writestr(
            "participation/submissions-by-day.csv", rows_csv(participation.days_rows(figures))
        )
        archive.writestr("participation/submissions-by-day.svg", participation.days_svg(figures))
        archive.writestr(
            "README.txt", _readme(phase, samples=samples, test_samples=test_samples, seed=seed)
        )
    return buffer.getvalue()


def _readme(phase: Phase, *, samples: int, test_samples: int, seed: int) -> str:
    return (
        f"Results of {phase.task.competition.slug} / {phase.task.slug} / {phase.slug}.\n"
        "One table per track and variant (mode): <track>/<mode>.csv and .tex; CRAC 2026's\n"
        "empty nodes one table per measure (empty-nodes/<measure>.csv and .tex).\n"
        "Scores are F1 fractions in the CSV files and percent in the LaTeX tables.\n"
        "A dataset a run has no score for is an empty cell in the CSV (named in its\n"
        "'skipped' column) and '--' in LaTeX, never 0.\n"
        f"ci_low, ci_high: percentile bootstrap ({samples} samples, seed {seed}) of the "
        "macro-average, documents resampled within datasets; in the ranking's own tables\n"
        "(the task's mode), empty in the variant and empty-node tables.\n"
        f"p_next: paired approximate randomization against the next row "
        f"({test_samples} samples, seed {seed}), stratified by dataset:\n"
        "p = (hits + 1) / (samples + 1), hits the samples whose |difference| of the\n"
        "macro-averages, with each document's pair of counts swapped at random within its\n"
        "dataset, is at least the observed one. Every pair of a table uses the same\n"
        "swaps (the seed's), as does every run's bootstrap its draws.\n"
        "A frozen board's tables show its frozen numbers, and its intervals and tests are\n"
        "computed from the scorings it froze.\n"
        "\n"
        "LaTeX: each .tex file is a table environment to \\input in a paper; it needs\n"
        "\\usepackage{booktabs} and \\usepackage{graphicx} (dataset heads are turned\n"
        "upright) in the preamble. Each table has a \\caption and a \\label\n"
        "(tab:<competition>-<task>-<phase>-<track>-<mode>); a table of more than "
        f"{LATEX_DATASETS} datasets is split\n"
        "in parts (labels ending -1, -2, ...), cut between languages where it can, the\n"
        "average, interval, test and system cards in the last part.\n"
        "\n"
        "participation/: registered, approved and submitting teams (summary.csv), runs per\n"
        "team and track (runs-per-team.csv), submissions per day (submissions-by-day.csv\n"
        "and .svg); organizer teams, baselines and published results are not counted. On a\n"
        "frozen board, as they were at the freeze.\n"
    )
