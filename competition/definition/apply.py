"""Applying a spec to the database: the one writer of a competition's structure.

`competition_apply` writes a whole `CompetitionSpec` (the YAML loader, the definition
upload); the editor's forms write one part of one with the functions it is made of
(`task_apply`, `tracks_apply`, `phase_apply`, `subcorpus_apply`), so every writer follows
the same rules:

- objects are matched by slug and updated, never duplicated; a part given with ``new`` must
  not take a slug already used at its level; a renamed part keeps its identity;
- a whole spec is the record of the structure: tasks, phases and sub-corpora it no longer
  lists are deleted when nothing was submitted to them, and the whole write is refused (and
  rolled back) when something was;
- a gold key is read like an upload, checked against its task and against every data file
  participants may download (`competition.definition.keys`), and stored once per content;
- a phase whose keys or whose task's scoring changed is reported, and re-scored by the caller
  once the write is committed (`competition_apply` does it unless told not to);
- a definition's ``published`` reaches the competition in one place only
  (`publication_apply`), and applying never publishes a competition by itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.db.models import Q

from competition.definition.kept_scoring import scoring_kept
from competition.definition.keys import KeyPlace, key_store, known_keys
from competition.definition.organizers import Door, organizers_apply
from competition.definition.spec import (
    UNSET,
    BaselineSpec,
    CardQuestionSpec,
    CompetitionSpec,
    KeyFile,
    PhaseSpec,
    SpecError,
    StoredKey,
    SubCorpusSpec,
    TaskSpec,
    TrackSpec,
)
from competition.errors import CompetitionError, SubmissionRejected
from competition.models import (
    Competition,
    Phase,
    PhaseDataFile,
    SubCorpus,
    Submission,
    SystemCardQuestion,
    Task,
    Track,
)
from competition.services.boards import board_entries_refresh
from competition.services.pages import page_save, team_approval_require
from competition.services.rescore import phase_rescore
from competition.services.submissions import submission_create
from competition.services.teams import organizer_team_get_or_create
from competition.uploads import subcorpus_for_name


@dataclass(frozen=True, slots=True)
class CompetitionLoad:
    """What applying a whole spec did: the competition, what it deleted, what it queued."""

    competition: Competition
    removed: tuple[str, ...] = ()  # "task", "task/phase", "task/phase/sub-corpus"
    changed_phases: tuple[Phase, ...] = ()  # gold keys or scoring changed
    rescored: tuple[Submission, ...] = ()
    baselines: tuple[Submission, ...] = ()
    # The definition's ``published`` (given or not: true). Applying never publishes nor
    # unpublishes; false keeps a draft a draft even when the operator asks to publish
    # (load_competition --publish).
    publishable: bool = True


@dataclass(slots=True)
class _Seen:
    tasks: set[int] = field(default_factory=set)
    phases: set[int] = field(default_factory=set)
    subcorpora: set[int] = field(default_factory=set)
    changed_phases: dict[int, Phase] = field(default_factory=dict)


# --- the competition ----------------------------------------------------------------------


def competition_apply(
    *,
    spec: CompetitionSpec,
    new: bool = False,
    rescore: bool = True,
    with_baselines: bool = True,
    progress: Callable[[str], None] | None = None,
    door: Door | None = None,
) -> CompetitionLoad:
    """Create or update the competition ``spec`` describes, with its pages, tasks, phases,
    sub-corpora and keys; then re-score what changed and submit its baselines. ``door``:
    who writes it and through which door, for the organizers it lists
    (`competition.definition.organizers`; None may change no organizer).

    The keys are read, checked and stored first, outside the transaction (``progress`` is
    told of each), so that a job loading large keys shows how far it is; then the structure
    is written in one transaction. Raises `SpecError` saying where and what; nothing is
    written then (baselines are submitted after the structure is committed, one by one)."""
    seen = _Seen()
    publishable = spec.published is not False  # read before anything is written
    existing = Competition.objects.filter(slug=spec.slug).first()
    spec = _scoring_kept(spec, existing)
    known = known_keys(competition=existing) if existing is not None else {}
    _keys_store(
        spec, competition=existing or Competition(slug=spec.slug), known=known, progress=progress
    )
    if progress is not None:
        progress("Writing the competition")
    with transaction.atomic():
        competition, _ = _competition_write(spec, new=new, door=door)
        for order, task_spec in enumerate(spec.tasks):
            where = f"tasks[{order}]"
            try:
                task, changed = task_apply(
                    competition=competition, spec=task_spec, order=order, known=known, seen=seen
                )
            except SpecError as exc:
                raise exc.at(where) from None
            if changed:
                seen.changed_phases.update({p.pk: p for p in task.phases.all()})
        removed = _remove_unlisted(competition, seen=seen)
        # A task's primary metric or procedure may have changed, or sub-corpora with their
        # score rows gone: what the boards keep is rebuilt for the competition's phases.
        board_entries_refresh(phases=Phase.objects.filter(task__competition=competition))
    changed_phases = tuple(seen.changed_phases.values())
    rescored: list[Submission] = []
    if rescore:
        for phase in changed_phases:
            rescored.extend(phase_rescore(phase=phase))
    baselines = (
        baselines_apply(competition=competition, baselines=spec.baselines) if with_baselines else []
    )
    return CompetitionLoad(
        competition=competition,
        removed=removed,
        changed_phases=changed_phases,
        rescored=tuple(rescored),
        baselines=tuple(baselines),
        publishable=publishable,
    )


def _scoring_kept(spec: CompetitionSpec, existing: Competition | None) -> CompetitionSpec:
    """The spec with each task's scoring left out taken from the stored task of its slug
    (`kept_scoring`): the keys are checked, and the tasks written, with it."""
    stored = {t.slug: t for t in existing.tasks.all()} if existing is not None else {}
    tasks = []
    for order, task in enumerate(spec.tasks):
        try:
            tasks.append(scoring_kept(task, stored.get(task.slug)))
        except SpecError as exc:
            raise exc.at(f"tasks[{order}]") from None
    return replace(spec, tasks=tuple(tasks))


def _keys_store(
    spec: CompetitionSpec,
    *,
    competition: Competition,
    known: dict,
    progress: Callable[[str], None] | None,
) -> None:
    """Read, check and store every key the spec brings as a file; the spec then names them
    as stored keys. Each is checked for the task the spec gives (its kind and scoring)."""
    pending = [
        (f"tasks[{t}].phases[{p}].subcorpora[{s}]", task, phase, sub, sub.key)
        for t, task in enumerate(spec.tasks)
        for p, phase in enumerate(task.phases or ())
        for s, sub in enumerate(phase.subcorpora or ())
        if isinstance(sub.key, KeyFile)
    ]
    for number, (where, task_spec, phase_spec, sub, key) in enumerate(pending, start=1):
        if progress is not None:
            progress(f"Reading the gold key {key.label} ({number} of {len(pending)})")
        task = Task(
            competition=competition,
            slug=task_spec.slug,
            kind=task_spec.kind,
            procedure=task_spec.procedure,
            scorer_options=list(task_spec.scorer_options or ()),
        )
        try:
            place = KeyPlace(task=task_spec.slug, phase=phase_spec.slug, kind=phase_spec.kind)
            sub.key = key_store(key=key, task=task, known=known, place=place)
        except SpecError as exc:
            raise exc.at(where) from None


def competition_head_apply(
    *, spec: CompetitionSpec, new: bool = False, door: Door | None = None
) -> Competition:
    """Create or update a competition's own fields, organizers, pages and settings only (its
    tasks stay as they are): the editor's competition forms. ``door``: who writes it and
    through which door (`competition.definition.organizers`; None may change no organizer)."""
    with transaction.atomic():
        competition, _ = _competition_write(spec, new=new, door=door)
    return competition


def _competition_write(
    spec: CompetitionSpec, *, new: bool, door: Door | None
) -> tuple[Competition, bool]:
    values = {
        name: value
        for name, value in (
            ("title", spec.title),
            ("description", spec.description),
            ("website", spec.website),
        )
        if value is not UNSET
    }
    if new:
        if Competition.objects.filter(slug=spec.slug).exists():
            raise SpecError(
                "slug_taken",
                field="slug",
                reason=f"the competition slug {spec.slug!r} is already used",
            )
        competition, created = Competition.objects.create(slug=spec.slug, **values), True
    else:
        competition, created = Competition.objects.update_or_create(slug=spec.slug, defaults=values)
    organizers_apply(competition=competition, listed=spec.organizers, door=door, created=created)
    if spec.team_approval is not None:
        team_approval_require(competition=competition, required=spec.team_approval)
    for kind, body in spec.pages.items():
        page_save(competition=competition, kind=kind, body=body)
    if spec.card_questions is not None:
        _card_questions_apply(competition, spec.card_questions)
    publication_apply(competition=competition, published=spec.published, created=created)
    return competition, created


def _card_questions_apply(
    competition: Competition, questions: tuple[CardQuestionSpec, ...]
) -> None:
    """The system card's questions, in order; one a run answered is never removed."""
    for order, q in enumerate(questions):
        SystemCardQuestion.objects.update_or_create(
            competition=competition,
            slug=q.slug,
            defaults={
                "text": q.text,
                "kind": q.kind,
                "choices": list(q.choices),
                "required": q.required,
                "on_board": q.on_board,
                "when": dict(q.when),
                "order": order,
            },
        )
    unlisted = SystemCardQuestion.objects.filter(competition=competition).exclude(
        slug__in=[q.slug for q in questions]
    )
    if held := [q.slug for q in unlisted if q.answers.exists()]:
        raise SpecError(
            "held",
            field="card_questions",
            reason=(f"the system-card questions {', '.join(held)} are answered by runs; keep them"),
        )
    unlisted.delete()


