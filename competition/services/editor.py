"""Shaping a competition in the browser: competitions, tasks, phases, sub-corpora with their
gold keys, and the data files a phase hands to participants.

Each form builds the part of a competition's spec it edits (`competition.definition.spec`)
and writes it with the one writer (`competition.definition.apply`): the rules are those of a
loaded definition, held once. Slugs are unique at their level; a task's scoring is checked by
the scorer's own parser; a gold key is read like an upload and checked against its task
before it is stored (under its SHA-256 in ``PRIVATE_ROOT/keys/``, shared with loaded
definitions); a task, phase or sub-corpus that holds submissions is never deleted; a phase
whose key or scoring changed has its scored submissions re-scored.

Data files are what participants download (development data, test inputs without
coreference, gold mentions of a gold phase). They are stored under ``PRIVATE_ROOT/data/`` and
served only by a view that checks the release time; a file with the content of a gold key of
the competition (or a zip holding one) is refused, and a key with a data file's content too
(`competition.definition.keys`).
"""

from __future__ import annotations

import contextlib
import hashlib
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.text import get_valid_filename, slugify

from competition.definition import apply
from competition.definition.keys import data_key_clash, file_content_digests
from competition.definition.organizers import Door
from competition.definition.spec import (
    PHASE_FIELDS,
    CompetitionSpec,
    KeyFile,
    Limits,
    PhaseSpec,
    SpecError,
    SubCorpusSpec,
    TaskSpec,
    TrackSpec,
)
from competition.errors import CompetitionError, shown_params
from competition.models import (
    AuditEntry,
    Competition,
    DefinitionJob,
    Phase,
    PhaseDataFile,
    SubCorpus,
    Submission,
    Task,
    Track,
)
from competition.services.audit import audit_record
from competition.services.dispatch import definition_job_enqueue
from competition.services.rescore import phase_rescore
from competition.services.teams import organizer_team_get_or_create
from competition.uploads import CHUNK, Upload

T = TypeVar("T")

MESSAGES: dict[str, str] = {
    "unknown_user": "There is no user named {username!r}.",
    "data_is_key": "{name} is identical to the gold key of {subcorpus}; keys are never given "
    "to participants (only a development phase's own key, marked as its public key).",
    "public_key_not_dev": "Only a development phase hands out its gold key as public data; "
    "{phase} is a {kind} phase, whose keys never reach participants.",
    "too_large": "{name} is larger than the limit of {limit}.",
    "empty_file": "{name} is empty.",
    "bad_release": "The release time was not changed: {reason}",
    "data_name_taken": "The phase already has a data file named {name}.",
    "held": "{what} holds {count_submissions}; deleting it would delete them and their scores.",
    "gone": "{what} was deleted while its key was being read; nothing was changed.",
    "track_name_taken": "The task already has a track named {name!r}.",
    "track_name_required": "A track needs a name.",
    "track_name_long": "A track's name has at most {limit} characters.",
}
"""The editor's own refusals; a spec's rules refuse with their own message (``reason``)."""


class EditorError(CompetitionError):
    """An edit was refused. ``field`` names the form field at fault, if one is."""

    def __init__(self, code: str, *, field: str | None = None, **params: Any) -> None:
        self.field = field
        super().__init__(code, **params)

    @property
    def message(self) -> str:
        if self.code in MESSAGES:
            return MESSAGES[self.code].format(**shown_params(self.params, self.code))
        return str(self.params.get("reason", self.code))


def _spec(build: Callable[[], T]) -> T:
    """Build or apply a spec part; a rule's refusal becomes the form's, on its field."""
    try:
        return build()
    except SpecError as exc:
        raise EditorError(exc.code, field=exc.field, reason=exc.message) from None


