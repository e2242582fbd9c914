"""How a scoring ended, in one type for a whole run and for one of its parts.

``outcome_of`` is the one classification of what stops a scoring: the input refused (the
team's files), the scorer failed (a gold key or the task's options: the platform's), the
time or memory limit, a crash. A lost database connection is not an outcome: it is raised,
and the job gives its claim (or its part) back. Every outcome but ``scored`` carries the
message the team reads.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError

from scoring import ScoringError, ScoringInputError

DATABASE_ERRORS = (OperationalError, InterfaceError)
"""What a lost or refused database connection raises (a failover, a restart, an idle
connection reaper, ``pg_terminate_backend``)."""

TIME_LIMIT_MESSAGE = (
    "Scoring stopped at the time limit of {seconds} s. This is a limit of "
    "the platform: the run does not count against your limits."
)
MEMORY_LIMIT_MESSAGE = (
    "Scoring stopped at the memory limit of {mb} MB. This is a limit of "
    "the platform: the run does not count against your limits."
)
HARD_LIMIT_MESSAGE = (
    "Scoring was stopped at the hard time limit of {seconds} s. This is a "
    "limit of the platform: the run does not count against your limits."
)
CRASH_MESSAGE = (
    "An internal error stopped the scoring. This is a problem of the platform, "
    "not of your files: the run does not count against your limits, and the "
    "organizers can re-score it."
)
SCORER_MESSAGE = (
    "The scorer could not score this run ({detail}). This is a problem of the "
    "platform, not of your files: the run does not count against your "
    "limits."
)

R = TypeVar("R")


class Kind(enum.StrEnum):
    SCORED = "scored"
    REFUSED = "refused"  # the team's files: the input's error
    SCORER = "scorer failed"  # a gold key or the task's options
    TIME = "timed out"
    MEMORY = "out of memory"
    CRASH = "crashed"


@dataclass(frozen=True, slots=True)
class Outcome(Generic[R]):
    """How a scoring ended: its results (``scored``), or what stopped it. ``log``: the
    lines the team reads in the run's log (a refusal's, the scorer's)."""

    kind: Kind
    results: R | None = None
    refusal: ScoringInputError | None = None  # refused: the error naming file and line
    detail: str = ""  # scorer failed: the scorer's words
    log: str = ""
    crash: BaseException | None = None  # crashed: raised again once the run is ended

    @property
    def message(self) -> str:
        """What the team reads (empty for a run scored)."""
        match self.kind:
            case Kind.SCORED:
                return ""
            case Kind.REFUSED:
                return str(self.refusal)
            case Kind.SCORER:
                return SCORER_MESSAGE.format(detail=self.detail)
            case Kind.TIME:
                return TIME_LIMIT_MESSAGE.format(seconds=settings.SCORING_SOFT_TIME_LIMIT)
            case Kind.MEMORY:
                return MEMORY_LIMIT_MESSAGE.format(mb=settings.SCORING_MEMORY_LIMIT_MB)
        return CRASH_MESSAGE

    @property
    def platform_failure(self) -> bool:
        """Whose fault: every outcome but a refusal of the files is the platform's."""
        return self.kind is not Kind.REFUSED


def outcome_of(
    compute: Callable[[], R], *, timed_out: tuple[type[BaseException], ...] = ()
) -> Outcome[R]:
    """Run ``compute`` and say how it ended. ``timed_out``: the exceptions a time limit
    raises (the job layer's). Database errors are raised."""
    try:
        results = compute()
    except ScoringInputError as exc:  # the files: expected, no retry
        return Outcome(Kind.REFUSED, refusal=exc, log=getattr(exc, "scoring_log", ""))
    except ScoringError as exc:  # the task's options or its gold key: expected, no retry
        return Outcome(Kind.SCORER, detail=str(exc), log=getattr(exc, "scoring_log", ""))
    except timed_out:
        return Outcome(Kind.TIME)
    except MemoryError:
        return Outcome(Kind.MEMORY)
    except DATABASE_ERRORS:
        raise
    except Exception as exc:  # noqa: BLE001 - contained: the run is ended, then it is raised
        return Outcome(Kind.CRASH, crash=exc)
    return Outcome(Kind.SCORED, results=results)
