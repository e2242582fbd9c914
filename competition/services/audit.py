"""The audit log of organizer actions: the one writer of ``AuditEntry``.

Every service that changes keys, reveals, hides, freezes, re-scores, disqualifies, publishes,
changes the organizers, decides on a team or changes a run's system card for the organizers
calls ``audit_record`` in the same transaction as its own write. Changes to the structure
(a phase's dates once runs exist, a task's scoring) are found by comparing before and after
(`audit_structure`), around whichever door made them: the editor, a definition upload or
load, the admin.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.contrib.auth.base_user import AbstractBaseUser

from competition.models import AuditEntry, Competition, Phase, Submission, Task
from competition.timezones import zone_display

DETAIL_MAX = AuditEntry._meta.get_field("detail").max_length


def audit_record(
    *, competition: Competition, actor: AbstractBaseUser | None, action: str, detail: str = ""
) -> AuditEntry:
    """Record that ``actor`` (None: an operator on the command line) did ``action`` (one of
    ``AuditEntry.Action``) on ``competition``; ``detail`` says to what, in plain words."""
    if action not in AuditEntry.Action.values:
        raise ValueError(f"unknown audit action {action!r}")
    if actor is not None and not actor.is_authenticated:
        actor = None
    detail = " ".join(detail.split())
    if len(detail) > DETAIL_MAX:
        detail = detail[: DETAIL_MAX - 1] + "…"
    return AuditEntry.objects.create(
        competition=competition, actor=actor, action=action, detail=detail
    )


def audit_definition_load(*, load, actor: AbstractBaseUser | None, source: str) -> None:
    """Record the phases whose gold keys (or scorer options) a loaded definition changed
    (a ``CompetitionLoad``); ``source`` names the front door, e.g. "the uploaded
    definition.zip"."""
    for phase in load.changed_phases:
        count = sum(1 for run in load.rescored if run.phase_id == phase.pk)
        audit_record(
            competition=load.competition,
            actor=actor,
            action=AuditEntry.Action.KEYS_CHANGED,
            detail=f"{phase.task.title} › {phase.title}: gold keys or scorer options "
            f"changed by {source}; {count} submissions re-scored",
        )


# --- what a door changed in the structure: dates after runs exist, a task's scoring -------


def _phase_state(competition: Competition) -> dict[int, tuple]:
    return {
        phase.pk: (f"{phase.task.title} › {phase.title}", phase.start, phase.end, phase.time_zone)
        for phase in Phase.objects.filter(task__competition=competition).select_related("task")
    }


def _task_state(competition: Competition) -> dict[int, tuple]:
    return {
        task.pk: (task.title, task.procedure, tuple(task.scorer_options), task.primary_metric)
        for task in Task.objects.filter(competition=competition)
    }


@contextmanager
def audit_structure(
    *, competition: Competition | None, actor: AbstractBaseUser | None, source: str
) -> Iterator[None]:
    """Around a write to a competition's structure by any door (the editor, a definition
    upload or load, the admin): when it is done, record the phases whose dates moved while
    they held runs (``dates_changed``) and the tasks whose scoring changed (procedure,
    scorer options or primary metric: ``scoring_changed``), saying by which ``source``.
    Nothing is recorded when the write fails."""
    if competition is None:
        yield
        return
    phases, tasks = _phase_state(competition), _task_state(competition)
    yield
    _dates_record(competition, before=phases, actor=actor, source=source)
    _scoring_record(competition, before=tasks, actor=actor, source=source)


def _moment(value, zone: str) -> str:
    return zone_display(value, zone) if value is not None else "no end"


def _dates_record(competition: Competition, *, before: dict, actor, source: str) -> None:
    after = _phase_state(competition)
    for pk, (label, start, end, zone) in after.items():
        if pk not in before or before[pk][1:3] == (start, end):
            continue
        runs = Submission.objects.filter(phase_id=pk, is_reference=False).count()
        if not runs:
            continue  # dates of a phase nobody submitted to are not a record yet
        _, old_start, old_end, _ = before[pk]
        moves = [
            f"{what} {_moment(old, zone)} → {_moment(new, zone)}"
            for what, old, new in (("opens", old_start, start), ("closes", old_end, end))
            if old != new
        ]
        audit_record(
            competition=competition,
            actor=actor,
            action=AuditEntry.Action.DATES_CHANGED,
            detail=f"{label}: {'; '.join(moves)}, with {runs} runs submitted (by {source})",
        )


def _scoring_record(competition: Competition, *, before: dict, actor, source: str) -> None:
    after = _task_state(competition)
    names = ("procedure", "scorer options", "primary metric")
    for pk, state in after.items():
        if pk not in before or before[pk][1:] == state[1:]:
            continue
        changes = [
            f"{name} {_shown(old)} → {_shown(new)}"
            for name, old, new in zip(names, before[pk][1:], state[1:], strict=True)
            if old != new
        ]
        audit_record(
            competition=competition,
            actor=actor,
            action=AuditEntry.Action.SCORING_CHANGED,
            detail=f"{state[0]}: {'; '.join(changes)} (by {source})",
        )


def _shown(value) -> str:
    if isinstance(value, tuple):
        return " ".join(value) or "(none)"
    return value or "(none)"
