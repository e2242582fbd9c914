"""Read paths of the competition app: what the pages show. Selectors write nothing.

Who may see what is decided by `competition.visibility`, the platform's one policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from competition.models import (
    Competition,
    Membership,
    Phase,
    Score,
    ScoringRun,
    SubCorpus,
    Submission,
    Task,
    Team,
    WorkerHeartbeat,
)
from competition.skeletons import skeleton_keep, skeleton_kept
from competition.task_scoring import TASK_MODE, scoring_modes
from competition.visibility import (
    Viewer,
    competition_visible,
    submission_openable,
    user_is_organizer,
    visible_competitions,
)
from scoring import parse_options
from scoring.api import key_skeleton
from scoring.vocabulary import metric_sort_key

__all__ = ["user_is_organizer"]  # re-exported for the pages; the rule is the policy's


def competition_list(*, user: Viewer) -> QuerySet[Competition]:
    """The competitions ``user`` may know of: the published ones, and the drafts they
    organize (every draft for staff)."""
    return (
        Competition.objects.filter(visible_competitions(user=user))
        .prefetch_related("tasks")
        .order_by("-created", "slug")
    )


def competition_detail(*, slug: str, user: Viewer) -> Competition:
    """A competition with its tasks, phases and sub-corpora. Raises DoesNotExist when there
    is none, or when it is a draft ``user`` may not see (the same answer)."""
    phases = Phase.objects.prefetch_related(
        Prefetch("subcorpora", queryset=SubCorpus.objects.order_by("order", "id"))
    )
    tasks = Task.objects.prefetch_related(Prefetch("phases", queryset=phases))
    return (
        Competition.objects.filter(visible_competitions(user=user))
        .prefetch_related(Prefetch("tasks", queryset=tasks))
        .get(slug=slug)
    )


def phase_get(*, competition_slug: str, task_slug: str, phase_slug: str, user: Viewer) -> Phase:
    """Raises Phase.DoesNotExist, also for a phase of a draft ``user`` may not see."""
    return (
        Phase.objects.select_related("task__competition")
        .filter(visible_competitions(user=user, prefix="task__competition__"))
        .get(task__competition__slug=competition_slug, task__slug=task_slug, slug=phase_slug)
    )


def track_named(*, tracks, label: str):
    """The track ``label`` names among ``tracks``: its slug as stored, else its slug or its
    name in any case (``LLM``, ``llm``, ``Unconstrained``); None when none or several do."""
    label = (label or "").strip()
    exact = [t for t in tracks if t.slug == label]
    if exact:
        return exact[0]
    folded = label.casefold()
    hits = [t for t in tracks if folded in (t.slug.casefold(), t.name.casefold())]
    return hits[0] if len(hits) == 1 else None


def phases_open(*, competition: Competition, at: datetime | None = None) -> list[Phase]:
    """Phases of the competition that accept submissions at ``at`` (default: now)."""
    at = at or timezone.now()
    phases = Phase.objects.filter(task__competition=competition).select_related("task")
    return [
        phase for phase in phases.order_by("task__order", "order", "id") if phase.is_open(at=at)
    ]


def team_for_user(*, competition: Competition, user) -> Team | None:
    if user is None or not user.is_authenticated:
        return None
    membership = (
        Membership.objects.filter(competition=competition, user=user).select_related("team").first()
    )
    return membership.team if membership else None


def team_members(*, team: Team) -> QuerySet[Membership]:
    return team.memberships.select_related("user").order_by("joined_at")


def team_captain(*, team: Team):
    """The team's captain: its longest-standing member (the founder, until they leave)."""
    first = team.memberships.select_related("user").order_by("joined_at", "id").first()
    return first.user if first else None


def teams_with_members(*, competition: Competition) -> QuerySet[Team]:
    """The competition's teams with their memberships (oldest first: the captain leads)."""
    members = Membership.objects.select_related("user").order_by("joined_at", "id")
    return (
        Team.objects.filter(competition=competition)
        .prefetch_related(Prefetch("memberships", queryset=members))
        .order_by("name")
    )


def submissions_for_team(*, team: Team, phase: Phase) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(team=team, phase=phase)
        .select_related("submitted_by", "track")
        .order_by("-created_at", "-id")
    )


def submission_get(*, submission_id: int, user: Viewer) -> Submission | None:
    """A submission with what the visibility policy reads, or None (also when it belongs to
    a draft ``user`` may not see). For policy checks only: what a page shows of it is
    decided by `competition.visibility`."""
    submission = (
        Submission.objects.select_related("team", "phase__task__competition")
        .filter(pk=submission_id)
        .first()
    )
    if submission is None or not competition_visible(
        competition=submission.phase.task.competition, user=user
    ):
        return None
    return submission


def submission_for_viewer(*, submission_id: int, user) -> Submission | None:
    """The submission if ``user`` may open it (`visibility.submission_openable`: a member of
    its team, an organizer of its competition, staff), else None: others learn nothing, not
    even that it exists."""
    submission = (
        Submission.objects.select_related("team", "phase__task__competition", "submitted_by")
        .filter(pk=submission_id)
        .first()
    )
    if submission is None or not submission_openable(submission=submission, user=user):
        return None
    return submission


@dataclass(frozen=True, slots=True)
class ScoreLine:
    metric: str
    cells: tuple[Score | None, ...]  # one per sub-corpus, in the order of the header


@dataclass(frozen=True, slots=True)
class ScoreTable:
    mode: str
    subcorpora: tuple[SubCorpus, ...]
    lines: tuple[ScoreLine, ...]