def publication_apply(*, competition: Competition, published: bool | None, created: bool) -> None:
    """Where a definition's ``published`` meets the competition: the one place.

    A definition never publishes nor unpublishes: ``published_at`` is written by
    `competition.services.publish` only (the organizers' step, after its checklist, or the
    operator's ``load_competition --publish``). A competition created by applying a spec is a
    draft (the model's default); ``published: false`` is returned to the caller as
    `CompetitionLoad.publishable` and keeps a draft a draft when the operator asks to publish.
    Taking a published competition back to draft is the organizers' own step too (it is
    refused once participants have joined), so nothing is written here."""
    del competition, published, created


# --- tasks, tracks, phases, sub-corpora ---------------------------------------------------


def task_apply(
    *,
    competition: Competition,
    spec: TaskSpec,
    task: Task | None = None,
    new: bool = False,
    order: int | None = None,
    known: dict | None = None,
    seen: _Seen | None = None,
) -> tuple[Task, bool]:
    """Create or update a task (``task``: the one the editor edits, which may be renamed;
    else matched by slug). Returns it and whether its scoring changed (its phases must be
    re-scored)."""
    clash = Task.objects.filter(competition=competition, slug=spec.slug)
    if task is not None:
        clash = clash.exclude(pk=task.pk)
    elif not new:
        task = clash.first()
        clash = clash.none()
    if clash.exists():
        raise SpecError(
            "slug_taken", field="slug", reason=f"the task slug {spec.slug!r} is already used here"
        )
    spec = scoring_kept(spec, task)  # (already resolved when the whole competition is applied)
    if task is None:
        task = Task(
            competition=competition, order=Task.objects.filter(competition=competition).count()
        )
        changed = False
    else:
        # (a spec's scorer options are never None once checked, `TaskSpec.checked`, nor when
        # read from what is stored)
        changed = (task.kind, list(task.scorer_options), task.procedure) != (
            spec.kind,
            list(spec.scorer_options or ()),
            spec.procedure,
        )
    if order is not None:
        task.order = order
    task.slug, task.kind, task.title = spec.slug, spec.kind, spec.title
    task.procedure = spec.procedure
    if spec.description is not UNSET:
        task.description = spec.description
    task.scorer_options = list(spec.scorer_options or ())
    task.primary_metric = spec.primary_metric
    task.save()
    if seen is not None:
        seen.tasks.add(task.pk)
    if spec.tracks is not None:
        tracks_apply(task=task, tracks=spec.tracks)
    for phase_order, phase_spec in enumerate(spec.phases or ()):
        try:
            phase, phase_changed = phase_apply(
                task=task, spec=phase_spec, order=phase_order, known=known, seen=seen
            )
        except SpecError as exc:
            raise exc.at(f"phases[{phase_order}]") from None
        if phase_changed and seen is not None:
            seen.changed_phases[phase.pk] = phase
    return task, changed


