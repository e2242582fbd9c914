"""Submissions: upload, validate, count, queue; cancel, choose, disqualify.

The order of ``submission_create`` is the point: everything that can reject an upload (phase
dates, membership, limits, zip safety, validation with the scorer's own reader) runs before
anything is written, so a rejected upload stores nothing and spends no quota. The limit check
is repeated under a lock on the team row so that concurrent uploads cannot exceed a limit.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from competition.errors import CompetitionError, SubmissionRejected
from competition.models import (
    AuditEntry,
    Membership,
    Phase,
    SubCorpus,
    Submission,
    SubmissionFile,
    Team,
    Track,
)
from competition.selectors import subcorpus_skeleton, track_named
from competition.services import card_answers as cards
from competition.services.audit import audit_record
from competition.services.dispatch import scoring_enqueue
from competition.services.pages import participation_check
from competition.services.runs import run_link_check
from competition.task_scoring import (
    TASK_MODE,
    evaluates_empty_nodes,
    scoring_modes,
    validation_options,
)
from competition.uploads import (
    ReceivedFile,
    Upload,
    UploadLimits,
    receive_files,
    receive_zip,
    subcorpus_for_name,
)
from competition.visibility import user_is_organizer
from scoring import ScoringInputError, UsageError
from scoring.api import validate_against_skeleton
from scoring.empty_nodes import read_empty_nodes
from scoring.filenames import dataset_for_documents, file_newdoc_ids
from scoring.forked import CannotFork, ChildDied, Forked

logger = logging.getLogger(__name__)
Status = Submission.Status


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an uploaded response file, as shown to the team."""

    file: str  # the name the team uploaded
    subcorpus: str
    document: str | None
    line: int | None
    message: str
    code: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        doc = f" [document {self.document}]" if self.document else ""
        return f"{where}{doc}: {self.message}"


def upload_warnings_from(
    messages: Sequence[str], *, response: ReceivedFile, subcorpus: SubCorpus
) -> list[dict[str, Any]]:
    """The scorer's warnings about an accepted ``response`` (``FILE:LINE: message``, e.g. a
    MISC attribute that looks like a misspelt ``Entity``, whose mentions are not read) as
    `Submission.upload_warnings` keeps them: the file named as uploaded, its sub-corpus, the
    line apart and the message in the web's words."""
    prefix = f"{response.path}:"
    found = []
    for message in messages:
        line: int | None = None
        text = message.replace(str(response.path), response.original_name)
        if message.startswith(prefix):
            number, _, rest = message[len(prefix) :].partition(": ")
            if number.isdigit():
                line, text = int(number), rest
        found.append(
            {
                "file": response.original_name,
                "subcorpus": subcorpus.name,
                "line": line,
                "message": web_wording(text),
            }
        )
    return found


@dataclass(frozen=True, slots=True)
class Quota:
    daily_used: int
    daily_limit: int
    total_used: int
    total_limit: int
    resets_at: datetime

    @property
    def remaining(self) -> int:
        return max(0, min(self.daily_limit - self.daily_used, self.total_limit - self.total_used))


def upload_limits() -> UploadLimits:
    return UploadLimits(
        max_upload_bytes=settings.SUBMISSION_MAX_UPLOAD_BYTES,
        max_uncompressed_bytes=settings.SUBMISSION_MAX_UNCOMPRESSED_BYTES,
        max_compression_ratio=settings.SUBMISSION_MAX_COMPRESSION_RATIO,
    )


def upload_request_check(*, phase: Phase, content_length: int | None) -> None:
    """Refuse a request body larger than the files the phase can take, before it is read:
    one capped file per available sub-corpus (or one capped zip), plus room for the form."""
    if content_length is None:
        return
    files = max(1, phase.subcorpora.filter(available=True).count())
    limit = settings.SUBMISSION_MAX_UPLOAD_BYTES * files + 1024 * 1024
    if content_length > limit:
        raise SubmissionRejected(
            "upload_too_large", name="of this request", size=content_length, limit=limit
        )


