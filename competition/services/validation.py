"""Checking a run's response files against their gold keys with the scorer's own reader.

An upload's request checks only what is cheap (`competition.services.submissions`): names,
sizes, the archive, and each file's first lines (`response_heads_check`: a file in the
other format is refused at once, in one line). The full reading of every file against its
key's skeleton is the scoring worker's (`submission_files_validate` for a run scored in one
job, `submission_file_validate` per dataset where it is scored in parts): a run with
problems ends refused (``rejected``) with the list the upload's answer gave before
(`submission_refuse`), and nothing of it is scored, ranked or counted. The scorer stops on
every fault this check finds (the same readers and checks, `scoring.validation`), so the
worker scores a file first and reads it against its key's skeleton only when the scorer
refused it (`competition.scoring.compute`): a valid file is read once.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

from django.conf import settings
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.utils import timezone

from competition.errors import CompetitionError
from competition.models import Phase, ScoringPart, SubCorpus, Submission, SubmissionFile
from competition.selectors import subcorpus_skeleton
from competition.services.dispatch import notification_enqueue
from competition.services.problems import (
    FATAL_CODES,
    Problem,
    condensed,
    problem_from,
)
from competition.task_scoring import (
    TASK_MODE,
    evaluates_empty_nodes,
    scoring_modes,
    validation_options,
)
from competition.uploads import ReceivedFile
from scoring import ScoringError, ScoringInputError, UsageError
from scoring.api import validate_against_skeleton
from scoring.empty_nodes import read_empty_nodes
from scoring.forked import CannotFork, ChildDied, Forked
from scoring.format_check import format_mismatch
from scoring.readers import detect_format

logger = logging.getLogger(__name__)
Status = Submission.Status


def response_files_check(
    *, phase: Phase, received: Mapping[str, ReceivedFile], subcorpora: Mapping[str, SubCorpus]
) -> list[Problem]:
    """Validate every response file against its gold key with the scorer's own reader.

    Messages about the gold key's side never name the key's path or line: the team sees only
    "gold key of <sub-corpus>".
    """
    try:
        options = validation_options(phase.task)
    except UsageError as exc:
        logger.error("scorer options of %s are invalid: %s", phase, exc)
        raise CompetitionError("scorer_config", reason=str(exc)) from None
    words = scoring_modes(phase.task)[TASK_MODE]
    files = [(slug, subcorpora[slug], response) for slug, response in received.items()]
    found_by_slug = _validate_files(
        files, options=options, words=words, empty_nodes=evaluates_empty_nodes(phase.task)
    )
    problems: list[Problem] = []
    for slug, response in received.items():
        subcorpus = subcorpora[slug]
        key_path = subcorpus.key_path
        found = found_by_slug[slug]
        file_problems = [
            problem_from(error, response=response, subcorpus=subcorpus, key_path=Path(key_path))
            for error in found
        ]
        problems.extend(
            condensed(file_problems, phase=phase, response=response, subcorpus=subcorpus)
        )
    return problems


def _validate_files(
    files: list[tuple[str, SubCorpus, ReceivedFile]],
    *,
    options,
    words: Sequence[str],
    empty_nodes: bool = False,
) -> dict:
    """{slug: problems} of the files (slug, dataset, response), each response checked
    against the skeleton of its dataset's key read with the options ``words`` (kept in the
    cache: the keys are not read; one skeleton at a time in memory); with ``empty_nodes`` (a
    CRAC 2026 task) each file's empty nodes are read as the measures read them too. An
    upload of several large files is checked in ``UPLOAD_VALIDATION_PROCESSES`` processes
    at once (this one and forks of it, `scoring.forked`: each reads files only, its share
    balanced by size, and sends back its problems); where this process may not fork (or
    runs threads: a fork would copy locks other threads hold), or a fork dies, its share is
    checked here."""

    def check(share) -> list[tuple[str, list]]:
        return [
            (
                slug,
                _validate_file(
                    key_path=subcorpus.key_path,
                    skeleton=_skeleton_or_problem(subcorpus, words),
                    response=response,
                    options=options,
                    empty_nodes=empty_nodes,
                ),
            )
            for slug, subcorpus, response in share
        ]

    lanes = min(settings.UPLOAD_VALIDATION_PROCESSES, len(files))
    if threading.active_count() > 1:
        lanes = 1  # a fork of a threaded process (gunicorn's gthread) may inherit held locks
    if lanes < 2 or sum(response.size for *_, response in files) < PARALLEL_FROM_BYTES:
        return dict(check(files))
    shares: list[list] = [[] for _ in range(lanes)]
    sizes = [0] * lanes
    # the largest file first, each to the lane with the fewest bytes so far
    for item in sorted(files, key=lambda item: -item[2].size):
        lane = sizes.index(min(sizes))
        shares[lane].append(item)
        sizes[lane] += item[2].size
    forks: list[tuple[list, Forked | None]] = []
    for share in shares[1:]:
        try:
            forks.append((share, Forked(check, share)))
        except (CannotFork, OSError):
            forks.append((share, None))
    found = dict(check(shares[0]))
    for share, fork in forks:
        try:
            found.update(fork.result() if fork is not None else check(share))
        except ChildDied:
            logger.warning("a validation process died; checking its files here")
            found.update(check(share))
    return found


def _skeleton_or_problem(subcorpus: SubCorpus, words: Sequence[str]) -> dict | ScoringInputError:
    """What a response for ``subcorpus`` is compared with, or the key's own problem (said
    as the gold key's)."""
    try:
        return subcorpus_skeleton(subcorpus=subcorpus, words=words)
    except ScoringInputError as exc:
        return exc


