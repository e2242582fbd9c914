"""``{% mode_options task modes chosen %}``: the board's Mode select, in words and grouped
(`leaderboard.mode_choices`)."""

from __future__ import annotations

from django import template

from leaderboard.mode_choices import mode_groups, mode_words

register = template.Library()


@register.inclusion_tag("leaderboard/_mode_options.html")
def mode_options(task, modes, chosen: str) -> dict:
    return {"groups": mode_groups(task=task, modes=modes), "chosen": chosen}


@register.filter
def mode_in_words(mode: str, task) -> str:
    """``{{ board.mode|mode_in_words:task }}`` → "partial match"."""
    return mode_words(task, mode)