def utc_day_start(at: datetime) -> datetime:
    """Midnight UTC of the day ``at`` falls in: daily limits reset there."""
    return at.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def submissions_counted(*, team: Team, phase: Phase) -> QuerySet[Submission]:
    """Submissions that count against the limits: validated, not cancelled, not failed by the
    platform, not set aside after a key change, not baselines."""
    return (
        Submission.objects.filter(
            team=team, phase=phase, validated_at__isnull=False, is_baseline=False
        )
        .exclude(status__in=[Status.CANCELLED, Status.REJECTED, Status.SET_ASIDE])
        .exclude(status=Status.FAILED, platform_failure=True)
    )


def submission_quota(*, team: Team, phase: Phase, at: datetime | None = None) -> Quota:
    """How much of its daily (UTC day) and total limits the team has used in the phase."""
    at = at or timezone.now()
    day_start = utc_day_start(at)
    counted = submissions_counted(team=team, phase=phase)
    return Quota(
        daily_used=counted.filter(
            validated_at__gte=day_start, validated_at__lt=day_start + timedelta(days=1)
        ).count(),
        daily_limit=phase.daily_limit,
        total_used=counted.count(),
        total_limit=phase.total_limit,
        resets_at=day_start + timedelta(days=1),
    )


def _check_limits(*, team: Team, phase: Phase, at: datetime) -> None:
    quota = submission_quota(team=team, phase=phase, at=at)
    if quota.total_used >= quota.total_limit:
        raise SubmissionRejected("total_limit", limit=quota.total_limit)
    if quota.daily_used >= quota.daily_limit:
        raise SubmissionRejected("daily_limit", limit=quota.daily_limit)


def _check_may_submit(*, team: Team, phase: Phase, user, is_baseline: bool, at: datetime) -> None:
    if team.competition_id != phase.task.competition_id:
        raise SubmissionRejected("team_competition", team=team.name)
    if not phase.subcorpora.filter(available=True).exists():
        # A definition may list its datasets before the organizers hold the keys (the CRAC
        # editions do): say so rather than refuse every file as unknown.
        raise SubmissionRejected("no_gold_keys", phase=phase.title)
    if is_baseline:
        if not team.is_organizer_team:
            raise SubmissionRejected("not_a_member", team=team.name)
        return
    if user is None or not Membership.objects.filter(team=team, user=user).exists():
        raise SubmissionRejected("not_a_member", team=team.name)
    participation_check(team=team, user=user)
    if not phase.is_open(at=at):
        raise SubmissionRejected("phase_closed", phase=phase.title)
    _check_limits(team=team, phase=phase, at=at)


def submission_precheck(
    *, team: Team, phase: Phase, user, at: datetime | None = None
) -> SubmissionRejected | None:
    """Why ``user`` cannot submit to ``phase`` for ``team`` now, or None: the upload form is
    shown disabled with this reason, so nobody picks files for a run that would be refused.
    The same rules are checked again when a run arrives."""
    at = at or timezone.now()
    if not phase.is_open(at=at):
        when = "%Y-%m-%d %H:%M UTC"
        if at < phase.start:
            return SubmissionRejected(
                "phase_upcoming",
                phase=phase.title,
                start=phase.start.astimezone(UTC).strftime(when),
            )
        return SubmissionRejected(
            "phase_ended", phase=phase.title, end=phase.end.astimezone(UTC).strftime(when)
        )
    try:
        _check_may_submit(team=team, phase=phase, user=user, is_baseline=False, at=at)
    except SubmissionRejected as exc:
        return exc
    return None


