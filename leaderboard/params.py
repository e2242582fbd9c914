"""Query parameters of a board view, parsed once for pages, API and exports alike."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from leaderboard.selectors import TASK_MODE, BoardQueryError
from leaderboard.selectors.cards import card_filter_parse


@dataclass(frozen=True)
class BoardParams:
    metric: str | None = None
    mode: str = TASK_MODE
    sort: str | None = None
    descending: bool = True
    runs: bool = False
    live: bool = False
    track: str | None = None
    card: tuple[tuple[str, str], ...] = ()

    def as_kwargs(self) -> dict:
        return asdict(self)


def board_params(query: Mapping[str, str]) -> BoardParams:
    """``?metric=&mode=&sort=&order=asc|desc&runs=all|teams&live=1&track=&card.<slug>=``.

    Unknown values of ``order`` and ``runs`` raise `BoardQueryError`; metric, mode and sort are
    checked by the selector against what the phase stores.
    """
    order = query.get("order", "desc") or "desc"
    if order not in ("asc", "desc"):
        raise BoardQueryError(f"unknown order {order!r}: expected asc or desc")
    runs = query.get("runs", "teams") or "teams"
    if runs not in ("all", "teams"):
        raise BoardQueryError(f"unknown runs {runs!r}: expected all or teams")
    return BoardParams(
        metric=query.get("metric") or None,
        mode=query.get("mode") or TASK_MODE,
        sort=query.get("sort") or None,
        descending=order == "desc",
        runs=runs == "all",
        live=query.get("live") in ("1", "true", "yes"),
        track=query.get("track") or None,
        card=card_filter_parse(query),
    )