def tracks_apply(*, task: Task, tracks: tuple[TrackSpec, ...]) -> list[Track]:
    """The task's tracks, in this order (the whole list: the YAML loader's and the editor's
    track section's): each ranks separately; a team picks one at upload. Matched by slug;
    a track no longer listed is removed, unless it holds submissions (then nothing is
    written). Returns the tracks in order."""
    slugs = [track.slug for track in tracks]
    if twice := sorted({slug for slug in slugs if slugs.count(slug) > 1}):
        raise SpecError(
            "slug_taken",
            field="slug",
            reason=f"the track slug {twice[0]!r} is already used in the task",
        )
    unlisted = Track.objects.filter(task=task).exclude(slug__in=slugs)
    if held := [t.name for t in unlisted if t.submissions.exists()]:
        raise SpecError(
            "held",
            field="tracks",
            reason=(
                f"the file no longer lists the tracks {', '.join(held)}, which hold "
                "submissions; put them back in the file"
            ),
        )
    unlisted.delete()
    written: list[Track] = []
    for order, track in enumerate(tracks):
        saved, _ = Track.objects.update_or_create(
            task=task,
            slug=track.slug,
            defaults={
                "name": track.name,
                "order": order,
                **({"description": track.description} if track.description is not UNSET else {}),
            },
        )
        written.append(saved)
    return written


