"""Reads behind publishing a draft and the organizers' own pages: the publishing checklist,
whether participants have joined (publishing can no longer be undone), the organizers and
the audit log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from competition.models import (
    AuditEntry,
    Competition,
    CompetitionPage,
    Phase,
    Team,
    TermsAcceptance,
)
from competition.selectors_pages import pages_of
from competition.timezones import zone_display

PAGES_WANTED = (
    CompetitionPage.Kind.OVERVIEW,
    CompetitionPage.Kind.EVALUATION,
    CompetitionPage.Kind.DATA,
)
KIND_LABELS = dict(CompetitionPage.Kind.choices)


@dataclass(frozen=True, slots=True)
class CheckItem:
    """One line of the publishing checklist. ``key`` is stable (``tasks``, ``dates``,
    ``keys:<phase id>``, ``pages``, ``terms``); ``waiver`` is the words of the box that waives
    an unmet item, blank when it cannot be waived."""

    key: str
    label: str
    ok: bool
    detail: str
    waiver: str = ""


def publish_checklist(*, competition: Competition, at: datetime | None = None) -> list[CheckItem]:
    """What participants would miss if the competition were published at ``at`` (default:
    now): every phase open or still to open then has its gold keys (or the organizers say
    they come later), the pages and terms are written (or waived), every phase's dates are
    in order."""
    at = at or timezone.now()
    phases = list(
        Phase.objects.filter(task__competition=competition)
        .select_related("task")
        .prefetch_related("subcorpora")
        .order_by("task__order", "task_id", "order", "id")
    )
    keys = [
        _keys_item(phase, status) for phase in phases if (status := phase.status(at=at)) != "closed"
    ]
    written = pages_of(competition=competition)
    return [_tasks_item(phases), _dates_item(phases), *keys, *_pages_items(written)]


def _tasks_item(phases: list[Phase]) -> CheckItem:
    return CheckItem(
        key="tasks",
        label="At least one task with a phase",
        ok=bool(phases),
        detail=(
            f"{len(phases)} phase{'s' if len(phases) != 1 else ''}"
            if phases
            else "Add a task and its phases in the editor, or upload a definition."
        ),
    )


def _dates_item(phases: list[Phase]) -> CheckItem:
    backwards = [
        f"{phase.task.title} › {phase.title}"
        for phase in phases
        if phase.end is not None and phase.end <= phase.start
    ]
    return CheckItem(
        key="dates",
        label="Every phase closes after it opens",
        ok=not backwards,
        detail=("Closes before it opens: " + "; ".join(backwards))
        if backwards
        else "All phase dates are in order.",
    )


def _keys_item(phase: Phase, status: str) -> CheckItem:
    """An open or upcoming phase has a gold key for each of its datasets."""
    datasets = list(phase.subcorpora.all())
    keyless = [sc.name for sc in datasets if not sc.available or not sc.key_file]
    ok = bool(datasets) and not keyless
    if not datasets:
        detail = "It has no dataset yet, so it cannot score a run."
    elif keyless:
        detail = f"{len(keyless)} of {len(datasets)} datasets without a gold key: " + ", ".join(
            keyless
        )
    else:
        detail = f"All {len(datasets)} datasets have their gold keys."
    return CheckItem(
        key=f"keys:{phase.pk}",
        label=(
            f"Open phase {phase.task.title} › {phase.title} has its gold keys"
            if status == "open"
            else f"Upcoming phase {phase.task.title} › {phase.title} (opens "
            f"{zone_display(phase.start, phase.time_zone)}) has its gold keys"
        ),
        ok=ok,
        detail=detail,
        waiver="Keys later: the phase takes no runs until they are added",
    )


def _pages_items(written) -> list[CheckItem]:
    """The overview, evaluation and data pages, and the terms."""
    missing = [KIND_LABELS[kind] for kind in PAGES_WANTED if kind not in written]
    terms = CompetitionPage.Kind.TERMS in written
    return [
        CheckItem(
            key="pages",
            label="Overview, evaluation and data pages are written",
            ok=not missing,
            detail=("Not written: " + ", ".join(missing))
            if missing
            else "All three pages are written.",
            waiver="Publish without them",
        ),
        CheckItem(
            key="terms",
            label="Terms of participation are written",
            ok=terms,
            detail="Participants accept them before they submit."
            if terms
            else "No terms: participants accept nothing before they submit.",
            waiver="This competition has no terms",
        ),
    ]


def checklist_unmet(
    *, items: list[CheckItem], waived: frozenset[str] | set[str] = frozenset()
) -> list[CheckItem]:
    """The items that stop publishing: unmet and not waived (or not waivable)."""
    return [item for item in items if not item.ok and not (item.waiver and item.key in waived)]


def competition_participants_joined(*, competition: Competition) -> int:
    """How many teams and terms acceptances of people other than the organizers the
    competition holds: once there is one, publishing cannot be undone."""
    organizers = set(competition.organizers.values_list("pk", flat=True))
    teams = Team.objects.filter(competition=competition, is_organizer_team=False)
    # an organizers' own test team does not count; a team without members (they left, its
    # runs stay) does
    joined = sum(
        1
        for team in teams.prefetch_related("memberships")
        if not (members := {m.user_id for m in team.memberships.all()}) or members - organizers
    )
    accepted = (
        TermsAcceptance.objects.filter(competition=competition)
        .exclude(user__in=organizers)
        .values("user")
        .distinct()
        .count()
    )
    return joined + accepted


def competition_may_manage_organizers(*, competition: Competition, user) -> bool:
    """The owner and staff add and remove organizers."""
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or competition.owner_id == user.pk


def audit_entries(*, competition: Competition, limit: int = 500) -> QuerySet[AuditEntry]:
    """The competition's audit log, newest first."""
    return (
        AuditEntry.objects.filter(competition=competition)
        .select_related("actor")
        .order_by("-created_at", "-id")[:limit]
    )
