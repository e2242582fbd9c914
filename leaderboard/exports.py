"""CSV and JSON exports of boards and per-document scores, built with pandas.

Exports take what the selectors return (a `Board`, an `Analysis`), so they show exactly what the
page shows to the same viewer: nothing hidden leaks through a download. Scores are fractions in
[0, 1] with full precision (the pages round to two decimals of a percent).
"""

from __future__ import annotations

import pandas as pd

from leaderboard.ranking import FIELDS
from leaderboard.selectors import TASK_MODE, Analysis, Board
from leaderboard.selectors.boards import FinalRuns


def row_fields(row) -> dict:
    """Who and what a board row is (rank, team, run, status), shared by every export."""
    entry = row.entry
    return {
        "rank": row.rank,
        "group": row.group,
        "team": entry.team,
        "run_name": entry.run_name,
        "submission_id": entry.submission_id,
        "submitted_at": entry.submitted_at.isoformat(),
        "status": entry.status,
        "baseline": entry.is_baseline,
        "disqualified": entry.disqualified,
    }


def board_frame(board: Board) -> pd.DataFrame:
    """One line per board row, in display order; columns ``<slug>.<field>`` then ``avg.*``."""
    records = []
    for row in board.rows:
        entry = row.entry
        record = row_fields(row)
        # The board's track (baselines are shown on every track's board): "" without tracks.
        record["track"] = "" if row.entry.is_baseline else (board.track or "")
        for column in board.columns:
            score = entry.scores.get(column.slug)
            for name in FIELDS:
                record[f"{column.slug}.{name}"] = None if score is None else score.get(name)
        for name in FIELDS:
            record[f"avg.{name}"] = None if row.average is None else row.average.get(name)
        card = board.cards.of(entry.submission_id)
        for question in board.cards.columns:
            record[f"card.{question.slug}"] = card.get(question.slug, "")
        records.append(record)
    columns = [
        "rank",
        "group",
        "team",
        "run_name",
        "submission_id",
        "submitted_at",
        "status",
        "baseline",
        "disqualified",
        "track",
    ]
    columns += [f"{c.slug}.{name}" for c in board.columns for name in FIELDS]
    columns += [f"avg.{name}" for name in FIELDS]
    columns += [f"card.{q.slug}" for q in board.cards.columns]  # the system card's answers
    frame = pd.DataFrame.from_records(records, columns=columns)
    return frame.astype({"rank": "Int64"})


def board_meta(board: Board) -> dict:
    phase = board.phase
    return {
        "competition": phase.task.competition.slug,
        "task": phase.task.slug,
        "phase": phase.slug,
        "phase_id": phase.pk,
        "mode": board.mode,
        "metric": board.metric,
        "runs": "all" if board.runs else "teams",
        "sort": board.sort,
        "order": "desc" if board.descending else "asc",
        "hidden": board.hidden,
        "frozen_at": board.snapshot.created_at.isoformat() if board.snapshot else None,
        "group_samples": board.group_samples or None,
        # The track this board ranks (its slug and name) and the task's tracks; None / []
        # in a task without tracks.
        "track": board.track,
        "track_name": next((t.name for t in board.tracks if t.slug == board.track), None),
        "tracks": [{"slug": t.slug, "name": t.name} for t in board.tracks],
        "subcorpora": [
            {
                "slug": c.slug,
                "name": c.name,
                "available": c.available,
                **({"note": c.note} if c.note else {}),
            }
            for c in board.columns
        ],
        # The system-card questions shown as columns, the filter by their answers (rows
        # keep their rank on the whole board) and how many rows the board has without it.
        "card_questions": [{"slug": q.slug, "text": q.text} for q in board.cards.columns],
        "card_filter": dict(board.cards.filter),
        "rows_unfiltered": board.cards.total,
    }


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(text):
    """A user-chosen name as a CSV cell that spreadsheets will not run as a formula
    (OWASP "CSV injection"): a leading =, +, -, @, tab or CR gets a leading apostrophe."""
    if isinstance(text, str) and text.startswith(FORMULA_STARTS):
        return "'" + text
    return text