def phase_apply(
    *,
    task: Task,
    spec: PhaseSpec,
    phase: Phase | None = None,
    new: bool = False,
    order: int | None = None,
    known: dict | None = None,
    seen: _Seen | None = None,
) -> tuple[Phase, bool]:
    """Create or update a phase and, when the spec lists them, its sub-corpora. Returns it
    and whether a gold key changed (its scored runs must be re-scored)."""
    clash = Phase.objects.filter(task=task, slug=spec.slug)
    if phase is not None:
        clash = clash.exclude(pk=phase.pk)
    elif not new:
        phase = clash.first()
        clash = clash.none()
    if clash.exists():
        raise SpecError(
            "slug_taken", field="slug", reason=f"the phase slug {spec.slug!r} is already used here"
        )
    if phase is not None and seen is not None and phase.pk in seen.phases:
        raise SpecError(
            "slug_taken", field="slug", reason=f"phase slug {spec.slug!r} is used twice in the task"
        )
    if phase is None:
        phase = Phase(task=task, order=Phase.objects.filter(task=task).count())
    if order is not None:
        phase.order = order
    phase.slug = spec.slug
    revealed = phase.revealed_at
    for name, value in spec.values().items():
        setattr(phase, name, value)
    _reveal_settle(phase, before=revealed)
    if phase.end is not None and phase.end < phase.start:  # an end kept, a start given
        raise SpecError(
            "end_before_start",
            field="start",
            reason=f"'start' is after the phase's end ({phase.start.isoformat()} > "
            f"{phase.end.isoformat()}); give 'end' too",
        )
    phase.save()
    if seen is not None:
        seen.phases.add(phase.pk)
    changed = False
    for sc_order, sub in enumerate(spec.subcorpora or ()):
        try:
            subcorpus, sub_changed = subcorpus_apply(
                phase=phase, spec=sub, order=sc_order, known=known
            )
        except SpecError as exc:
            raise exc.at(f"subcorpora[{sc_order}]") from None
        changed = changed or sub_changed
        if seen is not None:
            seen.subcorpora.add(subcorpus.pk)
    return phase, changed


def _reveal_settle(phase: Phase, *, before) -> None:
    """A reveal date the spec gives as stored (to the minute: the editor's form shows
    minutes) keeps the stored moment and how it was set; another one is a scheduled reveal,
    which a clone carries (a reveal by hand is not)."""
    after = phase.revealed_at
    same = after == before or (
        after is not None
        and before is not None
        and after.replace(second=0, microsecond=0) == before.replace(second=0, microsecond=0)
    )
    if same:
        phase.revealed_at = before
    else:
        phase.reveal_scheduled = after is not None


