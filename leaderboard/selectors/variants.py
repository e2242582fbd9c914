"""The variant columns of a board: each shown run's macro-averages in the other modes of its
task's scoring procedure (e.g. partial match, exact match, with singletons) and the
supplementary metrics of its own mode (MOR, zeros), as the CRAC result tables print them
beside the primary score. They come from the same scoring job as the primary score: nothing
is uploaded or scored again to show them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from competition.models import Score
from competition.selectors import ZERO_METRIC, nothing_to_score
from competition.services.boards import SUPPLEMENTARY, VariantColumn, variant_columns
from leaderboard.ranking import Score as Cell
from leaderboard.ranking import macro_average
from leaderboard.selectors.averaged import averaged_datasets
from leaderboard.selectors.boards import Board
from scoring.vocabulary import EMPTY_NODES

__all__ = ["SUPPLEMENTARY", "VariantColumn", "Variants", "board_variants"]


@dataclass(frozen=True)
class Variants:
    columns: list[VariantColumn]
    values: dict[int, dict[tuple[str, str], float | None]]  # submission → column → avg F1

    def value(self, submission_id: int, column: VariantColumn) -> float | None:
        return self.values.get(submission_id, {}).get((column.mode, column.metric))

    @property
    def coreference(self) -> Variants:
        """The coreference columns (the other settings, the supplementary metrics)."""
        return Variants([c for c in self.columns if c.mode != EMPTY_NODES], self.values)

    @property
    def empty_nodes(self) -> Variants:
        """The empty-node measures' columns (CRAC 2026), a table of their own on a board."""
        return Variants([c for c in self.columns if c.mode == EMPTY_NODES], self.values)


def column_has_nothing_to_score(column: VariantColumn, ids: list[int]) -> bool:
    """The zeros' column of data without zeros (no key nor response of the shown runs has a
    zero anaphor): its 0.00 would mean nothing, so it is left out."""
    if column.metric != ZERO_METRIC or not ids:
        return False
    counts = list(
        Score.objects.filter(
            submission_id__in=ids,
            run__is_current=True,
            document="",
            mode=column.mode,
            metric=column.metric,
        ).values_list("counts", flat=True)
    )
    return nothing_to_score(column.metric, counts)


def board_variants(*, board: Board) -> Variants | None:
    """The variant columns of the rows ``board`` shows (its viewer's rows only), or None when
    the board's task has no scoring procedure."""
    task = board.phase.task
    if not board.procedure or board.hidden and not board.rows:
        return None
    ids = [row.entry.submission_id for row in board.rows]
    if board.record is not None:  # a frozen board: its columns as they were at the freeze
        columns = [VariantColumn(*c) for c in board.record.variants]
    else:
        columns = [
            c
            for c in variant_columns(procedure=task.procedure)
            if not column_has_nothing_to_score(c, ids)
        ]
    cells = _variant_cells(board, ids=ids, columns=columns)
    averaged = {
        mode: averaged_datasets(
            phase=board.phase,
            mode=mode,
            available=board.available,
            without=board.record.without_empty_nodes if board.record is not None else None,
        )
        for mode in {c.mode for c in columns}
    }
    values: dict[int, dict[tuple[str, str], float | None]] = {}
    for sid in ids:
        values[sid] = {}
        for column in columns:
            key = (column.mode, column.metric)
            over = averaged[column.mode]
            average = macro_average(cells[sid][key], over, board.missing_rule) if over else None
            values[sid][key] = None if average is None else average.f1
    return Variants(columns=columns, values=values)


def _variant_cells(
    board: Board, *, ids: list[int], columns: list[VariantColumn]
) -> dict[int, dict[tuple[str, str], dict[str, Cell]]]:
    """Each run's cells of the variant columns: read with the board where it read them (a
    frozen board shows what was frozen), else from the current score rows."""
    wanted = {(c.mode, c.metric) for c in columns}
    cells: dict[int, dict[tuple[str, str], dict[str, Cell]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    if board.material_pairs is None or wanted <= board.material_pairs:
        # Read with the board (a frozen board shows what was frozen).
        for sid in ids:
            for mode, metrics in board.material.get(sid, {}).items():
                for metric, by_slug in metrics.items():
                    if (mode, metric) in wanted:
                        for slug, (r, p, f) in by_slug.items():
                            cells[sid][(mode, metric)][slug] = Cell(r, p, f)
    else:
        rows = Score.objects.filter(
            submission_id__in=ids,
            run__is_current=True,
            document="",
            mode__in={c.mode for c in columns},
            metric__in={c.metric for c in columns},
        ).values_list(
            "submission_id", "mode", "metric", "subcorpus__slug", "recall", "precision", "f1"
        )
        for sid, mode, metric, slug, r, p, f in rows:
            if (mode, metric) in wanted:
                cells[sid][(mode, metric)][slug] = Cell(r, p, f)
    return cells
