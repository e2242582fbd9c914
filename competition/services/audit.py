"""The audit log of organizer actions: the one writer of ``AuditEntry``.

Every service that changes keys, reveals, hides, freezes, re-scores, disqualifies, publishes or
changes the organizers calls ``audit_record`` in the same transaction as its own write.
"""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser

from competition.models import AuditEntry, Competition

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