def subcorpus_apply(
    *,
    phase: Phase,
    spec: SubCorpusSpec,
    subcorpus: SubCorpus | None = None,
    new: bool = False,
    order: int | None = None,
    known: dict | None = None,
) -> tuple[SubCorpus, bool]:
    """Create or update a sub-corpus (dataset). A new key is read, checked and stored first.
    Returns it and whether its key or availability changed."""
    clash = SubCorpus.objects.filter(phase=phase, slug=spec.slug)
    if subcorpus is not None:
        clash = clash.exclude(pk=subcorpus.pk)
    elif not new:
        subcorpus = clash.first()
        clash = clash.none()
    if clash.exists():
        raise SpecError(
            "name_taken",
            field="name",
            reason=(f"the sub-corpus name {spec.name!r} is already used in this phase"),
        )
    stored: StoredKey | None = None
    if isinstance(spec.key, KeyFile):
        stored = key_store(key=spec.key, task=phase.task, known=known, place=KeyPlace.of(phase))
    elif isinstance(spec.key, StoredKey):
        stored = spec.key
    elif subcorpus is not None and subcorpus.key_file:
        stored = StoredKey(
            key_file=subcorpus.key_file,
            sha256=subcorpus.sha256,
            documents=tuple(subcorpus.documents),
            content_sha256=subcorpus.content_sha256,
        )
    if spec.available and stored is None:
        raise SpecError(
            "key_required", field="key", reason="an available sub-corpus needs its gold key file"
        )
    if not spec.available:
        stored = None
    before = (subcorpus.available, subcorpus.sha256) if subcorpus is not None else None
    if subcorpus is None:
        subcorpus = SubCorpus(phase=phase, order=SubCorpus.objects.filter(phase=phase).count())
    if order is not None:
        subcorpus.order = order
    subcorpus.name, subcorpus.slug = spec.name, spec.slug
    if spec.language is not UNSET:
        subcorpus.language = spec.language
    if spec.file_name is not UNSET:
        subcorpus.file_name = spec.file_name
    subcorpus.available = spec.available
    subcorpus.key_file = stored.key_file if stored else ""
    subcorpus.sha256 = stored.sha256 if stored else ""
    subcorpus.documents = list(stored.documents) if stored else []
    subcorpus.content_sha256 = stored.content_sha256 if stored else ""
    subcorpus.save()
    changed = before is not None and before != (subcorpus.available, subcorpus.sha256)
    return subcorpus, changed


# --- deleting parts -----------------------------------------------------------------------
# The one delete path of a competition's parts, for the editor's deletes and a reload's
# removals alike: the one rule (a part holding submissions is never deleted: deleting it
# would delete them and their scores), all or nothing in one transaction, and the data files
# the deleted phases alone named unlinked once it commits.

Part = Task | Phase | SubCorpus


class PartsHeld(CompetitionError):
    """Parts refused for deletion, each with how many submissions it holds; each door says it
    in its own words."""

    def __init__(self, held: list[tuple[Part, int]]) -> None:
        self.held = held
        super().__init__("held", count=len(held))


def submissions_holding(part: Part) -> int:
    """How many submissions ``part`` holds (a task's are its phases')."""
    if isinstance(part, Task):
        holding = Submission.objects.filter(phase__task=part)
    elif isinstance(part, Phase):
        holding = Submission.objects.filter(phase=part)
    else:
        holding = Submission.objects.filter(files__subcorpus=part).distinct()
    return holding.count()


def parts_delete(
    *,
    tasks: Iterable[Task] = (),
    phases: Iterable[Phase] = (),
    subcorpora: Iterable[SubCorpus] = (),
) -> None:
    """Delete the parts with what they contain, or nothing: `PartsHeld` when any of them
    holds submissions (`submissions_holding`)."""
    tasks, phases, subcorpora = list(tasks), list(phases), list(subcorpora)
    parts: list[Part] = [*tasks, *phases, *subcorpora]
    with transaction.atomic():
        held = [(part, n) for part in parts if (n := submissions_holding(part))]
        if held:
            raise PartsHeld(held)
        data = PhaseDataFile.objects.filter(
            Q(phase__in=[p.pk for p in phases]) | Q(phase__task__in=[t.pk for t in tasks])
        )
        paths = set(data.values_list("path", flat=True))
        SubCorpus.objects.filter(pk__in=[sc.pk for sc in subcorpora]).delete()
        Phase.objects.filter(pk__in=[p.pk for p in phases]).delete()
        Task.objects.filter(pk__in=[t.pk for t in tasks]).delete()
        owned = paths - set(
            PhaseDataFile.objects.filter(path__in=paths).values_list("path", flat=True)
        )
        transaction.on_commit(partial(data_files_unlink, owned))


def data_files_unlink(paths: Iterable[str]) -> None:
    """Unlink data files (paths under the private root) no row names any more, and their
    folders when left empty."""
    for name in sorted(paths):
        path = Path(settings.PRIVATE_ROOT) / name
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            path.parent.rmdir()


# --- what a whole spec no longer lists ----------------------------------------------------


