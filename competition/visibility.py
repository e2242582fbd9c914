"""Who may see what: the one visibility policy of the platform.

Every page, API endpoint, export, e-mail and selector that shows scores, runs or files asks
this module; none decides for itself.

- A competition is a draft until it is published (``published_at``): a draft is seen by its
  organizers and staff only. To everyone else it does not exist: every page, API endpoint,
  board, export and download of it answers 404, exactly as for a slug or id never used.
- Organizers of the competition (and staff) see everything: every phase's scores, every run,
  disqualified runs, the live board of a frozen phase.
- A phase's scores are public when its board is public, or hidden until the organizers reveal
  it (``revealed_at``). While hidden, a team sees its own runs' scores only when the phase says
  ``show_own_scores_when_hidden`` (then without ranks, which would reveal other teams'
  results); everybody else sees nothing.
- A run's details (its analysis page, per-document scores and their exports, in the pages
  and the API) are open to its own team whenever it may see the run's scores. To other teams and
  visitors, as the phase's organizers set ``run_details``: ``public``, once the phase's
  scores are public and the run is not disqualified; ``team``, never. A run's own view
  (its page and ``/api/submissions/<id>/``: status, log, file names, the team's actions) is
  its team's and the organizers' only; on the web, others who may see its details are sent
  to its analysis page.
- Submitted files and gold keys are never shown to anyone but the organizers (a team
  downloads nothing back; keys are never served).
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import TypeAlias

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q
from django.utils import timezone

from competition.models import Competition, Membership, Phase, PhaseDataFile, Submission
from competition.selectors_pages import data_access_block

Viewer: TypeAlias = AbstractBaseUser | AnonymousUser | None
"""Whoever asks: a user, an anonymous visitor, or nobody (a command, a test)."""


class Visibility(str, Enum):
    """What a viewer may see of one phase's scores."""

    ALL = "all"  # organizers: everything, disqualified runs included
    PUBLIC = "public"  # the board is public (or revealed)
    OWN = "own"  # hidden, but the viewer's team sees its own runs, unranked
    NONE = "none"  # hidden: nothing at all


def user_is_organizer(*, competition: Competition, user: Viewer) -> bool:
    """Staff, or an organizer of this competition."""
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or competition.organizers.filter(pk=user.pk).exists()


def competition_visible(*, competition: Competition, user: Viewer) -> bool:
    """Whether ``user`` may know that ``competition`` exists: anyone once it is published;
    while it is a draft, its organizers and staff only."""
    return competition.published_at is not None or user_is_organizer(
        competition=competition, user=user
    )


def visible_competitions(*, user: Viewer, prefix: str = "") -> Q:
    """Filter for the competitions ``user`` may know of (``competition_visible``): on
    ``Competition``, or on a model that reaches it by ``prefix`` (e.g. ``"task__competition__"``
    on phases)."""
    published = Q(**{f"{prefix}published_at__isnull": False})
    if user is None or not user.is_authenticated:
        return published
    if user.is_staff:
        return Q()
    organized = Competition.organizers.through.objects.filter(user_id=user.pk).values(
        "competition_id"
    )
    return published | Q(**{f"{prefix}pk__in": organized})


def viewer_team_ids(*, competition: Competition, user: Viewer) -> set[int]:
    """The viewer's team in the competition (at most one), as a set of ids."""
    if user is None or not user.is_authenticated:
        return set()
    return set(
        Membership.objects.filter(user=user, competition=competition).values_list(
            "team_id", flat=True
        )
    )


def phase_visibility(*, phase: Phase, user: Viewer, at: datetime | None = None) -> Visibility:
    """What ``user`` may see of the scores of ``phase`` at ``at`` (default: now)."""
    competition = phase.task.competition
    if user_is_organizer(competition=competition, user=user):
        return Visibility.ALL
    if competition.published_at is None:
        return Visibility.NONE
    if phase.leaderboard_is_public(at=at or timezone.now()):
        return Visibility.PUBLIC
    if phase.show_own_scores_when_hidden and viewer_team_ids(competition=competition, user=user):
        return Visibility.OWN
    return Visibility.NONE


