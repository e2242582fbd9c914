"""Shaping a competition in the browser: competitions, tasks, phases, sub-corpora with their
gold keys, and the data files a phase hands to participants.

The rules are the loader's (competition.services.definitions): slugs are unique at their
level; a task's scoring is checked by the scorer's own parser; a gold key is read with the
scorer's own reader before it is stored (under its SHA-256 in ``PRIVATE_ROOT/keys/``, shared
with loaded definitions); a task, phase or sub-corpus that holds submissions is never deleted;
a phase whose key or scoring changed has its scored submissions re-scored.

Data files are what participants download (development data, test inputs without
coreference, gold mentions of a gold phase). They are stored under ``PRIVATE_ROOT/data/`` and
served only by a view that checks the release time; a file identical to a gold key of the
competition is refused, and a key identical to a data file too.
"""

from __future__ import annotations

import contextlib
import hashlib
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils.text import get_valid_filename, slugify
from scoring import ScoringError, ScoringInputError, read_documents
from scoring.procedures import PROCEDURES

from competition.errors import CompetitionError, shown_params
from competition.models import (
    Competition,
    Phase,
    PhaseDataFile,
    SubCorpus,
    Submission,
    Task,
    Track,
)
from competition.services.scoring import phase_rescore
from competition.services.teams import organizer_team_get_or_create
from competition.task_scoring import (
    DEFAULT_OPTIONS,
    DEFAULT_PRIMARY_METRIC,
    DEFAULT_PROCEDURE,
    task_scoring_check,
)
from competition.timezones import zone_get
from competition.uploads import Upload

CHUNK = 1024 * 1024

MESSAGES: dict[str, str] = {
    "bad_slug": "{value!r} is not a URL slug: use lower-case letters, digits, - and _.",
    "slug_taken": "The {level} slug {slug!r} is already used here.",
    "slug_reserved": "{slug!r} is a word of the site's addresses; name the task otherwise "
    "(not one of {reserved}).",
    "name_taken": "The sub-corpus name {name!r} is already used in this phase.",
    "unknown_user": "There is no user named {username!r}.",
    "end_before_start": "The phase ends ({end}) before it starts ({start}).",
    "bad_time_zone": "{reason}",
    "bad_scoring": "{reason}",
    "procedure_and_options": "Give either a scoring procedure or scorer options, not both.",
    "key_required": "An available sub-corpus needs its gold key file.",
    "key_unreadable": "{problem}",
    "key_is_data": "{name} is identical to the data file {data} of phase {phase}, which "
    "participants may download; a gold key must never be given out.",
    "data_is_key": "{name} is identical to the gold key of {subcorpus}; keys are never given "
    "to participants.",
    "too_large": "{name} is larger than the limit of {limit}.",
    "empty_file": "{name} is empty.",
    "bad_release": "The release time was not changed: {reason}",
    "data_name_taken": "The phase already has a data file named {name}.",
    "held": "{what} holds {count_submissions}; deleting it would delete them and their "
    "scores.",
    "track_name_taken": "The task already has a track named {name!r}.",
    "track_name_required": "A track needs a name.",
    "track_name_long": "A track's name has at most {limit} characters.",
}


class EditorError(CompetitionError):
    """An edit was refused. ``field`` names the form field at fault, if one is."""

    def __init__(self, code: str, *, field: str | None = None, **params: Any) -> None:
        self.field = field
        super().__init__(code, **params)

    @property
    def message(self) -> str:
        return MESSAGES.get(self.code, self.code).format(**shown_params(self.params, self.code))


