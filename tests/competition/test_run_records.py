"""Runs as the platform records them (issue 26, item 9): a baseline added to an ended phase
is dated in it; the scorer's notes on a gold key never show its stored path."""

from __future__ import annotations

import pytest

from competition import services

pytestmark = pytest.mark.django_db


def test_a_baseline_added_to_an_ended_phase_is_dated_in_it(world):
    from datetime import timedelta

    from django.utils import timezone

    from competition.services.teams import organizer_team_get_or_create

    phase = world.phase
    phase.start = timezone.now() - timedelta(days=2000)
    phase.end = phase.start + timedelta(days=30)
    phase.save()
    baseline = services.submission_create(
        team=organizer_team_get_or_create(competition=world.competition),
        phase=phase,
        user=None,
        files=world.uploads(),
        run_name="all singletons",
        is_baseline=True,
    )
    assert baseline.created_at == phase.start


def test_a_note_on_the_gold_key_names_it_without_its_path(
    world, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    """What the scorer says about a gold key reaches the organizers' log as a note naming
    the key by its dataset, never its stored path or hash name, and never the team's log;
    the same note from several modes is said once."""
    import logging

    from competition.models import Submission
    from competition.scoring import compute as scoring_service

    real = scoring_service.score_modes

    def noting(key, response, **kwargs):
        results = real(key, response, **kwargs)
        for result in results:
            result.warnings.append(f"{key}: line 3: markable_9 has no head")
        return results

    monkeypatch.setattr(scoring_service, "score_modes", noting)
    with (
        caplog.at_level(logging.INFO, logger="competition.scoring.compute"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        run = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    run = Submission.objects.get(pk=run.pk)
    assert run.status == "scored" and "markable_9" not in run.scoring_log
    notes = [r for r in caplog.records if "markable_9" in r.getMessage()]
    assert len(notes) == 2  # LIGHT and AMI, once each although three modes said it
    for record in notes:
        assert record.levelno == logging.WARNING and "the run was scored" in record.getMessage()
        assert str(world.key_dir) not in record.getMessage()
        assert (
            "gold key of LIGHT" in record.getMessage() or "gold key of AMI" in record.getMessage()
        )
