"""Editions: a competition cloned as the draft of its next edition, and the datasets of one
phase copied into another.

Both build a spec (`competition.definition.spec`) from what the database holds
(`competition.definition.current`) and write it with the one writer
(`competition.definition.apply`): the copy follows every rule a loaded definition follows, and
a kept gold key is read and checked again for the task it now belongs to (stored once per
content, so the copy shares the original's file). Nothing is copied row by row.

A clone has the competition's pages (terms included), its team-approval rule, tasks with
their scoring and tracks, phases with their dates moved by a number of days (a reveal
scheduled for a date moves with them; a board revealed by hand is hidden in the clone until
someone reveals it, since `competition_spec` leaves such a reveal out), and sub-corpora
(datasets) with or without their gold keys; without keys a sub-corpus is copied as not
available until the organizers give it a key. Runs, teams, baselines and the data files
participants download are not copied: they belong to an edition. The clone is a draft
(``published: false``), organized by the source's organizers and whoever cloned it.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction

from competition.definition import apply
from competition.definition.current import competition_spec, key_name
from competition.definition.editor import EditorError
from competition.definition.keys import known_keys
from competition.definition.organizers import Door
from competition.definition.spec import (
    UNSET,
    CompetitionSpec,
    KeyFile,
    PhaseSpec,
    SpecError,
    SubCorpusSpec,
    TaskSpec,
    checked_replace,
)
from competition.models import Competition, CompetitionPage, Phase, SubCorpus
from competition.services.teams import organizer_team_get_or_create
from competition.visibility import user_is_organizer

MAX_SHIFT_DAYS = 3660


def _organizes(competition: Competition, user) -> None:
    if not user_is_organizer(competition=competition, user=user):
        raise EditorError(
            "not_organizer",
            reason=(f"you do not organize {competition.title}; only its organizers may copy it"),
        )


def _subcorpus_copy(sub: SubCorpusSpec, *, with_keys: bool) -> SubCorpusSpec:
    """A sub-corpus for a copy: its key kept (read again from the stored file) or dropped
    (then not available until the organizers give one)."""
    if with_keys and sub.available and isinstance(sub.key, KeyFile):
        return SubCorpusSpec.checked(
            name=sub.name,
            language=sub.language,
            file_name=sub.file_name,
            available=True,
            key=sub.key,
        )
    return SubCorpusSpec.checked(
        name=sub.name, language=sub.language, file_name=sub.file_name, available=False, key=None
    )


def _shifted(phase: PhaseSpec, *, days: int, with_keys: bool) -> PhaseSpec:
    delta = timedelta(days=days)

    def moved(value):
        return value if value is None or value is UNSET else value + delta

    return checked_replace(
        phase,
        start=moved(phase.start),
        end=moved(phase.end),
        revealed_at=moved(phase.revealed_at),
        subcorpora=tuple(
            _subcorpus_copy(sub, with_keys=with_keys) for sub in phase.subcorpora or ()
        ),
    )


def _task_copy(task: TaskSpec, *, days: int, with_keys: bool) -> TaskSpec:
    # A task with a named procedure records its kind's options: the spec takes one or the
    # other, so the copy names the procedure only, as the download does.
    return checked_replace(
        task,
        scorer_options=None if task.procedure else task.scorer_options,
        phases=tuple(
            _shifted(phase, days=days, with_keys=with_keys) for phase in task.phases or ()
        ),
    )


def competition_clone_spec(
    *, source: Competition, slug: str, title: str, days: int, with_keys: bool, organizer: str = ""
) -> CompetitionSpec:
    """The spec of a draft copy of ``source``: its structure, pages and rules, phases moved
    by ``days``, keys kept or dropped. Raises `SpecError` for a bad slug or title."""
    current = competition_spec(competition=source)
    pages = {
        page.kind: page.body
        for page in CompetitionPage.objects.filter(competition=source)
        if page.body
    }
    rules = getattr(source, "participation_rules", None)
    # The one who clones it owns the copy (listed first); its organizers organize it too.
    others = sorted(set(current.organizers) - {organizer})
    organizers = (organizer, *others) if organizer else tuple(others)
    return checked_replace(
        current,
        slug=slug,
        title=title,
        organizers=organizers,
        pages=pages,
        team_approval=rules.team_approval if rules is not None else False,
        published=False,
        baselines=(),
        tasks=tuple(_task_copy(task, days=days, with_keys=with_keys) for task in current.tasks),
    )


def competition_clone(
    *, source: Competition, user, slug: str, title: str, days: int = 0, with_keys: bool = False
) -> Competition:
    """Clone ``source`` (which ``user`` organizes) as a new draft competition ``slug``.
    Raises `EditorError` naming the field at fault; nothing is written then."""
    _organizes(source, user)
    if abs(days) > MAX_SHIFT_DAYS:
        raise EditorError(
            "bad_shift",
            field="days",
            reason=(f"the dates can move by at most {MAX_SHIFT_DAYS} days, not {days}"),
        )
    if Competition.objects.filter(slug=slug.strip()).exists():
        raise EditorError(
            "slug_taken",
            field="slug",
            reason=f"the competition slug {slug.strip()!r} is already used",
        )
    try:
        spec = competition_clone_spec(
            source=source,
            slug=slug,
            title=title,
            days=days,
            with_keys=with_keys,
            organizer=user.username,
        )
        load = apply.competition_apply(
            spec=spec,
            new=True,
            rescore=False,
            with_baselines=False,
            door=Door(name=f"the clone of {source.slug}", actor=user),
        )
    except SpecError as exc:
        field = exc.field if exc.field in ("slug", "title") and not exc.where else None
        raise EditorError(exc.code, field=field, reason=exc.message) from None
    organizer_team_get_or_create(competition=load.competition)
    return load.competition


# --- the datasets of another phase --------------------------------------------------------


def phase_copy_sources(*, phase: Phase, user) -> list[Phase]:
    """The phases whose datasets ``user`` may copy into ``phase``: the other phases, with
    sub-corpora, of the competitions they organize."""
    phases = (
        Phase.objects.exclude(pk=phase.pk)
        .filter(subcorpora__isnull=False)
        .select_related("task__competition")
        .distinct()
        .order_by("task__competition__title", "task__order", "order", "id")
    )
    if not user.is_staff:
        phases = phases.filter(task__competition__organizers=user)
    return list(phases)


def phase_subcorpora_copy(
    *, phase: Phase, source: Phase, user, with_keys: bool = True
) -> list[SubCorpus]:
    """Copy the sub-corpora of ``source`` into ``phase`` (the user organizes both): each is
    added with its language, file name and (with ``with_keys``) its gold key, read and
    checked for ``phase``'s task. A name the phase already has is refused; nothing is
    written then."""
    _organizes(phase.task.competition, user)
    _organizes(source.task.competition, user)
    if source.pk == phase.pk:
        raise EditorError("same_phase", field="source", reason="choose another phase than this one")
    have = set(phase.subcorpora.values_list("slug", flat=True))
    copies: list[SubCorpusSpec] = []
    for sc in source.subcorpora.order_by("order", "id").select_related("phase__task"):
        key = (
            KeyFile(path=sc.key_path, label=key_name(sc), sha256=sc.sha256)
            if sc.available and sc.key_file
            else None
        )
        try:
            copy = _subcorpus_copy(
                SubCorpusSpec.checked(
                    name=sc.name,
                    available=key is not None,
                    language=sc.language,
                    file_name=sc.file_name,
                    key=key,
                ),
                with_keys=with_keys,
            )
        except SpecError as exc:
            raise EditorError(exc.code, reason=f"{sc.name}: {exc.message}") from None
        if copy.slug in have:
            raise EditorError(
                "name_taken",
                field="source",
                reason=(f"this phase already has a sub-corpus named {sc.name}; nothing was copied"),
            )
        copies.append(copy)
    if not copies:
        raise EditorError(
            "nothing", field="source", reason=f"{source.title} has no sub-corpora to copy"
        )
    known = known_keys(competition=phase.task.competition)
    saved: list[SubCorpus] = []
    start = phase.subcorpora.count()
    try:
        with transaction.atomic():
            for offset, spec in enumerate(copies):
                subcorpus, _ = apply.subcorpus_apply(
                    phase=phase, spec=spec, new=True, order=start + offset, known=known
                )
                saved.append(subcorpus)
    except SpecError as exc:
        raise EditorError(exc.code, field="source", reason=exc.message) from None
    return saved
