"""Team actions after creation: rename, leave, remove a member. Each service checks its own
rules; a user stays in at most one team per competition."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from competition import selectors, services
from competition.errors import TeamError
from competition.models import Membership, Submission, Team

pytestmark = pytest.mark.django_db


def _user(name: str):
    return get_user_model().objects.create_user(name, password=f"{name}-pw-123!")


def test_any_member_renames_the_team_but_not_to_a_taken_name(world):
    services.team_rename(team=world.alpha, user=world.alice, name="  Alpha   Prime ")
    assert Team.objects.get(pk=world.alpha.pk).name == "Alpha Prime"
    with pytest.raises(TeamError) as taken:
        services.team_rename(team=world.alpha, user=world.alice, name="beta")
    assert taken.value.code == "team_name_taken"
    with pytest.raises(TeamError) as outsider:
        services.team_rename(team=world.alpha, user=world.mallory, name="Mine")
    assert outsider.value.code == "not_team_member"
    assert Team.objects.get(pk=world.alpha.pk).name == "Alpha Prime"


def test_the_founder_is_captain_and_removes_members_others_may_not(world):
    carol = _user("carol")
    services.team_join(
        competition=world.competition, user=carol, invite_code=world.alpha.invite_code
    )
    assert selectors.team_captain(team=world.alpha) == world.alice
    with pytest.raises(TeamError) as not_captain:
        services.team_member_remove(team=world.alpha, user=carol, member=world.alice)
    assert not_captain.value.code == "not_captain"
    with pytest.raises(TeamError) as self_removal:
        services.team_member_remove(team=world.alpha, user=world.alice, member=world.alice)
    assert self_removal.value.code == "remove_self"
    services.team_member_remove(team=world.alpha, user=world.alice, member=carol)
    assert not Membership.objects.filter(user=carol).exists()
    # Removed, carol may join another team of the competition.
    services.team_join(
        competition=world.competition, user=carol, invite_code=world.beta.invite_code
    )
    assert selectors.team_for_user(competition=world.competition, user=carol) == world.beta


def test_an_organizer_removes_a_member_of_any_team(world):
    organizer = _user("olga")
    world.competition.organizers.add(organizer)
    services.team_member_remove(team=world.beta, user=organizer, member=world.bob)
    assert not Membership.objects.filter(team=world.beta).exists()
    # Beta had no runs: emptied, it is gone and its name is free.
    assert not Team.objects.filter(pk=world.beta.pk).exists()


def test_leaving_keeps_the_runs_with_the_team_and_passes_the_captaincy(world):
    carol = _user("carol")
    services.team_join(
        competition=world.competition, user=carol, invite_code=world.alpha.invite_code
    )
    Submission.objects.create(
        team=world.alpha,
        phase=world.phase,
        submitted_by=world.alice,
        status=Submission.Status.SCORED,
    )
    assert services.team_leave(team=world.alpha, user=world.alice) is False
    assert selectors.team_captain(team=world.alpha) == carol
    assert services.team_leave(team=world.alpha, user=carol) is False  # it has a run
    assert Team.objects.filter(pk=world.alpha.pk).exists()
    assert Submission.objects.filter(team=world.alpha).count() == 1
    with pytest.raises(TeamError) as not_member:
        services.team_leave(team=world.alpha, user=carol)
    assert not_member.value.code == "not_team_member"
    # Having left, alice may found a new team.
    services.team_create(competition=world.competition, user=world.alice, name="Again")


def test_the_last_member_of_a_team_without_runs_removes_it_by_leaving(world):
    assert services.team_leave(team=world.beta, user=world.bob) is True
    assert not Team.objects.filter(pk=world.beta.pk).exists()