PARALLEL_FROM_BYTES = 4 * 1024 * 1024  # smaller uploads are checked here, in one process


def _validate_file(
    *,
    key_path,
    skeleton: dict | ScoringInputError,
    response: ReceivedFile,
    options,
    empty_nodes: bool = False,
) -> list:
    """The problems of one response file, checked against its key's skeleton (its word
    forms and sentence ids: the key itself is not read again for each upload); messages name
    the key by ``key_path``, as `problem_from` expects. The reading stops at the document of
    the first problem; only when that one is not fatal (a wrong format, a NUL byte, no
    documents: everything after it would only repeat it) is the file read again for the list
    of its problems. A file without problems is read once; with ``empty_nodes`` its empty
    nodes are then read by the CRAC 2026 measures' reader."""
    if isinstance(skeleton, ScoringInputError):
        return [skeleton]

    def problems(most: int) -> list:
        try:
            return validate_against_skeleton(
                skeleton,
                str(response.path),
                options=options,
                key_label=str(key_path),
                max_problems=most,
                expected_by="the phase",
            )
        except ScoringInputError as exc:  # a reader may raise instead of returning
            return [exc]

    first = problems(1)
    if not first and empty_nodes:
        # CRAC 2026: the empty-node measures read every empty node's DEPS; a run they
        # cannot read is refused here, not after it was queued.
        try:
            read_empty_nodes(response.path)
        except ScoringInputError as exc:
            return [exc]
    if not first or getattr(first[0], "code", None) in FATAL_CODES:
        return first
    return problems(MAX_PROBLEMS)


MAX_PROBLEMS = 50  # read of a file with problems (then condensed: `condensed`)


# Command-line advice means nothing on the web: the platform chooses the format and options.
def response_heads_check(
    *, phase: Phase, received: Mapping[str, ReceivedFile], subcorpora: Mapping[str, SubCorpus]
) -> list[Problem]:
    """The cheap check an upload's request makes of each file: its first lines say the
    format the phase expects (``this is a CONLL-UA file; the phase expects CorefUD
    CoNLL-U`` otherwise). The rest of the file is read by the worker."""
    problems: list[Problem] = []
    for slug, response in received.items():
        subcorpus = subcorpora[slug]
        try:
            expected = detect_format(str(subcorpus.key_path))
        except (ScoringInputError, OSError):
            continue  # the key's own fault: the worker's check says it
        wrong = expected and format_mismatch(str(response.path), expected, expected_by="the phase")
        if wrong:
            problems.append(
                problem_from(
                    wrong, response=response, subcorpus=subcorpus, key_path=subcorpus.key_path
                )
            )
    return problems


