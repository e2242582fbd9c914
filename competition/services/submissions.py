"""Submissions: upload, count, queue; cancel, choose, disqualify.

The order of ``submission_create`` is the point: everything cheap that can reject an upload
(phase dates, membership, limits, names and sizes, zip safety, each file's first lines)
runs before anything is written, so a refused upload stores nothing and spends no quota.
The limit check is repeated under a lock on the team row so that concurrent uploads cannot
exceed a limit. The full reading of each file against its gold key is the scoring worker's
(`competition.services.validation`): the run is stored as received, counts while it is
checked, and stops counting if it is refused.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Mapping
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
from competition.selectors import track_named
from competition.services import card_answers as cards
from competition.services.audit import audit_record
from competition.services.dispatch import scoring_enqueue
from competition.services.pages import participation_check
from competition.services.problems import Problem, subcorpus_documents, web_wording
from competition.services.runs import run_link_check
from competition.services.validation import response_files_check, response_heads_check
from competition.uploads import (
    ReceivedFile,
    Upload,
    UploadLimits,
    receive_files,
    receive_zip,
    subcorpus_for_name,
)
from competition.visibility import user_is_organizer

Status = Submission.Status


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
    """Submissions that count against the limits: every run of the team's from its upload
    on, while it is checked too (a burst of uploads cannot pass a limit while the worker
    checks them); not those refused by the check, cancelled, failed by the platform, set
    aside after a key change, nor baselines."""
    return (
        Submission.objects.filter(team=team, phase=phase, is_baseline=False)
        .exclude(status__in=[Status.CANCELLED, Status.REJECTED, Status.SET_ASIDE])
        .exclude(status=Status.FAILED, platform_failure=True)
    )


def submission_quota(*, team: Team, phase: Phase, at: datetime | None = None) -> Quota:
    """How much of its daily (UTC day of the upload) and total limits the team has used in
    the phase."""
    at = at or timezone.now()
    day_start = utc_day_start(at)
    counted = submissions_counted(team=team, phase=phase)
    return Quota(
        daily_used=counted.filter(
            created_at__gte=day_start, created_at__lt=day_start + timedelta(days=1)
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
    one zip whose members are named by sub-corpus. Raises ``SubmissionRejected`` (nothing
    stored or counted) for a closed phase, a user not in the team, a limit reached, an unsafe
    upload or a file whose first lines are in another format (``invalid_files``). The run is
    stored as received; the worker reads each file against its gold key before scoring it
    (`services.validation`). Baselines (organizer team only) skip dates and limits and are
    read whole here; ``track`` (a slug) is required in a task with tracks, but for baselines;
    ``card``: system-card answers; a used ``idempotency_key`` returns that run (replayed).
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
        received = _received_checked(
            phase=phase,
            files=files,
            archive=archive,
            subcorpora=subcorpora,
            workdir=Path(tmp),
            whole=is_baseline,
        )
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
            log=_upload_log(
                at=now, zipped=archive is not None, received=received, subcorpora=subcorpora
            ),
            card=answers,
            idempotency_key=key,
        )


def _received_checked(
    *,
    phase: Phase,
    files: Mapping[str, Upload] | None,
    archive: Upload | None,
    subcorpora: Mapping[str, SubCorpus],
    workdir: Path,
    whole: bool = False,
) -> dict[str, ReceivedFile]:
    """The upload's files by sub-corpus slug, with the request's cheap checks passed: one
    file per dataset (or the datasets a ``missing: zero`` phase lets a team skip), a safe
    archive, each file's first lines in the phase's format. With ``whole`` (a baseline: the
    organizers load it with a definition, which says at once what is wrong) each file is
    read against its key here, as the worker reads a team's run."""
    try:
        received = _receive(
            files=files,
            archive=archive,
            subcorpora=subcorpora,
            workdir=workdir,
            skipping_allowed=phase.missing == Phase.Missing.ZERO,
        )
    except SubmissionRejected as refused:
        raise _keyless_refusal(phase=phase, refused=refused) from None
    check = response_files_check if whole else response_heads_check
    if problems := check(phase=phase, received=received, subcorpora=subcorpora):
        raise SubmissionRejected("invalid_files", problems=problems)
    return received


def _upload_log(
    *,
    at: datetime,
    zipped: bool,
    received: Mapping[str, ReceivedFile],
    subcorpora: Mapping[str, SubCorpus],
) -> str:
    """The run's first log lines: what arrived, and that it waits for its check."""
    what = "one zip" if zipped else f"{len(received)} file(s)"
    log = [f"{at:%Y-%m-%d %H:%M:%S} UTC: received {what}"]
    log += [
        f"{subcorpora[slug].name}: {response.original_name} ({response.size:,} bytes)"
        for slug, response in received.items()
    ]
    log.append("queued: each file is checked against its gold key, then scored")
    return "\n".join(log)


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
                validated_keys={
                    str(subcorpora[slug].pk): subcorpora[slug].sha256 for slug in received
                },
                status=Status.QUEUED,
                created_at=_dated(phase=phase, at=now, is_baseline=is_baseline),
                # a team's files are checked by the worker (`services.validation`)
                validated_at=now if is_baseline else None,
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
    "subcorpus_documents",
    "Quota",
    "submission_create",
    "idempotency_key_check",
    "submission_precheck",
    "web_wording",
    "upload_request_check",
    "submission_cancel",
    "submission_choose",
    "submission_disqualify",
    "submission_quota",
    "submissions_counted",
]