def _csv(frame: pd.DataFrame, text_columns: tuple[str, ...]) -> str:
    frame = frame.copy()
    for column in text_columns:
        frame[column] = frame[column].map(csv_safe)
    return frame.to_csv(index=False, float_format="%.10g")


def board_csv(board: Board) -> str:
    cards = tuple(f"card.{q.slug}" for q in board.cards.columns)
    return _csv(board_frame(board), ("team", "run_name", *cards))


def board_json(board: Board) -> str:
    """``{"board": meta, "rows": [records]}`` as a JSON string."""
    import json

    rows = json.loads(board_frame(board).to_json(orient="records", double_precision=15))
    return json.dumps({"board": board_meta(board), "rows": rows}, indent=1)


def documents_frame(analysis: Analysis) -> pd.DataFrame:
    """Per-document scores of the analysed metric (task mode), one line per document."""
    records = [
        {
            "submission_id": analysis.submission.pk,
            "metric": analysis.document_metric,
            "subcorpus": d.subcorpus,
            "document": d.document,
            "recall": d.recall,
            "precision": d.precision,
            "f1": d.f1,
        }
        for d in analysis.documents
    ]
    return pd.DataFrame.from_records(
        records,
        columns=["submission_id", "metric", "subcorpus", "document", "recall", "precision", "f1"],
    )


def documents_csv(analysis: Analysis) -> str:
    return _csv(documents_frame(analysis), ("document",))


def documents_json(analysis: Analysis) -> str:
    return documents_frame(analysis).to_json(orient="records", double_precision=15, indent=1)


def rows_csv(rows) -> str:
    """Rows (the first one the header) as CSV, text cells safe from spreadsheet formulas."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([csv_safe(cell) for cell in row])
    return out.getvalue()


def final_run_scores_csv(*, final: FinalRuns) -> str:
    """Every stored measure of each final run: one line per run × mode × sub-corpus ×
    metric (whole sub-corpus, no per-document lines), ``primary`` marking the task's
    primary metric in its own mode; scores as fractions in [0, 1]. On a frozen board, the
    frozen scores."""
    order = {slug: i for i, slug in enumerate(final.subcorpora)}
    rows: list[list] = [
        [
            "team",
            "submission_id",
            "run_name",
            "track",
            "mode",
            "subcorpus",
            "metric",
            "primary",
            "recall",
            "precision",
            "f1",
        ]
    ]
    for run in final.runs:
        for mode in sorted(run.scores, key=lambda m: (m != TASK_MODE, m)):
            by_slug: list[tuple[str, str, list]] = [
                (slug, metric, cell)
                for metric, cells in run.scores[mode].items()
                for slug, cell in cells.items()
            ]
            by_slug.sort(key=lambda item: (order.get(item[0], len(order)), item[0], item[1]))
            for slug, metric, (recall, precision, f1) in by_slug:
                primary = mode == TASK_MODE and metric == final.primary_metric
                rows.append(
                    [
                        run.team,
                        run.submission.pk,
                        run.run_name,
                        run.track,
                        mode,
                        slug,
                        metric,
                        "yes" if primary else "",
                        _number(recall),
                        _number(precision),
                        _number(f1),
                    ]
                )
    return rows_csv(rows)


def _number(value) -> str:
    return "" if value is None else f"{value:.10g}"


def final_run_cards_csv(*, final: FinalRuns) -> str:
    """The system card of each run: one line per run, one column per question (by slug,
    in the competition's order); blank where a run left a question unanswered. On a frozen
    board, the answers as they stood at the freeze."""
    rows: list[list] = [["team", "track", "submission_id", "run_name", *final.questions]]
    for run in final.runs:
        rows.append(
            [
                run.team,
                run.track,
                run.submission.pk,
                run.run_name,
                *(run.card.get(q, "") for q in final.questions),
            ]
        )
    return rows_csv(rows)