def _limit(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def key_max_bytes() -> int:
    return _limit("KEY_MAX_UPLOAD_BYTES", 1024 * 1024 * 1024)


def data_max_bytes() -> int:
    return _limit("DATA_MAX_UPLOAD_BYTES", 1024 * 1024 * 1024)


# --- competitions -----------------------------------------------------------------------


@transaction.atomic
def competition_create(
    *, slug: str, title: str, owner: str, actor: AbstractBaseUser | None = None
) -> Competition:
    """A new, empty draft competition owned and organized by the user named ``owner`` (staff
    only: the page checks; ``actor``: who creates it, None an operator). It stays a draft
    until its organizers publish it."""
    spec = _spec(lambda: CompetitionSpec(slug=slug, title=title, organizers=(owner.strip(),)))
    door = Door.of(actor, "the new-competition page")
    try:
        competition = apply.competition_head_apply(spec=spec, new=True, door=door)
    except SpecError as exc:
        if exc.code == "unknown_user":
            raise EditorError("unknown_user", field="owner", username=owner.strip()) from None
        raise EditorError(exc.code, field=exc.field, reason=exc.message) from None
    organizer_team_get_or_create(competition=competition)
    return competition


def competition_update(
    *, competition: Competition, title: str, description: str = "", website: str = ""
) -> Competition:
    spec = _spec(
        lambda: CompetitionSpec(
            slug=competition.slug, title=title, description=description, website=website
        )
    )
    return _spec(lambda: apply.competition_head_apply(spec=spec))


# --- tasks ------------------------------------------------------------------------------


def task_save(
    *,
    competition: Competition,
    task: Task | None = None,
    slug: str,
    kind: str,
    title: str,
    description: str = "",
    procedure: str = "",
    scorer_options: list[str] | None = None,
    primary_metric: str = "",
) -> tuple[Task, list[Submission]]:
    """Create or update a task; returns it and the submissions re-scored because its
    scoring changed. Blank scoring (no procedure, no options): the kind's."""
    spec = _spec(
        lambda: TaskSpec(
            slug=slug,
            kind=kind,
            title=title,
            description=description,
            procedure=procedure,
            scorer_options=tuple(scorer_options) if scorer_options else None,
            primary_metric=primary_metric,
        )
    )
    with transaction.atomic():
        saved, changed = _spec(
            lambda: apply.task_apply(
                competition=competition, spec=spec, task=task, new=task is None
            )
        )
    rescored: list[Submission] = []
    if changed:
        for phase in saved.phases.all():
            rescored.extend(phase_rescore(phase=phase))
    return saved, rescored


def _held(what: str, submissions) -> None:
    if count := submissions.count():
        raise EditorError("held", what=what, count=count)


def task_delete(*, task: Task) -> None:
    _held(f"The task {task.slug}", Submission.objects.filter(phase__task=task))
    task.delete()


# --- tracks -----------------------------------------------------------------------------
# A task's tracks rank their runs separately (competition.models.Track); a team names one
# at upload. Their slug is fixed once created (boards and the CLI name tracks by it); their
# name, description and order may change at any time; a track is removed only while no run
# names it.


def track_save(
    *, task: Task, track: Track | None = None, slug: str = "", name: str, description: str = ""
) -> Track:
    """Add a track to ``task`` (last in order), or rename an existing one. Written through
    `apply.tracks_apply` with the task's whole list, like a definition's ``tracks``."""
    name = " ".join(name.split())
    if not name:
        raise EditorError("track_name_required", field="name")
    limit = Track._meta.get_field("name").max_length
    if len(name) > limit:
        raise EditorError("track_name_long", field="name", limit=limit)
    same_name = Track.objects.filter(task=task, name__iexact=name)
    if track is not None:
        same_name = same_name.exclude(pk=track.pk)
    if same_name.exists():
        raise EditorError("track_name_taken", field="name", name=name)
    with transaction.atomic():
        tracks = _tracks_locked(task)
        specs = [_track_spec(t) for t in tracks]
        if track is None:
            added = _spec(
                lambda: TrackSpec(
                    slug=slug.strip() or slugify(name), name=name, description=description
                )
            )
            specs.append(added)  # a slug already used: apply refuses it
            slug = added.slug
        else:
            slug = track.slug
            renamed = _spec(lambda: TrackSpec(slug=slug, name=name, description=description))
            specs = [renamed if t.pk == track.pk else spec for t, spec in zip(tracks, specs)]
        written = _spec(lambda: apply.tracks_apply(task=task, tracks=tuple(specs)))
    return next(t for t in written if t.slug == slug)


def _tracks_locked(task: Task) -> list[Track]:
    """The task's tracks in order, locked until the transaction ends (two organizers' edits
    of the list one after the other)."""
    return list(Track.objects.select_for_update().filter(task=task).order_by("order", "id"))


def _track_spec(track: Track) -> TrackSpec:
    return TrackSpec(slug=track.slug, name=track.name, description=track.description)


def track_move(*, track: Track, step: int) -> None:
    """Move a track ``step`` places up (negative) or down among its task's tracks."""
    with transaction.atomic():
        tracks = _tracks_locked(track.task)
        index = next(i for i, t in enumerate(tracks) if t.pk == track.pk)
        target = min(max(index + step, 0), len(tracks) - 1)
        tracks.insert(target, tracks.pop(index))
        _spec(
            lambda: apply.tracks_apply(
                task=track.task, tracks=tuple(_track_spec(t) for t in tracks)
            )
        )


def track_delete(*, track: Track) -> None:
    """Remove a track no run names (its runs would lose the board they were sent to)."""
    _held(f"The track {track.name}", track.submissions.all())
    with transaction.atomic():
        tracks = _tracks_locked(track.task)
        _spec(
            lambda: apply.tracks_apply(
                task=track.task, tracks=tuple(_track_spec(t) for t in tracks if t.pk != track.pk)
            )
        )


# --- phases -----------------------------------------------------------------------------


def phase_save(*, task: Task, phase: Phase | None = None, slug: str, **fields: Any) -> Phase:
    """Create or update a phase. Dates are aware datetimes (stored in UTC); ``time_zone``
    is the zone they are announced in. Keys, limits and dates may change while the phase
    holds submissions: what was submitted stays."""
    if unknown := set(fields) - set(PHASE_FIELDS):
        raise TypeError(f"unknown phase fields {sorted(unknown)}")
    spec = _spec(lambda: PhaseSpec(slug=slug, **fields))
    with transaction.atomic():
        saved, _ = _spec(
            lambda: apply.phase_apply(task=task, spec=spec, phase=phase, new=phase is None)
        )
    return saved


def phase_delete(*, phase: Phase) -> None:
    _held(f"The phase {phase.task.slug}/{phase.slug}", phase.submissions.all())
    for data in phase.data_files.all():
        data.absolute_path.unlink(missing_ok=True)
    phase.delete()


# --- sub-corpora and gold keys ----------------------------------------------------------


def _receive(upload: Upload, *, limit: int, folder: Path) -> tuple[Path, int, str]:
    """Stream an upload into a new file in ``folder``; returns (path, size, sha256)."""
    if upload.size is not None and upload.size > limit:
        raise EditorError("too_large", name=upload.name, limit=limit)
    folder.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(dir=folder, suffix=".part", delete=False)
    digest, size = hashlib.sha256(), 0
    try:
        with handle:
            for chunk in upload.chunks(CHUNK):
                size += len(chunk)
                if size > limit:
                    raise EditorError("too_large", name=upload.name, limit=limit)
                digest.update(chunk)
                handle.write(chunk)
        if size == 0:
            raise EditorError("empty_file", name=upload.name)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return Path(handle.name), size, digest.hexdigest()


@dataclass(frozen=True, slots=True)
class SubcorpusSave:
    subcorpus: SubCorpus
    rescored: tuple[Submission, ...] = ()


def subcorpus_save(
    *,
    phase: Phase,
    subcorpus: SubCorpus | None = None,
    name: str,
    language: str = "",
    file_name: str = "",
    available: bool = True,
    key: Upload | None = None,
    actor: AbstractBaseUser | None = None,
) -> SubcorpusSave:
    """Create or update a sub-corpus (dataset). A new key is read, checked against the task
    and stored first; when it (or the sub-corpus's availability) changes the phase's scored
    runs are re-scored, and the audit log records who changed the key (``actor``)."""
    received: Path | None = None
    try:
        key_file = None
        if key is not None and available:
            received, _, sha = _receive(
                key, limit=key_max_bytes(), folder=Path(settings.PRIVATE_ROOT) / "tmp"
            )
            key_file = KeyFile(path=received, label=_label(key.name), sha256=sha)
        return _subcorpus_write(
            phase=phase,
            subcorpus=subcorpus,
            name=name,
            language=language,
            file_name=file_name,
            available=available,
            key_file=key_file,
            actor=actor,
        )
    finally:
        if received is not None:
            received.unlink(missing_ok=True)


def _label(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).name


def _subcorpus_write(
    *,
    phase: Phase,
    subcorpus: SubCorpus | None,
    name: str,
    language: str,
    file_name: str,
    available: bool,
    key_file: KeyFile | None,
    actor: AbstractBaseUser | None,
) -> SubcorpusSave:
    spec = _spec(
        lambda: SubCorpusSpec(
            name=name, available=available, language=language, file_name=file_name, key=key_file
        )
    )
    before = subcorpus.sha256 if subcorpus is not None else ""
    with transaction.atomic():
        saved, changed = _spec(
            lambda: apply.subcorpus_apply(
                phase=phase, spec=spec, subcorpus=subcorpus, new=subcorpus is None
            )
        )
        if saved.sha256 != before:
            audit_record(
                competition=phase.task.competition,
                actor=actor,
                action=AuditEntry.Action.KEYS_CHANGED,
                detail=f"{phase.task.title} › {phase.title} › {saved.name}: "
                + (f"key {saved.sha256[:12]}" if saved.sha256 else "key removed"),
            )
    rescored: tuple[Submission, ...] = ()
    if changed:
        rescored = tuple(phase_rescore(phase=phase))
    return SubcorpusSave(subcorpus=saved, rescored=rescored)


def subcorpus_save_start(
    *,
    phase: Phase,
    subcorpus: SubCorpus | None = None,
    name: str,
    language: str = "",
    file_name: str = "",
    available: bool = True,
    key: Upload | None = None,
    user: AbstractBaseUser | None = None,
) -> SubcorpusSave | DefinitionJob:
    """`subcorpus_save`, or, for a key larger than ``DEFINITION_JOB_BYTES``, a job that reads
    and stores it outside the request (returned; the phase's edit page shows its progress).
    The form's values are checked before the job is queued; ``user`` is the job's
    ``created_by``, named by the audit log when the job changes the key."""
    if key is None or not available or key.size is None or key.size <= Limits.current().job_bytes:
        return subcorpus_save(
            phase=phase,
            subcorpus=subcorpus,
            name=name,
            language=language,
            file_name=file_name,
            available=available,
            key=key,
            actor=user,
        )
    _spec(lambda: SubCorpusSpec(name=name, language=language, file_name=file_name))
    folder = Path("jobs") / uuid.uuid4().hex
    received, size, sha = _receive(
        key, limit=key_max_bytes(), folder=Path(settings.PRIVATE_ROOT) / folder
    )
    with transaction.atomic():
        job = DefinitionJob.objects.create(
            competition=phase.task.competition,
            kind=DefinitionJob.Kind.KEY,
            phase=phase,
            file_name=_label(key.name),
            path=(folder / received.name).as_posix(),
            size=size,
            created_by=user,
            params={
                "subcorpus": subcorpus.pk if subcorpus is not None else None,
                "name": name,
                "language": language,
                "file_name": file_name,
                "sha256": sha,
            },
        )
        definition_job_enqueue(job_id=job.pk)
    return job


def subcorpus_key_job_apply(
    *, job: DefinitionJob, path: Path, progress: Callable[[str], None]
) -> str:
    """The work of a key job (`subcorpus_save_start`): read, check and store the key, then
    save the sub-corpus; returns what the job's row says when it is done."""
    params = job.params
    subcorpus = None
    if params.get("subcorpus") is not None:
        subcorpus = SubCorpus.objects.filter(pk=params["subcorpus"], phase=job.phase).first()
        if subcorpus is None:
            raise EditorError("gone", what="The sub-corpus")
    progress(f"Reading the gold key {job.file_name}")
    saved = _subcorpus_write(
        phase=job.phase,
        subcorpus=subcorpus,
        name=params["name"],
        language=params.get("language", ""),
        file_name=params.get("file_name", ""),
        available=True,
        key_file=KeyFile(path=path, label=job.file_name, sha256=params.get("sha256", "")),
        actor=job.created_by,
    )
    note = (
        f" {len(saved.rescored)} scored submissions are being re-scored." if saved.rescored else ""
    )
    return (
        f"The key of {saved.subcorpus.name} was stored "
        f"({len(saved.subcorpus.documents)} documents).{note}"
    )


def subcorpus_delete(*, subcorpus: SubCorpus) -> None:
    _held(
        f"The sub-corpus {subcorpus.name}",
        Submission.objects.filter(files__subcorpus=subcorpus).distinct(),
    )
    subcorpus.delete()


# --- data files -------------------------------------------------------------------------


def phase_data_attach(
    *,
    phase: Phase,
    upload: Upload,
    description: str = "",
    release_at: datetime | None = None,
    public_key: bool = False,
) -> PhaseDataFile:
    """Attach a file participants download from the phase page once ``release_at`` (None:
    the phase's start) has come. A file identical to a gold key of the competition is
    refused, unless ``public_key``: the organizers hand out a development phase's own gold
    key (its data released with annotations); a key of any other phase is still refused."""
    file_name = get_valid_filename(PurePosixPath(upload.name.replace("\\", "/")).name)
    if PhaseDataFile.objects.filter(phase=phase, file_name=file_name).exists():
        raise EditorError("data_name_taken", field="file", name=file_name)
    if public_key and phase.kind != Phase.Kind.DEVELOPMENT:
        raise EditorError(
            "public_key_not_dev",
            field="public_key",
            phase=f"{phase.task.slug}/{phase.slug}",
            kind=phase.get_kind_display().lower(),
        )
    private = Path(settings.PRIVATE_ROOT)
    path, size, sha = _receive(upload, limit=data_max_bytes(), folder=private / "tmp")
    try:
        digests = file_content_digests(path)
        key = data_key_clash(
            competition=phase.task.competition,
            digests=digests,
            public_for=phase if public_key else None,
        )
        if key is not None:
            raise EditorError(
                "data_is_key",
                field="file",
                name=file_name,
                subcorpus=f"{key.phase.task.slug}/{key.phase.slug}/{key.name}",
            )
        stored = Path("data") / str(phase.pk) / sha[:16] / file_name
        target = private / stored
        target.parent.mkdir(parents=True, exist_ok=True)
        path.replace(target)
        try:
            return PhaseDataFile.objects.create(
                phase=phase,
                file_name=file_name,
                description=description.strip(),
                path=stored.as_posix(),
                size=size,
                sha256=sha,
                content_digests=digests,
                release_at=release_at,
                public_key=public_key,
            )
        except IntegrityError:  # a concurrent attach of the same name won
            target.unlink(missing_ok=True)
            raise EditorError("data_name_taken", field="file", name=file_name) from None
    finally:
        path.unlink(missing_ok=True)


def phase_data_update(
    *, data: PhaseDataFile, description: str, release_at: datetime | None
) -> PhaseDataFile:
    data.description, data.release_at = description.strip(), release_at
    data.save(update_fields=["description", "release_at"])
    return data


def phase_data_remove(*, data: PhaseDataFile) -> None:
    path = data.absolute_path
    data.delete()
    if not PhaseDataFile.objects.filter(path=data.path).exists():
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # the folder, when it is left empty
            path.parent.rmdir()