def _remove_unlisted(competition: Competition, *, seen: _Seen) -> tuple[str, ...]:
    """Delete the tasks, phases and sub-corpora the spec no longer lists; refuse when any of
    them holds submissions (a task through its phases, which the spec no longer lists
    either)."""
    tasks = list(Task.objects.filter(competition=competition).exclude(pk__in=seen.tasks))
    phases = list(
        Phase.objects.filter(task__competition=competition)
        .exclude(pk__in=seen.phases)
        .select_related("task")
    )
    subcorpora = [
        sc
        for sc in SubCorpus.objects.filter(phase__task__competition=competition)
        .exclude(pk__in=seen.subcorpora)
        .select_related("phase__task")
        if sc.phase_id in seen.phases
    ]
    try:
        parts_delete(tasks=tasks, phases=phases, subcorpora=subcorpora)
    except PartsHeld as refused:
        raise SpecError("held", reason=_held_reason(refused)) from None
    return tuple(
        [task.slug for task in tasks]
        + [f"{p.task.slug}/{p.slug}" for p in phases if p.task_id in seen.tasks]
        + [f"{sc.phase.task.slug}/{sc.phase.slug}/{sc.name}" for sc in subcorpora]
    )


def _held_reason(refused: PartsHeld) -> str:
    held = []
    for part, count in refused.held:
        if isinstance(part, Phase):
            held.append(f"phase {part.task.slug}/{part.slug} ({count} submissions)")
        elif isinstance(part, SubCorpus):
            held.append(
                f"sub-corpus {part.phase.task.slug}/{part.phase.slug}/"
                f"{part.name} ({count} submissions)"
            )
    return (
        f"the file no longer lists {', '.join(held)}; removing them would delete those "
        "submissions and their scores. Put them back in the file, or delete them in the "
        "admin first if they are meant to go."
    )


# --- baselines ----------------------------------------------------------------------------


def baselines_apply(
    *, competition: Competition, baselines: tuple[BaselineSpec, ...]
) -> list[Submission]:
    """Submit the spec's baselines not submitted yet (same name, same phase) as runs of the
    organizers' team; raises `SpecError` naming a refused one."""
    created: list[Submission] = []
    if not baselines:
        return created
    team = organizer_team_get_or_create(competition=competition)
    for index, baseline in enumerate(baselines):
        where = f"baselines[{index}]"
        phase = _baseline_phase(competition, baseline, where=where)
        done = Submission.objects.filter(
            team=team, phase=phase, run_name=baseline.name, is_baseline=True
        ).exclude(status__in=[Submission.Status.FAILED, Submission.Status.CANCELLED])
        if not done.exists():
            created.append(_baseline_submit(team, phase, baseline, where=where))
    return created


def _baseline_phase(competition: Competition, baseline: BaselineSpec, *, where: str) -> Phase:
    task_slug, _, phase_slug = baseline.phase.partition("/")
    phase = (
        Phase.objects.filter(task__competition=competition, task__slug=task_slug, slug=phase_slug)
        .select_related("task")
        .first()
    )
    if phase is None:
        raise SpecError(
            "unknown_phase",
            field="phase",
            reason=(f"{where}: phase {baseline.phase!r} is not defined (task/phase)"),
        )
    return phase


def _baseline_submit(team, phase: Phase, baseline: BaselineSpec, *, where: str) -> Submission:
    """The baseline's files submitted as a run of the organizers' team."""
    available = {sc.slug: sc.name for sc in phase.subcorpora.filter(available=True)}
    with contextlib.ExitStack() as handles:
        try:
            uploads = {}
            for label, path in baseline.files:
                slug = subcorpus_for_name(label, available)
                if slug is None:
                    raise SpecError(
                        "unknown_subcorpus",
                        field="files",
                        reason=(f"{where}: {label!r} is not an available sub-corpus of the phase"),
                    )
                handle = handles.enter_context(open(Path(path), "rb"))
                uploads[slug] = File(handle, name=Path(path).name)
            return submission_create(
                team=team,
                phase=phase,
                user=None,
                files=uploads,
                run_name=baseline.name,
                description=baseline.description,
                is_baseline=True,
            )
        except SubmissionRejected as exc:
            details = "; ".join(str(problem) for problem in exc.problems[:5])
            raise SpecError(
                "baseline_refused",
                reason=(
                    f"{where}: baseline {baseline.name!r} was refused: {exc.message} {details}"
                ),
            ) from None
