"""The variant columns of a board: each shown run's macro-averages in the other modes of its
task's scoring procedure (e.g. partial match, exact match, with singletons) and the
supplementary metrics of its own mode (MOR, zeros), as the CRAC result tables print them
beside the primary score. They come from the same scoring job as the primary score: nothing
is uploaded or scored again to show them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from scoring.procedures import TASK_MODE
from scoring.vocabulary import CONLL, metric_label

from competition.models import Score
from competition.task_scoring import task_procedure
from leaderboard.ranking import Score as Cell
from leaderboard.ranking import macro_average
from leaderboard.selectors.boards import Board

SUPPLEMENTARY = ("mor", "zero")
"""Metrics of the task's own mode shown as variant columns when the procedure scores them."""


@dataclass(frozen=True)
class VariantColumn:
    mode: str
    metric: str
    label: str


@dataclass(frozen=True)
class Variants:
    columns: list[VariantColumn]
    values: dict[int, dict[tuple[str, str], float | None]]  # submission → column → avg F1

    def value(self, submission_id: int, column: VariantColumn) -> float | None:
        return self.values.get(submission_id, {}).get((column.mode, column.metric))


def board_variants(*, board: Board) -> Variants | None:
    """The variant columns of the rows ``board`` shows (its viewer's rows only), or None when
    the board's task has no scoring procedure."""
    task = board.phase.task
    procedure = task_procedure(task)
    if procedure is None or board.hidden and not board.rows:
        return None
    columns = [VariantColumn(mode, CONLL, procedure.label(mode))
               for mode in procedure.modes if mode != TASK_MODE]
    own = procedure.options(TASK_MODE)
    columns += [VariantColumn(TASK_MODE, name, metric_label(name))
                for name in SUPPLEMENTARY if name in own.extra_metrics]
    wanted = {(c.mode, c.metric) for c in columns}
    ids = [row.entry.submission_id for row in board.rows]
    cells: dict[int, dict[tuple[str, str], dict[str, Cell]]] = defaultdict(
        lambda: defaultdict(dict))
    if board.snapshot is not None:  # the frozen board shows what was frozen
        for entry in board.snapshot.data.get("entries", []):
            if entry["submission_id"] not in ids:
                continue
            for mode, metrics in entry["scores"].items():
                for metric, by_slug in metrics.items():
                    if (mode, metric) in wanted:
                        for slug, (r, p, f) in by_slug.items():
                            cells[entry["submission_id"]][(mode, metric)][slug] = Cell(r, p, f)
    else:
        rows = Score.objects.filter(
            submission_id__in=ids, run__is_current=True, document="",
            mode__in={c.mode for c in columns}, metric__in={c.metric for c in columns},
        ).values_list("submission_id", "mode", "metric", "subcorpus__slug", "recall",
                      "precision", "f1")
        for sid, mode, metric, slug, r, p, f in rows:
            if (mode, metric) in wanted:
                cells[sid][(mode, metric)][slug] = Cell(r, p, f)
    values: dict[int, dict[tuple[str, str], float | None]] = {}
    for sid in ids:
        values[sid] = {}
        for column in columns:
            key = (column.mode, column.metric)
            average = macro_average(cells[sid][key], board.available, board.missing_rule)
            values[sid][key] = None if average is None else average.f1
    return Variants(columns=columns, values=values)
