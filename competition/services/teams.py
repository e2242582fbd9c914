"""Teams: create one, join one by invite code. One team per user per competition."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from competition.errors import TeamError
from competition.models import Competition, Membership, Team, new_invite_code
from competition.services.pages import terms_check


def _check_not_in_team(*, competition: Competition, user) -> None:
    existing = Membership.objects.filter(competition=competition, user=user).select_related("team")
    if membership := existing.first():
        raise TeamError("already_in_team", team=membership.team.name)


@transaction.atomic
def team_create(*, competition: Competition, name: str, user=None,
                is_organizer_team: bool = False) -> Team:
    """Create a team; ``user`` (if given) becomes its first member."""
    name = " ".join(name.split())
    if not name:
        raise TeamError("empty_team_name")
    if user is not None:
        _check_not_in_team(competition=competition, user=user)
        terms_check(competition=competition, user=user)
    if Team.objects.filter(competition=competition, name__iexact=name).exists():
        raise TeamError("team_name_taken", name=name)
    try:
        with transaction.atomic():
            team = Team.objects.create(competition=competition, name=name,
                                       is_organizer_team=is_organizer_team,
                                       invite_code=new_invite_code())
            if user is not None:
                Membership.objects.create(team=team, user=user, competition=competition)
    except IntegrityError:  # a concurrent request won the race
        if user is not None:
            _check_not_in_team(competition=competition, user=user)
        raise TeamError("team_name_taken", name=name) from None
    return team


@transaction.atomic
def team_join(*, competition: Competition, invite_code: str, user) -> Team:
    """Add ``user`` to the team of ``competition`` whose invite code this is."""
    team = Team.objects.filter(competition=competition, invite_code=invite_code.strip()).first()
    if team is None:
        raise TeamError("bad_invite_code")
    _check_not_in_team(competition=competition, user=user)
    terms_check(competition=competition, user=user)
    try:
        with transaction.atomic():
            Membership.objects.create(team=team, user=user, competition=competition)
    except IntegrityError:
        _check_not_in_team(competition=competition, user=user)
        raise
    return team


def organizer_team_get_or_create(*, competition: Competition) -> Team:
    """The competition's organizer team (holds baselines); created on first use."""
    team = Team.objects.filter(competition=competition, is_organizer_team=True).first()
    if team is not None:
        return team
    name = "Organizers"
    if Team.objects.filter(competition=competition, name__iexact=name).exists():
        name = f"Organizers of {competition.slug}"  # a participant team took the plain name
    return team_create(competition=competition, name=name, is_organizer_team=True)
