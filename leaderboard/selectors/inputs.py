"""What a board is built from, declared once: the fields of each run a board reads
(`board_material`) and, from the same declaration, the fields the kept views' state digests
(`leaderboard.selectors.precomputed`), so that a field read by boards is always part of the
state that names a kept view, and the kept views' key changes with the declaration itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RunInput:
    """One field of a run as a board reads it."""

    key: str
    """Its name in a board's material entry (and in a frozen board's stored entries)."""
    path: str
    """The `Submission` values path that reads it (``current`` is the current scoring run,
    ``submitted`` the submission time, both annotated by `board_material`)."""
    state: str | None
    """The `Submission` field the kept views' state digests for it; None where the state
    query reads it through its own join (the team's name, the current scoring run)."""


RUN_INPUTS: tuple[RunInput, ...] = (
    RunInput("submission_id", "id", "id"),
    RunInput("team_id", "team_id", "team_id"),
    RunInput("team", "team__name", None),
    RunInput("run_name", "run_name", "run_name"),
    RunInput("submitted_at", "submitted", "created_at"),
    RunInput("status", "status", "status"),
    RunInput("is_baseline", "is_baseline", "is_baseline"),
    RunInput("is_chosen", "is_chosen", "is_chosen"),
    RunInput("disqualified", "disqualified", "disqualified"),
    RunInput("scorer_version", "scorer_version", "scorer_version"),
    RunInput("track", "track__slug", "track_id"),
    RunInput("is_reference", "is_reference", "is_reference"),
    RunInput("source", "source", "source"),
    RunInput("description", "description", "description"),
    RunInput("link", "link", "link"),
    RunInput("run", "current__id", None),
    RunInput("procedure", "current__procedure", None),
)

RUN_KEYS: tuple[str, ...] = tuple(i.key for i in RUN_INPUTS)
RUN_PATHS: tuple[str, ...] = tuple(i.path for i in RUN_INPUTS)
STATE_FIELDS: tuple[str, ...] = tuple(i.state for i in RUN_INPUTS if i.state is not None)

INPUTS_DIGEST = hashlib.sha256(repr(RUN_INPUTS).encode()).hexdigest()[:16]
"""Part of every kept view's key: a change of the declaration is a new key."""
