"""What a page's URL names, found as its viewer may see it, or 404: the pages' lookups.

Every page of the competition and leaderboard apps finds the competition, phase, run, team or
re-scoring its URL names through one of these. Whatever a viewer may not see answers 404, the
same answer as for what does not exist, so a page reveals nothing of a draft, another team's
run or an organizer-only page. Where two lookups find the same kind of thing, their names say
what each checks (a run the viewer may open, or one of a competition they may see).
"""

from __future__ import annotations

from typing import TypeVar

from django.http import Http404, HttpRequest

from competition import selectors
from competition.models import Competition, Phase, RescoreBatch, Submission, Team
from competition.selectors_editor import competition_for_organizer
from competition.visibility import competition_visible, user_is_organizer

T = TypeVar("T")


def found_or_404(found: T | None) -> T:
    """``found``, or 404 when a selector found nothing (an organizer's page of something the
    viewer does not organize, or that is not there)."""
    if found is None:
        raise Http404("No such page.")
    return found


def competition_or_404(request: HttpRequest, slug: str) -> Competition:
    """The competition, if the viewer may know of it."""
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None or not competition_visible(competition=competition, user=request.user):
        raise Http404("No such competition.")
    return competition


def competition_detail_or_404(request: HttpRequest, slug: str) -> Competition:
    """The competition with its tasks, phases and sub-corpora, if the viewer may know of it."""
    try:
        return selectors.competition_detail(slug=slug, user=request.user)
    except Competition.DoesNotExist:
        raise Http404("No such competition.") from None


def organized_or_404(request: HttpRequest, slug: str) -> Competition:
    """The competition, if the viewer organizes it (or is staff)."""
    competition = competition_for_organizer(slug=slug, user=request.user)
    if competition is None:
        raise Http404("No such page.")
    return competition


def phase_or_404(request: HttpRequest, competition: str, task: str, phase: str) -> Phase:
    """The phase, if the viewer may know of its competition."""
    try:
        return selectors.phase_get(
            competition_slug=competition, task_slug=task, phase_slug=phase, user=request.user
        )
    except Phase.DoesNotExist:
        raise Http404("No such phase.") from None


def organizer_phase_or_404(request: HttpRequest, competition: str, task: str, phase: str) -> Phase:
    """The phase, if the viewer organizes its competition (or is staff)."""
    found = phase_or_404(request, competition, task, phase)
    if not user_is_organizer(competition=found.task.competition, user=request.user):
        raise Http404("No such page.")
    return found


def submission_or_404(request: HttpRequest, submission_id: int) -> Submission:
    """The run, if the viewer may know of its competition; what its page then shows of it
    is for `competition.visibility` to decide."""
    submission = selectors.submission_get(submission_id=submission_id, user=request.user)
    if submission is None:
        raise Http404("No such submission.")
    return submission


def openable_submission_or_404(request: HttpRequest, submission_id: int) -> Submission:
    """The run, if the viewer may open it: a member of its team, an organizer of its
    competition, staff."""
    submission = selectors.submission_for_viewer(submission_id=submission_id, user=request.user)
    if submission is None:
        raise Http404("No such submission.")
    return submission


def team_or_404(slug: str, team_id: int, user) -> Team:
    """The team of the competition ``slug``, if ``user`` may know of the competition."""
    team = (
        Team.objects.select_related("competition")
        .filter(pk=team_id, competition__slug=slug)
        .first()
    )
    if team is None or not competition_visible(competition=team.competition, user=user):
        raise Http404("No such team.")
    return team


def batch_or_404(phase: Phase, batch_id: int) -> RescoreBatch:
    """A re-scoring of ``phase`` (its organizer's page was checked first)."""
    batch = RescoreBatch.objects.filter(phase=phase, pk=batch_id).first()
    if batch is None:
        raise Http404("No such re-scoring.")
    return batch
