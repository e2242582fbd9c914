"""CSV and JSON exports of boards and per-document scores, built with pandas.

Exports take what the selectors return (a `Board`, an `Analysis`), so they show exactly what the
page shows to the same viewer: nothing hidden leaks through a download. Scores are fractions in
[0, 1] with full precision (the pages round to two decimals of a percent).
"""

from __future__ import annotations

import pandas as pd

from leaderboard.ranking import FIELDS
from leaderboard.selectors import Analysis, Board


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


def final_run_scores_csv(*, submissions, primary_metric: str) -> str:
    """The current scoring of each run: one line per run × sub-corpus × metric of the task's
    own mode (whole sub-corpus, no per-document lines), ``primary`` marking the task's
    primary metric; scores as fractions in [0, 1]."""
    from competition.models import Score

    by_id = {s.pk: s for s in submissions}
    scores = (
        Score.objects.filter(
            submission_id__in=list(by_id), run__is_current=True, mode=Score.TASK_MODE, document=""
        )
        .select_related("subcorpus")
        .order_by("submission_id", "subcorpus__order", "subcorpus_id", "metric")
    )
    rows = [
        [
            "team",
            "submission_id",
            "run_name",
            "track",
            "subcorpus",
            "metric",
            "primary",
            "recall",
            "precision",
            "f1",
        ]
    ]
    for score in scores:
        submission = by_id[score.submission_id]
        rows.append(
            [
                submission.team.name,
                submission.pk,
                submission.run_name,
                submission.track.slug if submission.track_id else "",
                score.subcorpus.slug,
                score.metric,
                "yes" if score.metric == primary_metric else "",
                "" if score.recall is None else f"{score.recall:.10g}",
                "" if score.precision is None else f"{score.precision:.10g}",
                f"{score.f1:.10g}",
            ]
        )
    return rows_csv(rows)


def final_run_cards_csv(*, submissions, questions) -> str:
    """The system card of each run: one line per run, one column per question (by slug,
    in the competition's order); blank where a run left a question unanswered."""
    from competition.models import SystemCardAnswer

    answers: dict[int, dict[str, str]] = {}
    for sub_id, slug, value in SystemCardAnswer.objects.filter(
        submission__in=[s.pk for s in submissions]
    ).values_list("submission_id", "question__slug", "value"):
        answers.setdefault(sub_id, {})[slug] = value
    rows: list[list] = [
        ["team", "track", "submission_id", "run_name", *(q.slug for q in questions)]
    ]
    for submission in submissions:
        card = answers.get(submission.pk, {})
        rows.append(
            [
                submission.team.name,
                submission.track.slug if submission.track_id else "",
                submission.pk,
                submission.run_name,
                *(card.get(q.slug, "") for q in questions),
            ]
        )
    return rows_csv(rows)
