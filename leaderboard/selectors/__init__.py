"""Reads behind every leaderboard view, in three rooms: `boards` (the boards, live or frozen,
the predicted-versus-gold table; their material, tied groups and the runs that count in
`material`, `ties` and `final_runs`), `analysis` (one run's scores, two runs compared) and
`counts` (per-document counts and the significance test).

The HTML pages, the JSON API and the CSV/JSON exports all call these functions. Selectors only
read; ranking and significance are pure modules (`leaderboard.ranking`,
`leaderboard.significance`); who may see what is `competition.visibility`.
"""

from competition.visibility import (
    Visibility,
    phase_visibility,
    submission_scores_visible,
    user_is_organizer,
    visible_submissions,
)
from leaderboard.selectors.analysis import (
    Analysis,
    DocumentLine,
    MetricLine,
    PairedResult,
    submission_analysis,
    submission_compare,
)
from leaderboard.selectors.boards import (
    TASK_MODE,
    Board,
    BoardQueryError,
    Column,
    GapTable,
    active_snapshot,
    board_material,
    board_tied_groups,
    leaderboard_board,
    ordered_modes,
    phase_final_submissions,
    phase_run_scores,
    task_gap_table,
)
from leaderboard.selectors.counts import compare_counts, document_counts
from leaderboard.selectors.freeze import snapshot_material
from scoring.vocabulary import metric_label, ordered_metrics

__all__ = [
    "TASK_MODE",
    "Analysis",
    "Board",
    "BoardQueryError",
    "Column",
    "DocumentLine",
    "GapTable",
    "MetricLine",
    "PairedResult",
    "Visibility",
    "active_snapshot",
    "board_material",
    "board_tied_groups",
    "compare_counts",
    "document_counts",
    "leaderboard_board",
    "metric_label",
    "ordered_metrics",
    "ordered_modes",
    "phase_final_submissions",
    "phase_run_scores",
    "phase_visibility",
    "snapshot_material",
    "submission_analysis",
    "submission_compare",
    "submission_scores_visible",
    "task_gap_table",
    "user_is_organizer",
    "visible_submissions",
]
