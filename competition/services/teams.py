"""Teams: create, join by invite code, rename, leave, remove a member. One team per user per
competition; the captain (longest-standing member) or an organizer removes members."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from competition.errors import TeamError
from competition.models import Competition, Membership, Team, new_invite_code
from competition.selectors import team_captain
from competition.selectors_pages import team_approval_required
from competition.services.pages import team_approval_request_mail, terms_check
from competition.visibility import user_is_organizer


def _check_not_in_team(*, competition: Competition, user) -> None:
    existing = Membership.objects.filter(competition=competition, user=user).select_related("team")
    if membership := existing.first():
        raise TeamError("already_in_team", team=membership.team.name)


@transaction.atomic
def team_create(
    *, competition: Competition, name: str, user=None, is_organizer_team: bool = False
) -> Team:
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
            team = Team.objects.create(
                competition=competition,
                name=name,
                is_organizer_team=is_organizer_team,
                invite_code=new_invite_code(),
            )
            if user is not None:
                Membership.objects.create(team=team, user=user, competition=competition)
            if not is_organizer_team and team_approval_required(competition=competition):
                team_approval_request_mail(team=team)
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


def _check_member(*, team: Team, user) -> Membership:
    membership = Membership.objects.filter(team=team, user=user).first()
    if membership is None:
        raise TeamError("not_team_member", team=team.name)
    return membership


def _check_captain_or_organizer(*, team: Team, user) -> None:
    if user_is_organizer(competition=team.competition, user=user):
        return
    captain = team_captain(team=team)
    if captain is None or captain.pk != user.pk:
        raise TeamError("not_captain", team=team.name)


def _close_if_empty(*, team: Team) -> bool:
    """An emptied team without runs is removed (its name is free again); one with runs stays,
    so its runs keep their team on the boards. Returns whether it was removed."""
    if team.memberships.exists() or team.submissions.exists() or team.is_organizer_team:
        return False
    Team.objects.filter(pk=team.pk).delete()  # the caller keeps its instance
    return True


@transaction.atomic
def team_rename(*, team: Team, user, name: str) -> Team:
    """Rename the team; any member may (the name is the team's, not the captain's)."""
    team = Team.objects.select_for_update().get(pk=team.pk)
    if not user_is_organizer(competition=team.competition, user=user):
        _check_member(team=team, user=user)
    name = " ".join(name.split())
    if not name:
        raise TeamError("empty_team_name")
    if (
        Team.objects.filter(competition_id=team.competition_id, name__iexact=name)
        .exclude(pk=team.pk)
        .exists()
    ):
        raise TeamError("team_name_taken", name=name)
    team.name = name
    try:
        with transaction.atomic():
            team.save(update_fields=["name"])
    except IntegrityError:
        raise TeamError("team_name_taken", name=name) from None
    return team


@transaction.atomic
def team_leave(*, team: Team, user) -> bool:
    """``user`` leaves the team; their runs stay the team's. Returns whether the team, left
    empty and without runs, was removed."""
    Team.objects.select_for_update().get(pk=team.pk)
    _check_member(team=team, user=user).delete()
    return _close_if_empty(team=team)


@transaction.atomic
def team_member_remove(*, team: Team, user, member) -> Team:
    """Remove ``member`` from the team: its captain or an organizer of the competition may.
    Nobody removes themself this way (they leave)."""
    Team.objects.select_for_update().get(pk=team.pk)
    _check_captain_or_organizer(team=team, user=user)
    if member.pk == user.pk:
        raise TeamError("remove_self")
    _check_member(team=team, user=member).delete()
    _close_if_empty(team=team)
    return team
