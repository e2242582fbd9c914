"""The home page's reads: each competition a visitor may know of, as a card with its status,
dates, task family, number of teams and, for a finished edition, its official record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Prefetch, Q
from django.urls import reverse
from django.utils import timezone

from competition.models import Competition, Phase, Task
from competition.selectors import Viewer
from competition.timezones import in_zone
from competition.visibility import visible_competitions

# The families of shared tasks the platform hosts, by the kind of their tasks.
FAMILY_CODI_CRAC = "CODI-CRAC"
FAMILY_COREFUD = "CorefUD"


@dataclass(frozen=True)
class OfficialRecord:
    """A frozen board: the official results of one evaluation phase."""

    label: str
    url: str


@dataclass(frozen=True)
class CompetitionCard:
    competition: Competition
    status: str
    """'upcoming', 'open' or 'finished' (see `competition_status`)."""
    post_task_open: bool
    """Finished, but a post-task phase still takes new runs."""
    dates: str
    """The evaluation's first day and last day (every phase but post-task ones), in the zone
    the phases announce their dates in: "2024-03-01 – 2024-06-30 AoE"."""
    families: tuple[str, ...]
    team_count: int
    records: tuple[OfficialRecord, ...]


def competition_status(*, phases: list[Phase], at: datetime) -> str:
    """'upcoming' before any phase opens, 'finished' once every phase but the post-task ones
    has ended (a post-task phase stays open for new runs after the edition), else 'open'."""
    if not phases or all(at < phase.start for phase in phases):
        return "upcoming"
    evaluation = [phase for phase in phases if phase.kind != Phase.Kind.POST_TASK] or phases
    if all(phase.end is not None and phase.end < at for phase in evaluation):
        return "finished"
    return "open"


def evaluation_dates(phases: list[Phase]) -> str:
    """ "FIRST – LAST ZONE" (days) of ``phases``, "from FIRST ZONE" when one has no end."""
    if not phases:
        return "no phases yet"
    zone = phases[0].time_zone
    first = in_zone(min(phase.start for phase in phases), zone).date()
    ends = [phase.end for phase in phases]
    if None in ends:
        return f"from {first:%Y-%m-%d} {zone}, open-ended"
    last = in_zone(max(end for end in ends if end is not None), zone).date()
    return f"{first:%Y-%m-%d} – {last:%Y-%m-%d} {zone}"


def task_families(tasks: list[Task]) -> tuple[str, ...]:
    """CorefUD for multilingual coreference tasks, CODI-CRAC for the anaphora tasks."""
    kinds = {task.kind for task in tasks}
    families = []
    if kinds - {Task.Kind.COREFUD}:
        families.append(FAMILY_CODI_CRAC)
    if Task.Kind.COREFUD in kinds:
        families.append(FAMILY_COREFUD)
    return tuple(families)


def competition_cards(*, user: Viewer, at: datetime | None = None) -> list[CompetitionCard]:
    """The competitions ``user`` may know of (as `selectors.competition_list`), newest first,
    each as a card. The official record is each phase's active frozen board, the board page
    a visitor is shown (the leaderboard app's `BoardSnapshot`, read through its relation)."""
    at = at or timezone.now()
    phases = Phase.objects.annotate(
        frozen=Count("board_snapshots", filter=Q(board_snapshots__active=True))
    ).order_by("order", "id")
    tasks = Task.objects.prefetch_related(Prefetch("phases", queryset=phases))
    competitions = (
        Competition.objects.filter(visible_competitions(user=user))
        .annotate(
            team_count=Count("teams", filter=Q(teams__is_organizer_team=False), distinct=True)
        )
        .prefetch_related(Prefetch("tasks", queryset=tasks))
        .order_by("-created", "slug")
    )
    return [_card(competition, at=at) for competition in competitions]


def _card(competition: Competition, *, at: datetime) -> CompetitionCard:
    tasks = list(competition.tasks.all())
    phases = [phase for task in tasks for phase in task.phases.all()]
    evaluation = [phase for phase in phases if phase.kind != Phase.Kind.POST_TASK] or phases
    status = competition_status(phases=phases, at=at)
    return CompetitionCard(
        competition=competition,
        status=status,
        post_task_open=status == "finished"
        and any(phase.kind == Phase.Kind.POST_TASK and phase.is_open(at=at) for phase in phases),
        dates=evaluation_dates(evaluation),
        families=task_families(tasks),
        team_count=competition.team_count,
        records=tuple(_records(competition, tasks, many_tasks=len(tasks) > 1)),
    )


def _records(competition: Competition, tasks: list[Task], *, many_tasks: bool):
    for task in tasks:
        for phase in task.phases.all():
            if not phase.frozen:
                continue
            label = f"{task.title}: {phase.title}" if many_tasks else phase.title
            url = reverse(
                "leaderboard:board",
                kwargs={"competition": competition.slug, "task": task.slug, "phase": phase.slug},
            )
            yield OfficialRecord(label=label, url=url)
