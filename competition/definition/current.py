"""The spec of a competition as the database holds it: what the definition download writes
(`competition.definition.yaml_io.definition_data`), so that downloading and uploading back
gives the same competition.

The parts are built plainly, taken as stored (their rules ran when they were written, by
``checked``): a competition saved before a rule existed still downloads. Keys are named as
the zip download holds them (``keys/<task>/<phase>/<file>``), a key shared by several
sub-corpora once.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from competition.definition.spec import (
    PHASE_FIELDS,
    UNSET,
    CardQuestionSpec,
    CompetitionSpec,
    KeyFile,
    PhaseSpec,
    SubCorpusSpec,
    TaskSpec,
    TrackSpec,
)
from competition.models import Competition, Phase, SubCorpus, Task


def key_name(subcorpus: SubCorpus) -> str:
    """Where the zip download holds a sub-corpus's key."""
    file_name = PurePosixPath(subcorpus.file_name).name if subcorpus.file_name else ""
    return (
        f"keys/{subcorpus.phase.task.slug}/{subcorpus.phase.slug}/"
        f"{file_name or subcorpus.slug + '.conllua'}"
    )


def competition_spec(*, competition: Competition) -> CompetitionSpec:
    """The competition as a spec; its keys as `KeyFile` (the stored file, labelled with the
    name the download gives it)."""
    names: dict[str, str] = {}  # a key's sha256 -> its name in the download, once per key
    return CompetitionSpec(
        slug=competition.slug,
        title=competition.title,
        description=competition.description,
        website=competition.website,
        organizers=tuple(sorted(competition.organizers.values_list("username", flat=True))),
        tasks=tuple(_task(task, names) for task in competition.tasks.order_by("order", "id")),
        card_questions=tuple(
            CardQuestionSpec(
                slug=q.slug,
                text=q.text,
                kind=q.kind,
                choices=tuple(q.choices),
                required=q.required,
                on_board=q.on_board,
                when=tuple(q.when.items()),
            )
            for q in competition.card_questions.all()
        ),
    )


def _task(task: Task, names: dict[str, str]) -> TaskSpec:
    return TaskSpec(
        slug=task.slug,
        kind=task.kind,
        title=task.title,
        description=task.description,
        procedure=task.procedure,
        scorer_options=tuple(task.scorer_options),
        primary_metric=task.primary_metric,
        tracks=tuple(
            TrackSpec(slug=t.slug, name=t.name, description=t.description)
            for t in task.tracks.order_by("order", "id")
        ),
        phases=tuple(_phase(phase, names) for phase in task.phases.order_by("order", "id")),
    )


def _phase(phase: Phase, names: dict[str, str]) -> PhaseSpec:
    values = {name: getattr(phase, name) for name in PHASE_FIELDS}
    if not phase.reveal_scheduled:
        # A reveal by hand is something done, not a date of the structure: left out, a copy
        # stays hidden until someone reveals it, and uploading the file back keeps the
        # reveal as it is.
        values["revealed_at"] = UNSET
    subcorpora = phase.subcorpora.order_by("order", "id").select_related("phase__task")
    return PhaseSpec(
        slug=phase.slug, subcorpora=tuple(_subcorpus(sc, names) for sc in subcorpora), **values
    )


def _subcorpus(sc: SubCorpus, names: dict[str, str]) -> SubCorpusSpec:
    key = None
    if sc.available:
        label = names.setdefault(sc.sha256, key_name(sc))
        key = KeyFile(path=sc.key_path, label=label, sha256=sc.sha256)
    return SubCorpusSpec(
        name=sc.name,
        slug=sc.slug,
        available=sc.available,
        language=sc.language,
        file_name=sc.file_name,
        key=key,
    )
