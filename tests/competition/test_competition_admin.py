"""The admin: every model is registered and its pages render; actions go through services."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from competition import services
from competition.models import ScoringRun, Submission

pytestmark = pytest.mark.django_db


def test_every_model_of_the_app_is_registered():
    models = apps.get_app_config("competition").get_models()
    assert [m.__name__ for m in models if not admin.site.is_registered(m)] == []


def test_every_changelist_and_change_page_renders(
    admin_client, world, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    objects = {
        "competition": world.competition,
        "task": world.task,
        "phase": world.phase,
        "subcorpus": world.phase.subcorpora.first(),
        "team": world.alpha,
        "membership": world.alpha.memberships.first(),
        "submission": submission,
        "submissionfile": submission.files.first(),
        "scoringrun": ScoringRun.objects.get(submission=submission),
        "score": submission.scores.first(),
    }
    for name, obj in objects.items():
        assert admin_client.get(reverse(f"admin:competition_{name}_changelist")).status_code == 200
        assert (
            admin_client.get(reverse(f"admin:competition_{name}_change", args=[obj.pk])).status_code
            == 200
        ), name


def test_the_rescore_action_keeps_history(admin_client, world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            reverse("admin:competition_submission_changelist"),
            {"action": "rescore_submissions", "_selected_action": [submission.pk]},
        )
    assert ScoringRun.objects.filter(submission=submission).count() == 2
    assert Submission.objects.get(pk=submission.pk).status == Submission.Status.SCORED


def test_the_reveal_action_reveals_a_hidden_phase(admin_client, make_world):
    world = make_world(visibility="hidden")
    admin_client.post(
        reverse("admin:competition_phase_changelist"),
        {"action": "reveal_phases", "_selected_action": [world.phase.pk]},
    )
    world.phase.refresh_from_db()
    assert world.phase.revealed_at is not None
