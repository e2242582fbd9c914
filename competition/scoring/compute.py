"""Computing a run's scores: every dataset in every mode of its task. Writes nothing.

The rows are the scorer's own (`scoring.score_rows`): the platform stores them as they are
and never derives a number. A refusal of the team's files raises ``ScoringInputError``
naming them as uploaded (never the gold key's path); a fault of a gold key raises a plain
``ScoringError``, which does not count against the team.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from django.utils import timezone

import scoring
from competition.models import Submission, SubmissionFile, Task
from competition.scoring.results import PartResults, ScoreValue, ScoringResults, scored_files
from competition.services.submissions import web_wording
from competition.services.validation import submission_file_validate, submission_files_validate
from competition.task_scoring import ScoringMode, mode_label, task_modes, task_procedure
from scoring import ScoringError, ScoringInputError, score_modes, score_rows
from scoring.analyses import analysis_rows
from scoring.validation import misspelt_attributes

logger = logging.getLogger(__name__)


def log_header(task: Task) -> str:
    modes = task_modes(task)
    return (
        f"{timezone.now():%Y-%m-%d %H:%M:%S} UTC: scorer {scoring.__version__}, "
        f"{len(modes)} mode{'s' if len(modes) != 1 else ''}: "
        f"{', '.join(mode_label(task, mode.name) for mode in modes)}"
    )


def submission_compute(*, submission: Submission) -> ScoringResults:
    """Score every sub-corpus of a submission in every mode of its task. Writes nothing.
    Raises ``scoring.ScoringError`` when the scorer refuses the input; for files not checked
    yet, ``RunRefused`` with the problems of every file (`services.validation`)."""
    files = (
        scored_files(submission)
        .select_related("subcorpus")
        .order_by("subcorpus__order", "subcorpus_id")
    )
    started = time.perf_counter()
    header = log_header(submission.phase.task)
    parts: list[PartResults] = []
    for submitted in files:
        try:
            parts.append(part_compute(submission=submission, submitted=submitted, check=False))
        except ScoringInputError as error:
            # the scorer stops at a file's first fault: the check lists every file's
            submission_files_validate(submission=submission, files=files)
            error.scoring_log = "\n".join(
                [header, *(line for part in parts for line in part.log), error.scoring_log]
            )
            raise
    return results_assemble(
        submission=submission, parts=parts, header=header, seconds=time.perf_counter() - started
    )


def results_assemble(
    *, submission: Submission, parts: list[PartResults], header: str, seconds: float
) -> ScoringResults:
    """A run's results from the results of its datasets (in the datasets' order)."""
    task = submission.phase.task
    modes = task_modes(task)
    log = [header, *(line for part in parts for line in part.log), f"done in {seconds:.2f} s"]
    return ScoringResults(
        scorer_version=scoring.__version__,
        options={mode.name: list(mode.words) for mode in modes},
        scores=tuple(value for part in parts for value in part.scores),
        warnings=tuple(w for part in parts for w in part.warnings),
        keys={str(part.subcorpus_id): part.key for part in parts},
        procedure=task.procedure,
        log="\n".join(log),
        upload_warnings=tuple(w for part in parts for w in part.upload_warnings),
    )


def part_compute(
    *, submission: Submission, submitted: SubmissionFile, check: bool = True
) -> PartResults:
    """Score one file of a run against its gold key in every mode of the task. Writes
    nothing. A refusal raises the team's ``ScoringInputError`` (files named as uploaded,
    never the key's path), with the log line of the refusal as ``scoring_log``; a fault of
    the gold key raises a plain ``ScoringError``.

    A file not checked yet is checked by its scoring: the scorer stops on every fault the
    check finds (`scoring.validation`: the same readers and checks), so a file it scores
    is valid, and only a refusal reads the file again against its key's skeleton
    (`services.validation`), for the list of its problems: ``RunRefused`` (with ``check``;
    a whole run's caller checks every file itself)."""
    task = submission.phase.task
    modes = task_modes(task)
    procedure = task_procedure(task)
    with_analyses = procedure is not None and bool(procedure.analyses)
    name = submitted.subcorpus.name
    begun = time.perf_counter()
    try:
        results, analyses = _score_file(submitted, modes=modes, with_analyses=with_analyses)
    except ScoringInputError:
        if check:
            submission_file_validate(submission=submission, submitted=submitted)
        raise
    scored = max((len(result.scored) for result in results), default=0)
    # One line per dataset: every mode came from the same reading of the two files.
    log = [
        f"{name}: read {submitted.original_name} ({submitted.size:,} bytes) and "
        f"the gold key of {name}; {scored} document{'s' if scored != 1 else ''} "
        f"scored in {time.perf_counter() - begun:.2f} s"
        + (f" ({len(modes)} modes)" if len(modes) > 1 else "")
    ]
    scores = [ScoreValue(submitted.subcorpus_id, row) for row in analyses]
    if with_analyses:
        log.append(
            f"{name}: {len(analyses)} analysis rows (entity range, entity type, mention type)"
        )
    warnings: list[str] = []
    said: set[str] = set()
    for mode, result in zip(modes, results):
        scores.extend(
            ScoreValue(submitted.subcorpus_id, row)
            for row in score_rows(result, mode.options, mode=mode.name, per_doc=mode.per_doc)
        )
        for text in _new_warnings((*mode.notes, *result.warnings), said=said):
            if _about_the_key(text, submission=submission, submitted=submitted):
                continue
            warnings.append(text.replace(str(submitted.absolute_path), submitted.original_name))
            log.append(f"  warning [{mode_label(task, mode.name)}]: {warnings[-1]}")
    return PartResults(
        subcorpus_id=submitted.subcorpus_id,
        key=submitted.subcorpus.sha256,
        scores=tuple(scores),
        warnings=tuple(warnings),
        log=tuple(log),
        upload_warnings=tuple(_upload_warnings(submitted, modes=modes)),
    )


def _upload_warnings(submitted: SubmissionFile, *, modes: list[ScoringMode]) -> list[dict]:
    """What the team should know of a scored compact (CorefUD) file: its MISC attributes
    that look like a misspelt coreference attribute, whose mentions were not read
    (`scoring.validation.misspelt_attributes`), as `Submission.upload_warnings` keeps them."""
    if not any(mode.options.format == "corefud" for mode in modes):
        return []
    path = str(submitted.absolute_path)
    return upload_warnings_from(
        misspelt_attributes(path),
        path=path,
        name=submitted.original_name,
        subcorpus=submitted.subcorpus.name,
    )


def upload_warnings_from(
    messages: Sequence[str], *, path: str, name: str, subcorpus: str
) -> list[dict[str, Any]]:
    """The scorer's warnings about an accepted file (``FILE:LINE: message``, the file at
    the server's ``path``) as `Submission.upload_warnings` keeps them: the file named as
    uploaded (``name``), its dataset (``subcorpus``), the line apart and the message in the
    web's words; never the server's path."""
    prefix = f"{path}:"
    found = []
    for message in messages:
        line: int | None = None
        text = message.replace(path, name)
        if message.startswith(prefix):
            number, _, rest = message[len(prefix) :].partition(": ")
            if number.isdigit():
                line, text = int(number), rest.replace(path, name)
        found.append(
            {"file": name, "subcorpus": subcorpus, "line": line, "message": web_wording(text)}
        )
    return found


def _score_file(submitted: SubmissionFile, *, modes: list[ScoringMode], with_analyses: bool):
    """The scorer's results of one file in every mode, and the analysis rows of the
    procedure (CRAC 2026) when it has them; a refusal raised as the team's error."""
    key = str(submitted.subcorpus.key_path)
    response = str(submitted.absolute_path)
    begun = time.perf_counter()
    try:
        # Every mode from one reading of the two files (the scorer reads them once for
        # the modes that read them alike), in one process: a worker is already one of
        # many scoring in parallel.
        results = score_modes(
            key,
            response,
            options=[mode.options for mode in modes],
            per_doc=[mode.per_doc for mode in modes],
        )
        return results, (analysis_rows(key, response) if with_analyses else [])
    except ScoringInputError as exc:
        error = _public_error(exc, key=key, response=response, submitted=submitted)
        error.scoring_log = (
            f"{submitted.subcorpus.name}: {submitted.original_name} refused after "
            f"{time.perf_counter() - begun:.2f} s: {error}"
        )
        raise error from None


def _new_warnings(warnings, *, said: set[str]) -> list[str]:
    """The warnings not said yet (the same note comes from several modes)."""
    new = []
    for warning in warnings:
        text = str(warning)
        if text not in said:
            said.add(text)
            new.append(text)
    return new


def _about_the_key(text: str, *, submission: Submission, submitted: SubmissionFile) -> bool:
    """Whether a warning is about the gold key (its MarkableIDs, lines, entities): it is
    for the organizers only, logged naming the key as they know it, not by its path."""
    key = str(submitted.subcorpus.key_path)
    if key not in text:
        return False
    name = submitted.subcorpus.name
    logger.warning(
        "note on the gold key of %s (scoring submission %s; the run was scored): %s",
        name,
        submission.pk,
        text.replace(key, f"gold key of {name}"),
    )
    return True


def _public_error(
    exc: ScoringInputError, *, key: str, response: str, submitted: SubmissionFile
) -> ScoringError:
    """The same input error, naming files as the team knows them and never the gold key's
    path or lines. A fault of the gold key itself (missing, unreadable) is the platform's:
    it becomes a plain ``ScoringError``, which does not count against the team."""
    on_key_side = exc.path == key
    message = exc.message.replace(key, f"gold key of {submitted.subcorpus.name}")
    message = web_wording(message.replace(response, submitted.original_name))
    if on_key_side:
        # Details of the gold annotation are for the organizers (the log), not the team.
        logger.error("gold key of %s refused by the scorer: %s", submitted.subcorpus.name, message)
        return ScoringError(
            f"the gold key of {submitted.subcorpus.name} cannot be used by the "
            f"scorer ({exc.code}); the organizers have to fix it. This run does "
            "not count against your limits."
        )
    return ScoringInputError(
        submitted.original_name, exc.line, message, code=exc.code, document=exc.document
    )
