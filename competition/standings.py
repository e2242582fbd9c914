"""How runs stand on their phase's board, for the competition's own pages ("My submissions",
a submission's page).

Ranking belongs to the leaderboard app, a floor above this one: it registers its function
here when Django starts (``leaderboard.apps``), so these pages show the board's own average
and rank without the competition app importing the leaderboard.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from competition.models import Phase, Submission


@dataclass(frozen=True, slots=True)
class Standing:
    """A run on its board as ``viewer`` may see it. ``average``: the primary metric's average
    F1 (a fraction), None when not scored or not visible; ``rank``: among all runs of the
    board (its "all runs" view), None when not ranked or the board is hidden; ``runs``: how
    many runs that view ranks; ``team_rank``: the team's rank on the board when this run is
    the one representing the team."""

    average: float | None = None
    rank: int | None = None
    runs: int = 0
    team_rank: int | None = None


Provider = Callable[..., dict[int, Standing]]
_provider: list[Provider] = []


def standings_provider_set(provider: Provider) -> None:
    _provider[:] = [provider]


def run_standings(
    *, phase: Phase, viewer, submissions: Sequence[Submission]
) -> dict[int, Standing]:
    """{submission id: Standing} of the given runs of ``phase`` (empty without a provider)."""
    if not _provider or not submissions:
        return {}
    return _provider[0](phase=phase, viewer=viewer, submissions=submissions)