def response_files_check(
    *,
    phase: Phase,
    received: Mapping[str, ReceivedFile],
    subcorpora: Mapping[str, SubCorpus],
    warnings: list[dict[str, Any]] | None = None,
) -> list[Problem]:
    """Validate every response file against its gold key with the scorer's own reader.

    Messages about the gold key's side never name the key's path or line: the team sees only
    "gold key of <sub-corpus>". ``warnings`` receives what the reader warns about in files
    without problems (`upload_warnings_from`).
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
        found, warned = found_by_slug[slug]
        if warnings is not None and not found:
            warnings.extend(upload_warnings_from(warned, response=response, subcorpus=subcorpus))
        file_problems = [
            _problem_from(error, response=response, subcorpus=subcorpus, key_path=Path(key_path))
            for error in found
        ]
        problems.extend(
            _condensed(file_problems, phase=phase, response=response, subcorpus=subcorpus)
        )
    return problems


def _validate_files(
    files: list[tuple[str, SubCorpus, ReceivedFile]],
    *,
    options,
    words: Sequence[str],
    empty_nodes: bool = False,
) -> dict:
    """{slug: (problems, warnings)} of the files (slug, dataset, response), each response checked
    against the skeleton of its dataset's key read with the options ``words`` (kept in the
    cache: the keys are not read; one skeleton at a time in memory); with ``empty_nodes`` (a
    CRAC 2026 task) each file's empty nodes are read as the measures read them too. An
    upload of several large files is checked in ``UPLOAD_VALIDATION_PROCESSES`` processes
    at once (this one and forks of it, `scoring.forked`: each reads files only, its share
    balanced by size, and sends back its problems); where this process may not fork (or
    runs threads: a fork would copy locks other threads hold), or a fork dies, its share is
    checked here."""

    def check(share) -> list[tuple[str, tuple[list, list[str]]]]:
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
) -> tuple[list, list[str]]:
    """The problems of one response file and the reader's warnings about it (``FILE:LINE:
    message``), checked against its key's skeleton (its word
    forms and sentence ids: the key itself is not read again for each upload); messages name
    the key by ``key_path``, as `_problem_from` expects. The reading stops at the document of
    the first problem; only when that one is not fatal (a wrong format, a NUL byte, no
    documents: everything after it would only repeat it) is the file read again for the list
    of its problems. A file without problems is read once; with ``empty_nodes`` its empty
    nodes are then read by the CRAC 2026 measures' reader."""
    if isinstance(skeleton, ScoringInputError):
        return [skeleton], []
    warnings: list[str] = []

    def problems(most: int, warnings: list[str] | None = None) -> list:
        try:
            return validate_against_skeleton(
                skeleton,
                str(response.path),
                options=options,
                key_label=str(key_path),
                max_problems=most,
                warnings=warnings,
                expected_by="the phase",
            )
        except ScoringInputError as exc:  # a reader may raise instead of returning
            return [exc]

    first = problems(1, warnings)
    if not first and empty_nodes:
        # CRAC 2026: the empty-node measures read every empty node's DEPS; a run they
        # cannot read is refused here, not after it was queued.
        try:
            read_empty_nodes(response.path)
        except ScoringInputError as exc:
            return [exc], warnings
    if not first or getattr(first[0], "code", None) in FATAL_CODES:
        return first, warnings
    return problems(MAX_PROBLEMS), warnings


MAX_PROBLEMS = 50  # read of a file with problems (then condensed: `_condensed`)


# Command-line advice means nothing on the web: the platform chooses the format and options.
_CLI_ADVICE = (
    re.compile(r";\s*[^;()]*(?:\s--?[a-z]|python -m|ua-score|codicrac)[^;()]*(?=\))"),
    re.compile(r"\s*\((?:see )?`?(?:python -m|ua-score|codicrac)[^)]*\)"),
    re.compile(r";\s*use -f \w+"),
    re.compile(r", the default format(?=\))"),
)

# After one of these, the rest of a file's problems only repeat it.
FATAL_CODES = frozenset(
    {
        "wrong_format",
        "unsupported_format",
        "unreadable",
        "empty_file",
        "encoding",
        "undecodable",
        "nul_character",
        "tokens_before_newdoc",
        "no_newdoc",
        "bad_columns_header",
        "columns",
    }
)
SAME_CODE_SHOWN = 3  # then "and N more like these"
SPLIT_WORDS = {"dev": "development", "train": "training", "test": "test"}


def web_wording(message: str) -> str:
    """A scorer message as the web shows it: without command-line options or commands."""
    for pattern in _CLI_ADVICE:
        message = pattern.sub("", message)
    return message


