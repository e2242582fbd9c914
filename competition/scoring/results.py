"""What a scoring produces: the score rows of a dataset or of a whole run, and the files a
run is scored on. Types and reads only; nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from competition.models import Submission, SubmissionFile
from scoring import ScoreRow


@dataclass(frozen=True, slots=True)
class ScoreValue:
    """A score row of one sub-corpus, as the scorer's serializer wrote it."""

    subcorpus_id: int
    row: ScoreRow


@dataclass(frozen=True, slots=True)
class ScoringResults:
    scorer_version: str
    options: dict[str, list[str]]  # mode name -> option words
    scores: tuple[ScoreValue, ...]
    warnings: tuple[str, ...] = ()
    keys: dict[str, str] = field(default_factory=dict)  # sub-corpus id -> key SHA-256
    procedure: str = ""  # the task's scoring procedure, if any (e.g. "crac-2024")
    log: str = ""  # what was read, warnings, timings: shown to the team (`Submission.scoring_log`)
    # what the team should know of its accepted files (`Submission.upload_warnings`)
    upload_warnings: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class PartResults:
    """The scoring of one dataset (sub-corpus) of a run in every mode of its task."""

    subcorpus_id: int
    key: str  # SHA-256 of the gold key it was scored against
    scores: tuple[ScoreValue, ...]
    warnings: tuple[str, ...]
    log: tuple[str, ...]
    upload_warnings: tuple[dict[str, Any], ...] = ()  # `upload_warnings_from`


def scored_files(submission: Submission):
    """The files of a submission that are scored: those on available sub-corpora."""
    return SubmissionFile.objects.filter(submission=submission, subcorpus__available=True)