def submission_score_tables(*, submission: Submission) -> list[ScoreTable]:
    """Sub-corpus scores of the submission's current run: one table per mode (the task's mode
    first), rows = metrics, columns = sub-corpora. Per-document rows are left out."""
    scores = list(
        Score.objects.filter(
            submission=submission, run__is_current=True, document=""
        ).select_related("subcorpus")
    )
    subcorpora = sorted({score.subcorpus for score in scores}, key=lambda sc: (sc.order, sc.pk))
    column = {sc.pk: index for index, sc in enumerate(subcorpora)}
    by_mode: dict[str, dict[str, list[Score | None]]] = {}
    for score in scores:
        cells = by_mode.setdefault(score.mode, {}).setdefault(
            score.metric, [None] * len(subcorpora)
        )
        cells[column[score.subcorpus_id]] = score
    modes = sorted(by_mode, key=lambda mode: (mode != Score.TASK_MODE, mode))
    return [
        ScoreTable(
            mode=mode,
            subcorpora=tuple(subcorpora),
            lines=tuple(
                ScoreLine(metric=metric, cells=tuple(by_mode[mode][metric]))
                for metric in sorted(by_mode[mode], key=metric_sort_key)
                if not nothing_to_score(metric, [c.counts for c in by_mode[mode][metric] if c])
            ),
        )
        for mode in modes
    ]


ZERO_METRIC = "zero"


def nothing_to_score(metric: str, counts) -> bool:
    """True for the zeros' row of data without zeros: in no dataset did the key or the
    response have a zero anaphor (both denominators 0), so its 0.00 would mean nothing."""
    if metric != ZERO_METRIC:
        return False
    stored = [c for c in counts if isinstance(c, dict) and ("p_den" in c or "r_den" in c)]
    # Rows without counts (published numbers, older scorings) say nothing: the row stays.
    return (
        bool(stored)
        and len(stored) == len(counts)
        and all(not c.get("p_den") and not c.get("r_den") for c in stored)
    )


def submissions_scored_on_old_input(*, phase: Phase) -> set[int]:
    """Ids of the phase's scored submissions whose current run used a gold key or scorer
    options the phase no longer has (a key corrected with ``load_competition --no-rescore``).
    Runs from before keys were recorded are not counted."""
    modes = scoring_modes(phase.task)
    keys = {
        str(pk): sha
        for pk, sha in SubCorpus.objects.filter(phase=phase, available=True).values_list(
            "pk", "sha256"
        )
    }
    runs = ScoringRun.objects.filter(
        submission__phase=phase,
        submission__status=Submission.Status.SCORED,
        is_current=True,
    ).values_list("submission_id", "keys", "options")
    return {
        submission_id
        for submission_id, used, options in runs
        if used and (options != modes or any(keys.get(pk) != sha for pk, sha in used.items()))
    }


def submission_queue_position(*, submission: Submission) -> int | None:
    """How many runs (of every phase: the workers are shared) were queued before this one
    and are still waiting or being scored; None when the run is not waiting."""
    if submission.status != Submission.Status.QUEUED or submission.queued_at is None:
        return None
    return (
        Submission.objects.filter(status__in=[Submission.Status.QUEUED, Submission.Status.SCORING])
        .filter(
            Q(queued_at__lt=submission.queued_at)
            | Q(queued_at=submission.queued_at, pk__lt=submission.pk)
        )
        .count()
    )


def submission_status_label(*, submission: Submission) -> str:
    """The status as a team should read it: a new run is "checking" until its files are
    found valid (then scored in the same job); a queued run whose message the broker never
    got is "accepted, waiting for the queue"; a pending run while no scoring worker is alive
    (its heartbeat) is "waiting for a scoring worker"."""
    own = "Checking" if submission.is_checking else submission.get_status_display()
    if submission.status not in (Submission.Status.QUEUED, Submission.Status.SCORING):
        return own
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return own  # scored in-process: no workers to wait for
    since = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER)
    if not WorkerHeartbeat.objects.filter(seen_at__gte=since).exists():
        return "Waiting for a scoring worker"
    if submission.status == Submission.Status.QUEUED and not submission.published:
        return "Accepted, waiting for the queue"
    return own


def subcorpus_skeleton(*, subcorpus: SubCorpus, words: Sequence[str]) -> dict[str, Any]:
    """The skeleton of ``subcorpus``'s gold key read with the options ``words``
    (`competition.skeletons`), read from the key where none is kept. Raises the key's first
    problem."""
    where = {"sha256": subcorpus.sha256, "words": words, "key_file": subcorpus.key_file}
    skeleton = skeleton_kept(**where)
    if skeleton is None:
        options = parse_options(list(words)).options
        skeleton = key_skeleton(str(subcorpus.key_path), options=options)
        skeleton_keep(**where, skeleton=skeleton)
    return skeleton


def phase_check_facts(*, phase: Phase) -> dict:
    """What an upload to ``phase`` is checked against, for ``codicrac validate``: the task's
    validation options and, per dataset with a key, its upload name and the key's skeleton
    (format; per document its name, word forms and sentence ids; `scoring.api.key_skeleton`).
    No annotation, no path, no checksum of a key. A skeleton is computed once per key and
    options (cached under the key's SHA-256)."""
    words = list(scoring_modes(phase.task)[TASK_MODE])
    datasets = []
    for subcorpus in phase.subcorpora.filter(available=True).order_by("order", "id"):
        if not subcorpus.key_file:
            continue
        skeleton = subcorpus_skeleton(subcorpus=subcorpus, words=words)
        datasets.append(
            {
                "slug": subcorpus.slug,
                "name": subcorpus.name,
                "file_name": subcorpus.file_name,
                **skeleton,
            }
        )
    return {
        "phase_id": phase.pk,
        "options": words,
        "missing": phase.missing,
        "subcorpora": datasets,
    }