def _split_of(text: str) -> str | None:
    words = set(re.split(r"[^a-z0-9]+", text.lower()))
    found = [word for word in SPLIT_WORDS if word in words]
    return found[0] if len(found) == 1 else None


def _wrong_split(
    problems: list[Problem], *, phase: Phase, response: ReceivedFile, subcorpus: SubCorpus
) -> Problem | None:
    """A file of another split (a ``_dev`` file sent to a test phase): its documents are all
    missing and all extra. Say so, instead of listing document names."""
    codes = {problem.code for problem in problems}
    if not codes or not codes <= {"missing_documents", "extra_documents"}:
        return None
    expected = "dev" if phase.kind == Phase.Kind.DEVELOPMENT else "test"
    extra = next((p.message for p in problems if p.code == "extra_documents"), "")
    sent = _split_of(response.original_name) or _split_of(extra.split(":", 1)[-1][:200])
    if sent is None or sent == expected:
        return None
    return Problem(
        file=response.original_name,
        subcorpus=subcorpus.name,
        document=None,
        line=None,
        code="wrong_split",
        message=(
            f"this looks like a {SPLIT_WORDS[sent]} file, but the phase {phase.title} "
            f"scores the {SPLIT_WORDS[expected]} documents of {subcorpus.name}: upload "
            f"your system's output on the {SPLIT_WORDS[expected]} input."
        ),
    )


def _other_subcorpus(
    problems: list[Problem], *, phase: Phase, response: ReceivedFile, subcorpus: SubCorpus
) -> Problem | None:
    """A file given for one sub-corpus whose name says another (``AMI.CONLLUA`` in the LIGHT
    field) and whose documents are all wrong: say which file goes where."""
    codes = {problem.code for problem in problems}
    if not codes or not codes <= {"missing_documents", "extra_documents"}:
        return None
    available = {sc.slug: sc for sc in phase.subcorpora.filter(available=True)}
    others = {slug: sc.name for slug, sc in available.items()}
    named = subcorpus_for_name(response.original_name, others)
    if named is not None and named != subcorpus.slug:
        return Problem(
            file=response.original_name,
            subcorpus=subcorpus.name,
            document=None,
            line=None,
            code="other_subcorpus",
            message=(
                f"this file's name says {others[named]}, but it was given for "
                f"{subcorpus.name} and holds none of its documents: give each "
                "sub-corpus its own file."
            ),
        )
    held = dataset_for_documents(file_newdoc_ids(response.path), subcorpus_documents(available))
    if held is None or held == subcorpus.slug:
        return None
    return Problem(
        file=response.original_name,
        subcorpus=subcorpus.name,
        document=None,
        line=None,
        code="other_subcorpus",
        message=(
            f"this looks like {others[held]}'s file: it holds the documents of "
            f"{others[held]}, not those of {subcorpus.name}. Give each dataset its own "
            "file."
        ),
    )


def _condensed(
    problems: list[Problem], *, phase: Phase, response: ReceivedFile, subcorpus: SubCorpus
) -> list[Problem]:
    """A file's problems as a team can act on them: only the first when it is fatal (the
    wrong format, no documents), the evident fix for a file of another split, and at most a
    few of each kind, then how many more."""
    if not problems:
        return []
    if problems[0].code in FATAL_CODES:
        return problems[:1]
    if (
        hint := _wrong_split(problems, phase=phase, response=response, subcorpus=subcorpus)
        or _other_subcorpus(problems, phase=phase, response=response, subcorpus=subcorpus)
    ) is not None:
        return [hint]
    shown: list[Problem] = []
    hidden: dict[str, int] = {}
    for problem in problems:
        seen = sum(1 for kept in shown if kept.code == problem.code)
        if seen < SAME_CODE_SHOWN:
            shown.append(problem)
        else:
            hidden[problem.code] = hidden.get(problem.code, 0) + 1
    for code, count in hidden.items():
        shown.append(
            Problem(
                file=response.original_name,
                subcorpus=subcorpus.name,
                document=None,
                line=None,
                code=code,
                message=f"… and {count} more like the ones above ({code}); fix those first.",
            )
        )
    return shown


