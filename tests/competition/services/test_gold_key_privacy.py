"""Warnings about the gold key never reach the team; warnings about their own file do."""

from __future__ import annotations

import re

import pytest

from competition import services
from competition.models import Submission

pytestmark = pytest.mark.django_db


def _duplicate_first_markable(text: str, new_id: str) -> str:
    """The same span annotated twice in one entity (the scorer counts it once and warns)."""
    match = re.search(r"\(EntityID=(\d+)\|MarkableID=[^|)]+\|Min=(\d+)\)", text)
    assert match, "the test file has a single-token markable"
    twin = f"(EntityID={match.group(1)}|MarkableID={new_id}|Min={match.group(2)})"
    return text[: match.end()] + twin + text[match.end() :]


def test_key_warnings_stay_with_the_organizers(world, caplog, django_capture_on_commit_callbacks):
    key_path = world.key_dir / "ami.conllua"
    key_path.write_text(
        _duplicate_first_markable(world.key_text("ami"), "gold_twin"), encoding="utf-8"
    )
    response = _duplicate_first_markable(world.response_text("ami"), "team_twin")
    with django_capture_on_commit_callbacks(execute=True):  # scores in-process (eager)
        submission = services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads({"light": world.response_text("light"), "ami": response}),
        )
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    assert "team_twin" in submission.error  # their own file: shown
    assert "gold_twin" not in submission.error  # the key's markables: never shown
    assert str(key_path) not in submission.error
    assert any("gold_twin" in record.getMessage() for record in caplog.records)


def test_a_broken_gold_key_is_reported_without_its_details(
    world, caplog, django_capture_on_commit_callbacks
):
    """An ElementOf cycle in the key: the team learns the key is at fault, nothing more."""
    import scoring

    key_path = world.key_dir / "ami.conllua"
    text = world.key_text("ami")
    text = re.sub(
        r"\(EntityID=1\|(MarkableID=[^|)]+)", r"(EntityID=1|\1|ElementOf=2", text, count=1
    )
    text = re.sub(
        r"\(EntityID=2\|(MarkableID=[^|)]+)", r"(EntityID=2|\1|ElementOf=1", text, count=1
    )
    key_path.write_text(text, encoding="utf-8")
    response = world.key_dir.parent / "ami-response.conllua"
    response.write_text(world.response_text("ami"), encoding="utf-8")
    details = [str(p) for p in scoring.validate_response(str(key_path), str(response), [])]
    assert details and "cycle" in " ".join(details).lower()

    # The worker's check of the files finds the key at fault: the platform's failure.
    with django_capture_on_commit_callbacks(execute=True):
        run = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    run.refresh_from_db()
    assert run.status == Submission.Status.FAILED and run.platform_failure
    shown = run.error + run.scoring_log
    assert "gold key of AMI cannot be used" in shown
    for detail in details:
        assert detail.split(": ", 1)[-1] not in shown
    assert services.submission_quota(team=world.alpha, phase=world.phase).total_used == 0
    assert any("gold key of AMI" in record.getMessage() for record in caplog.records)
