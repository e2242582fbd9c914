"""Selectors: open phases, who may open a submission, who may see its scores."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from competition import selectors, services
from competition.models import Phase
from competition.visibility import submission_scores_visible

pytestmark = pytest.mark.django_db


def test_open_phases_follow_the_dates(world):
    later = Phase.objects.create(
        task=world.task,
        slug="test",
        kind="test_gold",
        title="Test",
        start=timezone.now() + timedelta(days=1),
    )
    assert selectors.phases_open(competition=world.competition) == [world.phase]
    assert selectors.phases_open(
        competition=world.competition, at=later.start + timedelta(seconds=1)
    ) == [world.phase, later]


def test_only_the_team_organizers_and_staff_may_open_a_submission(world):
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    User = get_user_model()
    staff = User.objects.create_user("staff", is_staff=True)
    organizer = User.objects.create_user("org")
    world.competition.organizers.add(organizer)
    for user, allowed in [
        (world.alice, True),
        (staff, True),
        (organizer, True),
        (world.bob, False),
        (world.mallory, False),
    ]:
        found = selectors.submission_for_viewer(submission_id=submission.pk, user=user)
        assert (found is not None) is allowed, user.username


def test_a_scheduled_reveal_shows_scores_from_its_moment_on(make_world):
    world = make_world(visibility="hidden")
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    moment = timezone.now() + timedelta(hours=2)
    services.phase_reveal(phase=world.phase, at=moment)
    assert not submission_scores_visible(submission=submission, user=world.alice)
    assert submission_scores_visible(
        submission=submission, user=world.alice, at=moment + timedelta(seconds=1)
    )