class RunRefused(ScoringInputError):
    """A run's files do not fit their gold keys: ``problems`` lists them as the team reads
    them. Raised by the worker's check, before anything of the run is scored."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        first = self.problems[0] if self.problems else None
        super().__init__(
            first.file if first else "",
            first.line if first else None,
            first.message if first else "the files do not fit their gold keys",
            code="invalid_files",
            document=first.document if first else None,
        )

    def __reduce__(self):
        return (type(self), (self.problems,))


def received_file(submitted: SubmissionFile) -> ReceivedFile:
    """A stored file as the checks read it: its path on disk, named as uploaded."""
    return ReceivedFile(
        subcorpus_slug=submitted.subcorpus.slug,
        original_name=submitted.original_name,
        path=submitted.absolute_path,
        size=submitted.size,
        sha256=submitted.sha256,
    )


def submission_files_check(
    *, submission: Submission, files: Iterable[SubmissionFile]
) -> list[Problem]:
    """The problems of a run's stored files (all, or one dataset's), checked against their
    gold keys as the upload's request checked them before: the same messages, condensed
    per file. Empty when they fit; a run checked already is not read again."""
    if submission.validated_at is not None:
        return []
    chosen = list(files)
    received = {f.subcorpus.slug: received_file(f) for f in chosen}
    subcorpora = {f.subcorpus.slug: f.subcorpus for f in chosen}
    return response_files_check(phase=submission.phase, received=received, subcorpora=subcorpora)


def submission_files_validate(*, submission: Submission, files: Iterable[SubmissionFile]) -> None:
    """Check every stored file of a run not checked yet (the scorer refused one: the list
    names every file's problems); raise `RunRefused` with them (`ScoringError` for a gold
    key's own fault: the platform's). Nothing raised: the files fit."""
    _refuse_for(submission_files_check(submission=submission, files=files))


def submission_file_validate(*, submission: Submission, submitted: SubmissionFile) -> None:
    """Check one stored file of a run (a part of a run scored in parts, refused by the
    scorer); raise as `submission_files_validate`."""
    _refuse_for(submission_files_check(submission=submission, files=[submitted]))


def _refuse_for(problems: Sequence[Problem]) -> None:
    """Raise the run's refusal for ``problems``; a gold key the scorer cannot use is not the
    team's fault: a `ScoringError` (the run fails as the platform's, not counted)."""
    if on_key := [p for p in problems if p.file.startswith("gold key of ")]:
        raise ScoringError(on_key[0].message)
    if problems:
        raise RunRefused(problems)


def problems_data(problems: Iterable[Problem]) -> list[dict]:
    """Problems as stored (`Submission.problems`) and sent by the API."""
    return [asdict(problem) for problem in problems]


def refusal_message(problems: Sequence[Problem]) -> str:
    """A refused run's message: what the upload's 400 said, then one line per problem."""
    lines = [
        "The response files do not match the gold keys; nothing was scored and the run "
        "does not count against your limits.",
        *(str(problem) for problem in problems),
    ]
    return "\n".join(lines)


def submission_refuse(
    *, submission: Submission, problems: Sequence[Problem], task_id: str | None, log: str = ""
) -> bool:
    """End a pending run refused by the check of its files: status ``rejected``, its
    problems stored, its parts and its files' contents removed (the run's page lists the
    files by name and size, from their rows). With ``task_id``, only the job that holds the
    claim may. Returns whether this call ended it."""
    pending = Submission.objects.filter(
        pk=submission.pk, status__in=[Status.QUEUED, Status.SCORING]
    )
    if task_id is not None:
        pending = pending.filter(claimed_by=task_id)
    now = timezone.now()
    said = (
        f"{now:%Y-%m-%d %H:%M:%S} UTC: checked against the gold keys: refused "
        f"({len(problems)} problem{'s' if len(problems) != 1 else ''}); nothing was scored"
    )
    log = f"{log}\n{said}" if log else said
    fields = {"scoring_log": Concat(F("scoring_log"), Value("\n" + log[:20000]))}
    ended = pending.update(
        status=Status.REJECTED,
        problems=problems_data(problems),
        error=refusal_message(problems)[:10000],
        failed_at=now,
        platform_failure=False,
        claimed_by="",
        updated_at=now,
        **fields,
    )
    if ended:
        notification_enqueue(submission_id=submission.pk)
        ScoringPart.objects.filter(submission_id=submission.pk).delete()
        shutil.rmtree(
            Path(settings.MEDIA_ROOT) / "submissions" / str(submission.pk), ignore_errors=True
        )
    return ended == 1
