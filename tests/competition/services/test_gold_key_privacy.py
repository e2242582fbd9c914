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
    return text[:match.end()] + twin + text[match.end():]


def test_key_warnings_stay_with_the_organizers(world, caplog, django_capture_on_commit_callbacks):
    key_path = world.key_dir / "ami.conllua"
    key_path.write_text(_duplicate_first_markable(world.key_text("ami"), "gold_twin"),
                        encoding="utf-8")
    response = _duplicate_first_markable(world.response_text("ami"), "team_twin")
    with django_capture_on_commit_callbacks(execute=True):  # scores in-process (eager)
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice,
            files=world.uploads({"light": world.response_text("light"), "ami": response}))
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    assert "team_twin" in submission.error            # their own file: shown
    assert "gold_twin" not in submission.error        # the key's markables: never shown
    assert str(key_path) not in submission.error
    assert any("gold_twin" in record.getMessage() for record in caplog.records)