def _limit(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def key_max_bytes() -> int:
    return _limit("KEY_MAX_UPLOAD_BYTES", 1024 * 1024 * 1024)


def data_max_bytes() -> int:
    return _limit("DATA_MAX_UPLOAD_BYTES", 1024 * 1024 * 1024)


def _check_slug(value: str, *, field: str = "slug") -> str:
    value = value.strip()
    if not value or slugify(value) != value:
        raise EditorError("bad_slug", field=field, value=value)
    return value


# --- competitions -----------------------------------------------------------------------

@transaction.atomic
def competition_create(*, slug: str, title: str, owner: str) -> Competition:
    """A new, empty competition whose organizer is the user named ``owner`` (staff only:
    the page checks)."""
    slug = _check_slug(slug)
    user = get_user_model().objects.filter(username=owner.strip()).first()
    if user is None:
        raise EditorError("unknown_user", field="owner", username=owner.strip())
    if Competition.objects.filter(slug=slug).exists():
        raise EditorError("slug_taken", field="slug", level="competition", slug=slug)
    competition = Competition.objects.create(slug=slug, title=title.strip())
    competition.organizers.add(user)
    organizer_team_get_or_create(competition=competition)
    return competition


def competition_update(*, competition: Competition, title: str, description: str = "",
                       website: str = "") -> Competition:
    competition.title = title.strip()
    competition.description = description.strip()
    competition.website = website.strip()
    competition.save(update_fields=["title", "description", "website"])
    return competition


def competition_organizer_add(*, competition: Competition, username: str) -> None:
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise EditorError("unknown_user", field="username", username=username.strip())
    competition.organizers.add(user)


# --- tasks ------------------------------------------------------------------------------

def task_save(*, competition: Competition, task: Task | None = None, slug: str, kind: str,
              title: str, description: str = "", procedure: str = "",
              scorer_options: list[str] | None = None,
              primary_metric: str = "") -> tuple[Task, list[Submission]]:
    """Create or update a task; returns it and the submissions re-scored because its
    scoring changed."""
    slug = _check_slug(slug)
    if slug in Task.RESERVED_SLUGS:
        raise EditorError("slug_reserved", field="slug", slug=slug,
                          reserved=", ".join(sorted(Task.RESERVED_SLUGS)))
    if procedure and scorer_options:
        raise EditorError("procedure_and_options", field="procedure")
    options = list(scorer_options) if scorer_options else list(DEFAULT_OPTIONS[kind])
    if task is None and not procedure and not scorer_options:  # the loader's default
        procedure = DEFAULT_PROCEDURE.get(kind, "")
    default_primary = (PROCEDURES[procedure].primary_metric if procedure in PROCEDURES
                       else DEFAULT_PRIMARY_METRIC[kind])
    primary_metric = primary_metric.strip() or default_primary
    if problem := task_scoring_check(words=options, primary_metric=primary_metric,
                                     procedure=procedure):
        raise EditorError("bad_scoring", field="scorer_options", reason=problem)
    clash = Task.objects.filter(competition=competition, slug=slug)
    if task is not None:
        clash = clash.exclude(pk=task.pk)
    if clash.exists():
        raise EditorError("slug_taken", field="slug", level="task", slug=slug)
    with transaction.atomic():
        if task is None:
            task = Task(competition=competition,
                        order=Task.objects.filter(competition=competition).count())
            changed = False
        else:
            changed = (task.kind, list(task.scorer_options), task.procedure) != (
                kind, options, procedure)
        task.slug, task.kind, task.title = slug, kind, title.strip()
        task.description = description.strip()
        task.scorer_options, task.procedure = options, procedure
        task.primary_metric = primary_metric
        task.save()
    rescored: list[Submission] = []
    if changed:
        for phase in task.phases.all():
            rescored.extend(phase_rescore(phase=phase))
    return task, rescored


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

def track_save(*, task: Task, track: Track | None = None, slug: str = "", name: str,
               description: str = "") -> Track:
    """Add a track to ``task`` (last in order), or rename an existing one."""
    name = " ".join(name.split())
    if not name:
        raise EditorError("track_name_required", field="name")
    if len(name) > Track._meta.get_field("name").max_length:
        raise EditorError("track_name_long", field="name",
                          limit=Track._meta.get_field("name").max_length)
    same_name = Track.objects.filter(task=task, name__iexact=name)
    if track is not None:
        same_name = same_name.exclude(pk=track.pk)
    if same_name.exists():
        raise EditorError("track_name_taken", field="name", name=name)
    if track is None:
        slug = _check_slug(slug.strip() or slugify(name))
        if Track.objects.filter(task=task, slug=slug).exists():
            raise EditorError("slug_taken", field="slug", level="track", slug=slug)
        track = Track(task=task, slug=slug,
                      order=max(task.tracks.values_list("order", flat=True), default=-1) + 1)
    track.name, track.description = name, description.strip()
    track.save()
    return track


def track_move(*, track: Track, step: int) -> None:
    """Move a track ``step`` places up (negative) or down among its task's tracks."""
    with transaction.atomic():
        tracks = list(Track.objects.select_for_update().filter(task_id=track.task_id)
                      .order_by("order", "id"))
        index = next(i for i, t in enumerate(tracks) if t.pk == track.pk)
        target = min(max(index + step, 0), len(tracks) - 1)
        tracks.insert(target, tracks.pop(index))
        for order, moved in enumerate(tracks):
            if moved.order != order:
                moved.order = order
                moved.save(update_fields=["order"])


def track_delete(*, track: Track) -> None:
    """Remove a track no run names (its runs would lose the board they were sent to)."""
    _held(f"The track {track.name}", track.submissions.all())
    track.delete()


# --- phases -----------------------------------------------------------------------------

PHASE_FIELDS = ("kind", "title", "start", "end", "time_zone", "leaderboard_visibility",
                "revealed_at", "show_own_scores_when_hidden", "run_details", "daily_limit",
                "total_limit", "counts", "missing")


def phase_save(*, task: Task, phase: Phase | None = None, slug: str,
               **fields: Any) -> Phase:
    """Create or update a phase. Dates are aware datetimes (stored in UTC); ``time_zone``
    is the zone they are announced in. Keys, limits and dates may change while the phase
    holds submissions: what was submitted stays."""
    slug = _check_slug(slug)
    unknown = set(fields) - set(PHASE_FIELDS)
    if unknown:
        raise TypeError(f"unknown phase fields {sorted(unknown)}")
    try:
        zone_get(fields.get("time_zone", "UTC"))
    except ValueError as exc:
        raise EditorError("bad_time_zone", field="time_zone", reason=str(exc)) from None
    start, end = fields["start"], fields.get("end")
    if end is not None and end < start:
        raise EditorError("end_before_start", field="end", start=start.isoformat(),
                          end=end.isoformat())
    clash = Phase.objects.filter(task=task, slug=slug)
    if phase is not None:
        clash = clash.exclude(pk=phase.pk)
    if clash.exists():
        raise EditorError("slug_taken", field="slug", level="phase", slug=slug)
    if phase is None:
        phase = Phase(task=task, order=Phase.objects.filter(task=task).count())
    phase.slug = slug
    for name, value in fields.items():
        setattr(phase, name, value)
    phase.save()
    return phase


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


def key_documents(path: Path, *, name: str) -> list[dict]:
    """The documents of a gold key, read by the scorer's own reader (as a definition's
    keys are); a key that does not read is refused with its file, line and problem."""
    try:
        documents = read_documents(str(path))
    except ScoringInputError as exc:
        where = name if exc.line is None else f"{name}:{exc.line}"
        raise EditorError("key_unreadable", field="key",
                          problem=f"{where}: {exc.message}") from None
    except ScoringError as exc:
        raise EditorError("key_unreadable", field="key", problem=f"{name}: {exc}") from None
    if not documents:
        raise EditorError("key_unreadable", field="key",
                          problem=f"{name}: no document was found (expected a gold key in "
                          "CONLL-UA or CorefUD CoNLL-U)")
    return [{"name": doc.name, "tokens": len(doc.tokens)} for doc in documents]


def _key_not_data(*, competition: Competition, sha: str, name: str) -> None:
    data = (PhaseDataFile.objects.filter(phase__task__competition=competition, sha256=sha)
            .select_related("phase__task").first())
    if data is not None:
        raise EditorError("key_is_data", field="key", name=name, data=data.file_name,
                          phase=f"{data.phase.task.slug}/{data.phase.slug}")


def key_store(*, competition: Competition, upload: Upload) -> tuple[str, str, list[dict]]:
    """Check and store an uploaded gold key; returns (stored path, sha256, documents)."""
    private = Path(settings.PRIVATE_ROOT)
    path, _, sha = _receive(upload, limit=key_max_bytes(), folder=private / "tmp")
    try:
        _key_not_data(competition=competition, sha=sha, name=upload.name)
        documents = key_documents(path, name=upload.name)
        stored = Path("keys") / f"{sha}.conllua"
        target = private / stored
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            path.replace(target)
    finally:
        path.unlink(missing_ok=True)
    return stored.as_posix(), sha, documents


@dataclass(frozen=True, slots=True)
class SubcorpusSave:
    subcorpus: SubCorpus
    rescored: tuple[Submission, ...] = ()


def subcorpus_save(*, phase: Phase, subcorpus: SubCorpus | None = None, name: str,
                   language: str = "", file_name: str = "", available: bool = True,
                   key: Upload | None = None) -> SubcorpusSave:
    """Create or update a sub-corpus (dataset). A new key is read and stored first; when it
    (or the sub-corpus's availability) changes the phase's scored runs are re-scored."""
    name = " ".join(name.split())
    slug = slugify(name)
    if not slug:
        raise EditorError("bad_slug", field="name", value=name)
    clash = SubCorpus.objects.filter(phase=phase, slug=slug)
    if subcorpus is not None:
        clash = clash.exclude(pk=subcorpus.pk)
    if clash.exists():
        raise EditorError("name_taken", field="name", name=name)
    competition = phase.task.competition
    key_file, sha, documents = ("", "", [])
    if subcorpus is not None and subcorpus.key_file:
        key_file, sha, documents = subcorpus.key_file, subcorpus.sha256, subcorpus.documents
    if key is not None:
        key_file, sha, documents = key_store(competition=competition, upload=key)
    if available and not key_file:
        raise EditorError("key_required", field="key")
    if not available:
        key_file, sha, documents = "", "", []
    before = (subcorpus.available, subcorpus.sha256) if subcorpus is not None else None
    if subcorpus is None:
        subcorpus = SubCorpus(phase=phase, order=SubCorpus.objects.filter(phase=phase).count())
    subcorpus.name, subcorpus.slug = name, slug
    subcorpus.language, subcorpus.file_name = language.strip(), file_name.strip()
    subcorpus.available = available
    subcorpus.key_file, subcorpus.sha256, subcorpus.documents = key_file, sha, documents
    subcorpus.save()
    rescored: tuple[Submission, ...] = ()
    if before is not None and before != (available, sha):
        rescored = tuple(phase_rescore(phase=phase))
    return SubcorpusSave(subcorpus=subcorpus, rescored=rescored)


def subcorpus_delete(*, subcorpus: SubCorpus) -> None:
    _held(f"The sub-corpus {subcorpus.name}",
          Submission.objects.filter(files__subcorpus=subcorpus).distinct())
    subcorpus.delete()


# --- data files -------------------------------------------------------------------------

def phase_data_attach(*, phase: Phase, upload: Upload, description: str = "",
                      release_at: datetime | None = None) -> PhaseDataFile:
    """Attach a file participants download from the phase page once ``release_at`` (None:
    the phase's start) has come. A file identical to a gold key of the competition is
    refused."""
    file_name = get_valid_filename(PurePosixPath(upload.name.replace("\\", "/")).name)
    if PhaseDataFile.objects.filter(phase=phase, file_name=file_name).exists():
        raise EditorError("data_name_taken", field="file", name=file_name)
    private = Path(settings.PRIVATE_ROOT)
    path, size, sha = _receive(upload, limit=data_max_bytes(), folder=private / "tmp")
    try:
        key = (SubCorpus.objects.filter(phase__task__competition=phase.task.competition,
                                        sha256=sha).select_related("phase__task").first())
        if key is not None:
            raise EditorError("data_is_key", field="file", name=file_name,
                              subcorpus=f"{key.phase.task.slug}/{key.phase.slug}/{key.name}")
        stored = Path("data") / str(phase.pk) / sha[:16] / file_name
        target = private / stored
        target.parent.mkdir(parents=True, exist_ok=True)
        path.replace(target)
        try:
            return PhaseDataFile.objects.create(
                phase=phase, file_name=file_name, description=description.strip(),
                path=stored.as_posix(), size=size, sha256=sha, release_at=release_at)
        except IntegrityError:  # a concurrent attach of the same name won
            target.unlink(missing_ok=True)
            raise EditorError("data_name_taken", field="file", name=file_name) from None
    finally:
        path.unlink(missing_ok=True)


def phase_data_update(*, data: PhaseDataFile, description: str,
                      release_at: datetime | None) -> PhaseDataFile:
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
