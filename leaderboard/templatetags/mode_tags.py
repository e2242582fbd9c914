"""``{% mode_options task modes chosen %}``: the board's Mode select, in words and grouped
(`leaderboard.mode_choices`). Given a board in place of the task, the modes are named by the
procedure the board was scored under (a frozen board's, as it was at the freeze)."""

from __future__ import annotations

from django import template

from leaderboard.mode_choices import mode_groups, mode_words
from leaderboard.selectors.boards import Board

register = template.Library()


@register.inclusion_tag("leaderboard/_mode_options.html")
def mode_options(task_or_board, modes, chosen: str) -> dict:
    task, procedure = _task_and_procedure(task_or_board)
    return {"groups": mode_groups(task=task, modes=modes, procedure=procedure), "chosen": chosen}


@register.filter
def mode_in_words(mode: str, task_or_board) -> str:
    """``{{ board.mode|mode_in_words:board }}`` → "partial match"."""
    task, procedure = _task_and_procedure(task_or_board)
    return mode_words(task, mode, procedure=procedure)


def _task_and_procedure(task_or_board):
    """(the task, the procedure its board was scored under; None: the task's now)."""
    if isinstance(task_or_board, Board):
        return task_or_board.phase.task, task_or_board.procedure or ""
    return task_or_board, None