def submission_scores_visible(
    *, submission: Submission, user: Viewer, at: datetime | None = None
) -> bool:
    """Whether ``user`` may see the scores of one submission (its page, analysis, exports,
    the API, the e-mail that tells its submitter it was scored)."""
    phase = submission.phase
    visibility = phase_visibility(phase=phase, user=user, at=at)
    if visibility is Visibility.ALL:
        return True
    own = submission.team_id in viewer_team_ids(competition=phase.task.competition, user=user)
    if visibility is Visibility.PUBLIC:
        return own or not submission.disqualified
    return visibility is Visibility.OWN and own


def submission_details_visible(
    *, submission: Submission, user: Viewer, at: datetime | None = None
) -> bool:
    """Whether ``user`` may see a run's details: its analysis, per-document scores and their
    exports, in the pages and the API (the phase's ``run_details`` rule, see the module docstring).
    Only a scored run has details; before, its team follows it on its own page."""
    phase = submission.phase
    competition = phase.task.competition
    if user_is_organizer(competition=competition, user=user):
        return True
    if submission.status != Submission.Status.SCORED:
        return False
    if not submission_scores_visible(submission=submission, user=user, at=at):
        return False
    return phase.run_details == Phase.RunDetails.PUBLIC or submission.team_id in viewer_team_ids(
        competition=competition, user=user
    )


def visible_submissions(*, phase: Phase, user: Viewer) -> Q:
    """Filter for the submissions of ``phase`` whose scores ``user`` may read."""
    visibility = phase_visibility(phase=phase, user=user)
    if visibility is Visibility.ALL:
        return Q()
    mine = viewer_team_ids(competition=phase.task.competition, user=user)
    if visibility is Visibility.PUBLIC:
        return Q(disqualified=False) | Q(team_id__in=mine)
    if visibility is Visibility.OWN:
        return Q(team_id__in=mine)
    return Q(pk__in=[])


def submission_openable(*, submission: Submission, user: Viewer) -> bool:
    """Whether ``user`` may open a submission's own page (status, files' names, log, the
    team's actions): its team and the organizers only."""
    if user is None or not user.is_authenticated:
        return False
    competition = submission.phase.task.competition
    if user_is_organizer(competition=competition, user=user):
        return True
    if competition.published_at is None:
        return False
    return Membership.objects.filter(team_id=submission.team_id, user=user).exists()


def data_file_downloadable(
    *, data: PhaseDataFile, user: Viewer, at: datetime | None = None
) -> bool:
    """Whether ``user`` may download a phase's data file: the organizers always; anybody
    else once the file is released (its ``release_at``, else the phase's start) and when
    nothing keeps them from submitting either: signed in, the current terms accepted, and a
    team approved where the competition approves teams
    (`competition.selectors_pages.data_access_block`)."""
    competition = data.phase.task.competition
    if user_is_organizer(competition=competition, user=user):
        return True
    if user is None or not user.is_authenticated or competition.published_at is None:
        return False
    if data.released_at > (at or timezone.now()):
        return False
    return data_access_block(competition=competition, user=user) is None


def phase_check_facts_visible(*, phase: Phase, user: Viewer, at: datetime | None = None) -> bool:
    """Whether ``user`` may fetch what uploads to ``phase`` are checked against (document
    names, word forms, sentence ids: the input text, never an annotation): the organizers
    always; anybody else once the phase has started, on the terms of its data
    (`data_access_block`)."""
    competition = phase.task.competition
    if user_is_organizer(competition=competition, user=user):
        return True
    if competition.published_at is None or phase.start > (at or timezone.now()):
        return False
    return data_access_block(competition=competition, user=user) is None
