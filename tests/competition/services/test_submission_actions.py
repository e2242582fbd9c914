"""submission_cancel and submission_choose check who asks themselves, whatever calls them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from competition import services
from competition.errors import CompetitionError
from competition.models import Submission

pytestmark = pytest.mark.django_db
Status = Submission.Status


def submit(world) -> Submission:
    return services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )


def test_it_refuses_a_cancel_by_another_team_or_nobody(world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():  # not executed: the run stays queued
        submission = submit(world)
    for user in (world.bob, world.mallory):
        with pytest.raises(CompetitionError) as refused:
            services.submission_cancel(submission=submission, user=user)
        assert refused.value.code == "not_a_member"
    submission.refresh_from_db()
    assert submission.status == Status.QUEUED


def test_it_lets_the_team_and_the_organizers_cancel(world, django_capture_on_commit_callbacks):
    organizer = get_user_model().objects.create_user("org")
    world.competition.organizers.add(organizer)
    for user in (world.alice, organizer):
        with django_capture_on_commit_callbacks():
            submission = submit(world)
        cancelled = services.submission_cancel(submission=submission, user=user)
        assert cancelled.status == Status.CANCELLED


def test_it_lets_only_the_team_choose_its_run(make_world, django_capture_on_commit_callbacks):
    world = make_world(counts="chosen")
    with django_capture_on_commit_callbacks(execute=True):
        submission = submit(world)  # scored in-process
    assert Submission.objects.get(pk=submission.pk).status == Status.SCORED
    organizer = get_user_model().objects.create_user("org")
    world.competition.organizers.add(organizer)
    for user in (world.bob, world.mallory, organizer):
        with pytest.raises(CompetitionError) as refused:
            services.submission_choose(submission=submission, user=user)
        assert refused.value.code == "not_a_member"
    assert services.submission_choose(submission=submission, user=world.alice).is_chosen
