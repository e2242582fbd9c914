"""The results package of a phase for an overview paper: per track and variant (mode), the
ranked runs with their score per dataset and macro-average, a bootstrap 95 % confidence
interval of each macro-average and the paired significance of each run against the next one
down, as CSV and as a LaTeX (booktabs) table, in one zip.

Built from what `leaderboard_board` shows the viewer (so nothing hidden from them is in it),
and from the per-document counts of each run's current scoring (`document_counts`): the
interval resamples documents within datasets (`significance.bootstrap_interval`), the test is
the board's own stratified approximate randomization (`compare_counts`). A run without
per-document counts for every dataset of the board (a published result, a run that skipped a
dataset) gets no interval and no test: the cells stay empty rather than guessed.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

import numpy as np
import pandas as pd

from competition.models import Phase, ScoringRun
from leaderboard import significance
from leaderboard.exports import csv_safe
from leaderboard.selectors import Board, leaderboard_board
from leaderboard.selectors.counts import compare_counts, document_counts

BOOTSTRAP_SAMPLES = 1000
TEST_SAMPLES = 10_000


@dataclass(frozen=True, slots=True)
class PackageTable:
    """One ranked table: a phase's board in one track and mode."""

    name: str  # file stem inside the zip, e.g. "llm/task"
    caption: str
    datasets: list[str]  # sub-corpus slugs, in board order
    frame: pd.DataFrame


def _board_table(
    board: Board, *, name: str, caption: str, samples: int, test_samples: int, seed: int
) -> PackageTable:
    datasets = [c.slug for c in board.columns if c.available]
    ids = [row.entry.submission_id for row in board.rows]
    found = document_counts(submission_ids=ids, mode=board.mode, metric=board.metric)
    counts, score = found if found else ({}, None)
    runs = {
        r.submission_id: r
        for r in ScoringRun.objects.filter(submission_id__in=ids, is_current=True)
    }
    records = []
    for i, row in enumerate(board.rows):
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
        record["average"] = None if row.average is None else row.average.get("f1")
        record["ci_low"] = record["ci_high"] = record["p_next"] = None
        mine = counts.get(entry.submission_id, {})
        keys = sorted(k for k in mine if k[0] in datasets)
        if score is not None and keys and {k[0] for k in keys} == set(datasets):
            interval = significance.bootstrap_interval(
                np.array([mine[k] for k in keys]),
                score=score,
                strata=[datasets.index(k[0]) for k in keys],
                samples=samples,
                seed=seed,
            )
            record["ci_low"], record["ci_high"] = interval.low, interval.high
        if score is not None and i + 1 < len(board.rows):
            below = counts.get(board.rows[i + 1].entry.submission_id)
            if mine and below:
                test = compare_counts(
                    mine, below, score=score, subcorpora=datasets, samples=test_samples, seed=seed
                )
                record["p_next"] = None if test is None else test.p_value
        run = runs.get(entry.submission_id)
        record["procedure"] = run.procedure if run else ""
        record["scorer_version"] = run.scorer_version if run else ""
        record["source"] = entry.source
        records.append(record)
    columns = [
        "rank",
        "team",
        "run_name",
        "submission_id",
        "baseline",
        "published",
        *datasets,
        "average",
        "ci_low",
        "ci_high",
        "p_next",
        "procedure",
        "scorer_version",
        "source",
    ]
    frame = pd.DataFrame.from_records(records, columns=columns).astype({"rank": "Int64"})
    return PackageTable(name=name, caption=caption, datasets=datasets, frame=frame)


def package_tables(
    *,
    phase: Phase,
    viewer,
    samples: int = BOOTSTRAP_SAMPLES,
    test_samples: int = TEST_SAMPLES,
    seed: int = significance.DEFAULT_SEED,
) -> list[PackageTable]:
    """Every track × mode table of ``phase`` as ``viewer`` may see it."""
    first = leaderboard_board(phase=phase, viewer=viewer)
    tracks: list[str | None] = [t.slug for t in first.tracks] or [None]
    tables = []
    for track in tracks:
        for mode in first.modes:
            board = leaderboard_board(phase=phase, viewer=viewer, mode=mode, track=track)
            name = f"{track}/{mode}" if track else mode
            where = f"{phase.task.title}, {phase.title}" + (f", track {track}" if track else "")
            tables.append(
                _board_table(
                    board,
                    name=name,
                    caption=f"{where}: {board.metric} F1, {mode}",
                    samples=samples,
                    test_samples=test_samples,
                    seed=seed,
                )
            )
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


def table_latex(table: PackageTable) -> str:
    """A booktabs table: rank, system, one column per dataset, the average and its 95 % CI,
    in percent with two decimals; p of the test against the next row down."""
    head = ["\\#", "System", *[latex_escape(d) for d in table.datasets], "Avg.", "95\\% CI", "$p$"]
    lines = [
        "\\begin{table}",
        "\\centering",
        "\\small",
        f"\\caption{{{latex_escape(table.caption)}}}",
        "\\begin{tabular}{rl" + "r" * (len(table.datasets) + 3) + "}",
        "\\toprule",
        " & ".join(head) + " \\\\",
        "\\midrule",
    ]
    for rec in table.frame.to_dict(orient="records"):
        rank = "" if pd.isna(rec["rank"]) else str(rec["rank"])
        system = latex_escape(rec["team"] + (f" ({rec['run_name']})" if rec["run_name"] else ""))
        ci = (
            "--"
            if rec["ci_low"] is None or pd.isna(rec["ci_low"])
            else f"[{_pct(rec['ci_low'])}, {_pct(rec['ci_high'])}]"
        )
        p = "--" if rec["p_next"] is None or pd.isna(rec["p_next"]) else f"{rec['p_next']:.3f}"
        cells = [rank, system, *[_pct(rec[d]) for d in table.datasets], _pct(rec["average"]), ci, p]
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
) -> bytes:
    """The zip: ``<track>/<mode>.csv`` and ``.tex`` per table (no track folder in a task
    without tracks) and a README naming the seed and sample counts."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for table in package_tables(
            phase=phase, viewer=viewer, samples=samples, test_samples=test_samples, seed=seed
        ):
            archive.writestr(f"{table.name}.csv", table_csv(table))
            archive.writestr(f"{table.name}.tex", table_latex(table))
        archive.writestr(
            "README.txt",
            (
                f"Results of {phase.task.competition.slug} / {phase.task.slug} / {phase.slug}.\n"
                f"Scores are F1 fractions in the CSV files and percent in the LaTeX tables.\n"
                f"ci_low, ci_high: percentile bootstrap ({samples} samples, seed {seed}) of the "
                f"macro-average, documents resampled within datasets.\n"
                f"p_next: paired approximate randomization against the next row "
                f"({test_samples} samples, seed {seed}), stratified by dataset.\n"
                f"A frozen board's tables show its frozen numbers; the intervals and tests are "
                f"computed from the runs' current per-document counts.\n"
            ),
        )
    return buffer.getvalue()