def _problem_from(
    error, *, response: ReceivedFile, subcorpus: SubCorpus, key_path: Path
) -> Problem:
    path = str(getattr(error, "path", ""))
    message = str(getattr(error, "message", error))
    # Never show private or server paths: name files as the team knows them.
    message = message.replace(str(key_path), f"gold key of {subcorpus.name}")
    message = message.replace(str(response.path), response.original_name)
    message = web_wording(message)
    on_key_side = bool(path) and Path(path) == key_path
    if on_key_side:
        # The details (entities, markables, lines) describe the gold annotation: log them for
        # the organizers, tell the team only that the key is at fault.
        logger.error("gold key of %s refused by the scorer: %s", subcorpus.name, message)
        message = (
            f"the gold key of {subcorpus.name} cannot be used by the scorer "
            f"({getattr(error, 'code', 'invalid')}); the organizers must fix it. "
            "Your upload was not counted."
        )
    return Problem(
        file=f"gold key of {subcorpus.name}" if on_key_side else response.original_name,
        subcorpus=subcorpus.name,
        document=getattr(error, "document", None),
        line=None if on_key_side else getattr(error, "line", None),
        message=message,
        code=str(getattr(error, "code", "invalid")),
    )


def _receive(
    *,
    files: Mapping[str, Upload] | None,
    archive: Upload | None,
    subcorpora: Mapping[str, SubCorpus],
    workdir: Path,
    skipping_allowed: bool = False,
) -> dict[str, ReceivedFile]:
    """The files of an upload by sub-corpus slug. Every available sub-corpus needs one, except
    in phases whose rule counts a skipped dataset as 0 (``missing: zero``, CRAC): there a team
    may send only some datasets."""
    names = {slug: sc.name for slug, sc in subcorpora.items()}
    files = {key: value for key, value in (files or {}).items() if value is not None}
    if archive is not None and files:
        raise SubmissionRejected("zip_and_files")
    if archive is not None:
        received = receive_zip(
            archive=archive,
            subcorpora=names,
            workdir=workdir,
            limits=upload_limits(),
            file_names={slug: sc.file_name for slug, sc in subcorpora.items()},
            documents=subcorpus_documents(subcorpora),
        )
    elif files:
        received = receive_files(
            files=files, subcorpora=names, workdir=workdir, limits=upload_limits()
        )
    else:
        raise SubmissionRejected("no_files")
    missing = [sc.name for slug, sc in subcorpora.items() if slug not in received]
    if missing and not skipping_allowed:
        raise SubmissionRejected("missing_files", subcorpora=", ".join(missing))
    return received


def subcorpus_documents(subcorpora: Mapping[str, SubCorpus]) -> dict[str, set[str]]:
    """Each sub-corpus's document names (from its gold key, read when it was stored)."""
    return {
        slug: {str(d.get("name", "")) for d in sc.documents if isinstance(d, dict)}
        for slug, sc in subcorpora.items()
    }


def _store(
    *,
    submission: Submission,
    received: Mapping[str, ReceivedFile],
    subcorpora: Mapping[str, SubCorpus],
) -> Path:
    folder = Path(settings.MEDIA_ROOT) / "submissions" / str(submission.pk)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for slug, response in received.items():
        relative = Path("submissions") / str(submission.pk) / f"{slug}.conllua"
        _keep(response.path, Path(settings.MEDIA_ROOT) / relative)
        rows.append(
            SubmissionFile(
                submission=submission,
                subcorpus=subcorpora[slug],
                path=relative.as_posix(),
                original_name=response.original_name,
                size=response.size,
                sha256=response.sha256,
            )
        )
    SubmissionFile.objects.bulk_create(rows)
    return folder


