"""A board seen by language and as a heatmap (CRAC 2026's per-language view): for each row
the board shows, the macro-average of its scores over each language's datasets, and its
score on each dataset with a shade for a team × dataset heatmap.

Pure: it reads nothing but the `Board` it is given (the board selector decided who sees
which rows), so a frozen board gives the frozen numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.ranking import Row, macro_average
from leaderboard.ranking import Score as Cell
from leaderboard.selectors.boards import Board, Column

HEAT_LEVELS = 10
"""Shades of the heatmap: F1 in [0, 0.1) is level 0, …, [0.9, 1] level 9."""

NO_LANGUAGE = "(no language)"


@dataclass(frozen=True)
class Language:
    name: str
    columns: list[Column]  # its available datasets, in board order


@dataclass(frozen=True)
class HeatCell:
    column: Column
    score: Cell | None

    @property
    def level(self) -> int | None:
        """The shade of the cell, 0 to `HEAT_LEVELS` - 1 (None: no score)."""
        if self.score is None:
            return None
        return min(HEAT_LEVELS - 1, max(0, int(self.score.f1 * HEAT_LEVELS)))


@dataclass(frozen=True)
class LanguageRow:
    row: Row
    languages: list[Cell | None]  # macro-average per language, in `LanguageView.languages` order
    cells: list[HeatCell]  # one per available dataset


@dataclass(frozen=True)
class LanguageView:
    board: Board
    languages: list[Language]
    columns: list[Column]  # the available datasets, in board order
    rows: list[LanguageRow]

    @property
    def legend(self) -> list[tuple[int, str]]:
        """(level, range label) of every shade, for the heatmap's legend."""
        step = 100 // HEAT_LEVELS
        return [(level, f"{level * step}–{(level + 1) * step}") for level in range(HEAT_LEVELS)]


def board_languages(*, board: Board) -> LanguageView:
    """The per-language averages and heatmap cells of the rows ``board`` shows.

    A language's average is the macro-average of the board's cells over the available
    datasets of that language, under the phase's missing-dataset rule (as the board's own
    average over all datasets)."""
    columns = [c for c in board.columns if c.available]
    languages: dict[str, list[Column]] = {}
    for column in columns:
        languages.setdefault(column.language or NO_LANGUAGE, []).append(column)
    groups = [Language(name, cols) for name, cols in languages.items()]
    rows = []
    for row in board.rows:
        scores = row.entry.scores
        averages = [
            macro_average(scores, [c.slug for c in group.columns], board.missing_rule)
            for group in groups
        ]
        cells = [HeatCell(c, scores.get(c.slug)) for c in columns]
        rows.append(LanguageRow(row, averages, cells))
    return LanguageView(board=board, languages=groups, columns=columns, rows=rows)
