"""Teams and accounts: create, join by invite code, one team per user per competition."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from competition import services
from competition.errors import CompetitionError, TeamError
from competition.models import Competition, Membership

pytestmark = pytest.mark.django_db


def test_it_creates_a_team_with_its_founder_as_member(world):
    team = services.team_create(
        competition=world.competition, name="  Gamma   Team ", user=world.mallory
    )
    assert team.name == "Gamma Team"
    assert list(team.members.all()) == [world.mallory]
    assert len(team.invite_code) >= 12


def test_it_joins_a_team_by_invite_code(world):
    team = services.team_join(
        competition=world.competition, invite_code=world.alpha.invite_code, user=world.mallory
    )
    assert team == world.alpha
    assert set(world.alpha.members.all()) == {world.alice, world.mallory}


@pytest.mark.parametrize("action", ["create", "join"])
def test_a_user_is_in_one_team_per_competition(world, action):
    with pytest.raises(TeamError) as caught:
        if action == "create":
            services.team_create(competition=world.competition, name="Other", user=world.alice)
        else:
            services.team_join(
                competition=world.competition, invite_code=world.beta.invite_code, user=world.alice
            )
    assert caught.value.code == "already_in_team"
    assert caught.value.params["team"] == "Alpha"


def test_the_database_enforces_one_team_per_user_per_competition(world):
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(team=world.beta, user=world.alice, competition=world.competition)


def test_a_user_may_be_in_teams_of_different_competitions(world):
    other = Competition.objects.create(slug="other", title="Other", published_at=timezone.now())
    team = services.team_create(competition=other, name="Alpha", user=world.alice)
    assert team.competition == other


def test_team_names_are_unique_per_competition_ignoring_case(world):
    with pytest.raises(TeamError) as caught:
        services.team_create(competition=world.competition, name="alpha", user=world.mallory)
    assert caught.value.code == "team_name_taken"


def test_a_wrong_invite_code_is_refused(world):
    other = Competition.objects.create(slug="other", title="Other", published_at=timezone.now())
    foreign = services.team_create(competition=other, name="Foreign", user=world.bob)
    for code in ["nope", foreign.invite_code]:
        with pytest.raises(TeamError) as caught:
            services.team_join(competition=world.competition, invite_code=code, user=world.mallory)
        assert caught.value.code == "bad_invite_code"


def test_signup_checks_the_password_and_the_name(db):
    user = services.user_signup(username="carol", password="a-long-pass-phrase-9")
    assert user.check_password("a-long-pass-phrase-9")
    with pytest.raises(CompetitionError) as caught:
        services.user_signup(username="CAROL", password="a-long-pass-phrase-9")
    assert caught.value.code == "username_taken"
    with pytest.raises(CompetitionError) as caught:
        services.user_signup(username="dave", password="123")
    assert caught.value.code == "invalid_signup"


def test_the_organizer_team_is_made_once_even_if_a_team_took_its_name(world):
    services.team_create(competition=world.competition, name="organizers", user=world.mallory)
    team = services.organizer_team_get_or_create(competition=world.competition)
    assert team.is_organizer_team and team.name == "Organizers of codi-test"
    assert services.organizer_team_get_or_create(competition=world.competition) == team