def _keep(source: Path, target: Path) -> None:
    """The checked file as the run's: linked where both are on one file system (no second
    copy of 47 MiB), else copied."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def submission_create(
    *,
    team: Team,
    phase: Phase,
    user,
    files: Mapping[str, Upload] | None = None,
    archive: Upload | None = None,
    run_name: str = "",
    description: str = "",
    link: str = "",
    is_baseline: bool = False,
    track: str | None = None,
    card: Mapping[str, Any] | None = None,
    idempotency_key: str = "",
) -> Submission:
    """Receive, check and queue a run: one file per available sub-corpus (keyed by slug), or
    one zip whose members are named by sub-corpus.

    Raises ``SubmissionRejected`` (nothing stored, nothing counted) when the phase is closed,
    the user is not in the team, a limit is reached, the upload is unsafe or a file does not
    validate against its gold key (``problems`` then lists file, document and line).
    Baselines (organizer team only) skip dates and limits. In a task with tracks, ``track``
    (a track's slug) says which board ranks the run; it is required there, except for
    baselines, which are shown on every track's board. ``card`` holds the run's system-card
    answers (question slug → answer); a final run answers every required question (checked
    with the rest, before anything is stored), baselines excepted.

    ``idempotency_key`` names the run the sender meant: an upload sent again with a key the
    team used already (a retry after a lost answer) returns that first run, marked
    ``replayed``, before any other check (its quota was spent once, the phase may have closed
    since), and stores nothing.
    """
    key = idempotency_key_check(idempotency_key)
    if key and (first := _run_for_key(team=team, phase=phase, key=key)) is not None:
        return first
    now = timezone.now()
    _check_may_submit(team=team, phase=phase, user=user, is_baseline=is_baseline, at=now)
    link = run_link_check(link=link)
    chosen_track = _track_for(phase=phase, track=track, is_baseline=is_baseline)
    answers = _card_for(phase=phase, card=card or {}, is_baseline=is_baseline)
    subcorpora = {sc.slug: sc for sc in phase.subcorpora.filter(available=True)}
    with tempfile.TemporaryDirectory(prefix="codicrac-upload-") as tmp:
        try:
            received = _receive(
                files=files,
                archive=archive,
                subcorpora=subcorpora,
                workdir=Path(tmp),
                skipping_allowed=phase.missing == Phase.Missing.ZERO,
            )
        except SubmissionRejected as refused:
            raise _keyless_refusal(phase=phase, refused=refused) from None
        begun = time.perf_counter()
        warnings: list[dict[str, Any]] = []
        if problems := response_files_check(
            phase=phase, received=received, subcorpora=subcorpora, warnings=warnings
        ):
            raise SubmissionRejected("invalid_files", problems=problems)
        log = [
            f"{now:%Y-%m-%d %H:%M:%S} UTC: received "
            f"{'one zip' if archive is not None else f'{len(received)} file(s)'}"
        ]
        log += [
            f"{subcorpora[slug].name}: {response.original_name} ({response.size:,} bytes), "
            f"checked against the gold key of {subcorpora[slug].name}"
            for slug, response in received.items()
        ]
        log.append(f"validated in {time.perf_counter() - begun:.2f} s; queued for scoring")
        return _submission_commit(
            team=team,
            phase=phase,
            user=user,
            received=received,
            subcorpora=subcorpora,
            run_name=run_name,
            description=description,
            link=link,
            is_baseline=is_baseline,
            track=chosen_track,
            log="\n".join(log),
            upload_warnings=warnings,
            card=answers,
            idempotency_key=key,
        )


IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def idempotency_key_check(key: str | None) -> str:
    """The key as stored ("" for none), or the refusal of a malformed one."""
    key = (key or "").strip()
    if key and not IDEMPOTENCY_KEY.fullmatch(key):
        raise SubmissionRejected("bad_idempotency_key")
    return key


def _run_for_key(*, team: Team, phase: Phase, key: str) -> Submission | None:
    """The team's run sent with ``key``, marked ``replayed``; a key of a run in another
    phase is refused (a sender's mistake: the upload meant is not that run)."""
    first = Submission.objects.filter(team=team, idempotency_key=key).first()
    if first is None:
        return None
    if first.phase_id != phase.pk:
        raise SubmissionRejected(
            "idempotency_key_reused", submission=first.pk, phase=first.phase.title
        )
    first.replayed = True
    return first


def _keyless_refusal(*, phase: Phase, refused: SubmissionRejected) -> SubmissionRejected:
    """Files refused as naming no dataset may name one that is listed but has no gold key
    yet (a definition may list its datasets before the organizers add the keys): the message
    then says so, instead of leaving the team to wonder about the name. Any other refusal is
    returned as it was."""
    if refused.code != "unknown_files":
        return refused
    keyless = {sc.slug: sc for sc in phase.subcorpora.filter(available=False)}
    names = {slug: sc.name for slug, sc in keyless.items()}
    file_names = {slug: sc.file_name for slug, sc in keyless.items()}
    unknown = [n for n in str(refused.params.get("names", "")).split(", ") if n]
    matched = sorted(
        {
            slug
            for name in unknown
            if (slug := subcorpus_for_name(name, names, file_names)) is not None
        }
    )
    if not matched:
        return refused
    hint = (
        f"No gold key is on the platform yet for {', '.join(names[s] for s in matched)}, "
        "so these files cannot be scored; leave them out of the upload."
    )
    return SubmissionRejected(
        "unknown_files",
        names=refused.params["names"],
        expected=refused.params.get("expected", ""),
        hint=" ".join(filter(None, [refused.params.get("hint", ""), hint])),
    )


def _card_for(*, phase: Phase, card: Mapping[str, Any], is_baseline: bool) -> dict[str, str]:
    """The run's system-card answers, checked by kind, and complete where the phase needs
    them (a final run; not a baseline): the refusal names the questions still to answer."""
    try:
        answers = cards.card_answers_check(competition=phase.task.competition, answers=card)
        if not is_baseline:
            cards.card_check(phase=phase, answers=answers)
    except cards.CardError as exc:
        raise SubmissionRejected(
            exc.code, reason=exc.message, field=exc.field, missing=exc.missing
        ) from None
    return {slug: value for slug, value in answers.items() if value}


def _track_for(*, phase: Phase, track: str | None, is_baseline: bool) -> Track | None:
    """The track a run goes to, or the rule it breaks (checked before anything is stored)."""
    tracks = list(phase.task.tracks.all())
    names = ", ".join(t.name for t in tracks) or "none"
    if not track:
        if tracks and not is_baseline:
            raise SubmissionRejected("track_required", tracks=names)
        return None
    chosen = track_named(tracks=tracks, label=track)
    if chosen is None:
        raise SubmissionRejected("unknown_track", track=track, tracks=names)
    return chosen


def _dated(*, phase: Phase, at: datetime, is_baseline: bool) -> datetime:
    """When a run is shown as submitted: now; but a baseline added to a phase that has ended
    (an earlier edition loaded today) belongs to that phase's time, its start."""
    if is_baseline and phase.end is not None and phase.end < at:
        return phase.start
    return at


def _submission_commit(
    *,
    team: Team,
    phase: Phase,
    user,
    received,
    subcorpora,
    run_name: str,
    description: str,
    is_baseline: bool,
    link: str = "",
    track: Track | None = None,
    log: str = "",
    upload_warnings: Sequence[Mapping[str, Any]] = (),
    card: Mapping[str, str] | None = None,
    idempotency_key: str = "",
) -> Submission:
    folder: Path | None = None
    try:
        with transaction.atomic():
            Team.objects.select_for_update().get(pk=team.pk)  # serialise limit checks
            if idempotency_key and (
                first := _run_for_key(team=team, phase=phase, key=idempotency_key)
            ):
                return first  # the same upload, sent twice at once: the first one won
            now = timezone.now()
            if not is_baseline:
                if not phase.is_open(at=now):
                    raise SubmissionRejected("phase_closed", phase=phase.title)
                _check_limits(team=team, phase=phase, at=now)
            submission = Submission.objects.create(
                team=team,
                phase=phase,
                submitted_by=user,
                run_name=run_name.strip()[:100],
                description=description.strip(),
                link=link,
                is_baseline=is_baseline,
                track=track,
                scoring_log=log,
                upload_warnings=list(upload_warnings),
                validated_keys={
                    str(subcorpora[slug].pk): subcorpora[slug].sha256 for slug in received
                },
                status=Status.QUEUED,
                created_at=_dated(phase=phase, at=now, is_baseline=is_baseline),
                validated_at=now,
                queued_at=now,
                idempotency_key=idempotency_key,
            )
            if card:
                cards.card_answers_create(submission=submission, answers=card)
            folder = _store(submission=submission, received=received, subcorpora=subcorpora)
            scoring_enqueue(submission_id=submission.pk)
    except BaseException:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return submission


def _require_status(submission: Submission, allowed: tuple[str, ...]) -> None:
    if submission.status not in allowed:
        raise CompetitionError(
            "invalid_status",
            submission=submission.pk,
            status=submission.get_status_display().lower(),
            expected=" or ".join(str(s) for s in allowed),
        )


def _check_member_or_organizer(
    *, submission: Submission, user: AbstractBaseUser, organizers: bool
) -> None:
    """Refuse ``user`` unless they are in the submission's team (or, with ``organizers``, an
    organizer of its competition or staff)."""
    if submission_member_check(submission=submission, user=user):
        return
    if organizers and user_is_organizer(competition=submission.phase.task.competition, user=user):
        return
    raise CompetitionError("not_a_member", team=submission.team.name)


@transaction.atomic
def submission_cancel(*, submission: Submission, user: AbstractBaseUser) -> Submission:
    """Cancel a submission that has not been scored yet; it no longer counts. Its team and
    the competition's organizers may."""
    _check_member_or_organizer(submission=submission, user=user, organizers=True)
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    _require_status(submission, tuple(Submission.PENDING_STATUSES))
    submission.status = Status.CANCELLED
    submission.cancelled_at = timezone.now()
    submission.claimed_by = ""
    submission.save(update_fields=["status", "cancelled_at", "claimed_by", "updated_at"])
    return submission


@transaction.atomic
@transaction.atomic
def submission_disqualify(
    *, submission: Submission, reason: str, actor: AbstractBaseUser | None = None
) -> Submission:
    """Mark a submission disqualified (organizers); leaderboards leave it out."""
    Submission.objects.filter(pk=submission.pk).update(
        disqualified=True, disqualified_reason=reason.strip(), updated_at=timezone.now()
    )
    submission.refresh_from_db()
    phase = submission.phase
    audit_record(
        competition=phase.task.competition,
        actor=actor,
        action=AuditEntry.Action.DISQUALIFY,
        detail=f"Submission #{submission.pk} of {submission.team.name} in "
        f"{phase.task.title} › {phase.title}: "
        f"{reason.strip() or 'no reason given'}",
    )
    return submission


@transaction.atomic
def submission_choose(*, submission: Submission, user: AbstractBaseUser) -> Submission:
    """Make this scored submission the one that represents its team (phases with
    counts=chosen). Only its team may."""
    _check_member_or_organizer(submission=submission, user=user, organizers=False)
    phase = submission.phase
    if phase.counts != Phase.Counts.CHOSEN:
        raise CompetitionError("not_chosen_phase", phase=phase.title)
    Team.objects.select_for_update().get(pk=submission.team_id)
    submission = Submission.objects.get(pk=submission.pk)
    _require_status(submission, (Status.SCORED,))
    Submission.objects.filter(team_id=submission.team_id, phase=phase, is_chosen=True).exclude(
        pk=submission.pk
    ).update(is_chosen=False)
    Submission.objects.filter(pk=submission.pk).update(is_chosen=True)
    submission.is_chosen = True
    return submission


def submission_member_check(*, submission: Submission, user: AbstractBaseUser | None) -> bool:
    """Whether ``user`` belongs to the submission's team."""
    return bool(
        user
        and user.is_authenticated
        and Membership.objects.filter(team_id=submission.team_id, user=user).exists()
    )


__all__ = [
    "Problem",
    "Quota",
    "submission_create",
    "idempotency_key_check",
    "submission_precheck",
    "web_wording",
    "upload_warnings_from",
    "upload_request_check",
    "submission_cancel",
    "submission_choose",
    "submission_disqualify",
    "submission_quota",
    "submissions_counted",
]
