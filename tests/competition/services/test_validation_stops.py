"""The worker's check of a run's files reads each file up to its first problem: a fatal one
(a NUL byte, the wrong format) ends that file's reading there, with the one message the team
needs; any other is followed by a second reading that lists the file's problems; a clean
file is read once."""

from __future__ import annotations

import pytest

from competition import services
from competition.models import Submission
from competition.services import validation
from competition.services.problems import Problem
from tests.conftest import KEY_DOCS, RESPONSE_DOCS, conllua

pytestmark = pytest.mark.django_db


def refused_problems(world, capture, files) -> list[Problem]:
    """Upload ``files``, run the job queued at commit (the worker's check, here) and return
    the refused run's problems."""
    with capture(execute=True):
        run = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=files
        )
    run.refresh_from_db()
    assert run.status == Submission.Status.REJECTED
    return [Problem(**problem) for problem in run.problems]


@pytest.fixture
def readings(monkeypatch):
    calls: list[tuple[str, int]] = []
    real = validation.validate_against_skeleton

    def counted(skeleton, response, *, max_problems, key_label, **kwargs):
        calls.append((key_label.rsplit("/", 1)[-1], max_problems))
        return real(skeleton, response, key_label=key_label, max_problems=max_problems, **kwargs)

    monkeypatch.setattr(validation, "validate_against_skeleton", counted)
    return calls


def test_a_fatal_problem_ends_the_reading_of_its_file(
    world, readings, django_capture_on_commit_callbacks
):
    light = conllua(RESPONSE_DOCS["light"] * 50).replace("knight", "kni\x00ght", 1)
    problems = refused_problems(
        world,
        django_capture_on_commit_callbacks,
        world.uploads({"light": light, "ami": world.response_text("ami")}),
    )
    assert [p.code for p in problems] == ["nul_character"] and problems[0].line is not None
    assert sorted(readings) == [("ami.conllua", 1), ("light.conllua", 1)]


def test_other_problems_are_listed_after_a_second_reading(
    world, readings, django_capture_on_commit_callbacks
):
    light = conllua(KEY_DOCS["light"][:1])  # a document missing: not fatal
    problems = refused_problems(
        world,
        django_capture_on_commit_callbacks,
        world.uploads({"light": light, "ami": world.response_text("ami")}),
    )
    assert [p.code for p in problems] == ["missing_documents"]
    assert sorted(readings) == [
        ("ami.conllua", 1),
        ("light.conllua", 1),
        ("light.conllua", validation.MAX_PROBLEMS),
    ]


def test_a_large_upload_is_checked_in_two_processes_with_the_same_problems(
    world, readings, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """With two validation processes, one file is checked in a fork of this process (its
    readings are not seen here) and the problems come back as one process finds them."""
    light = conllua(RESPONSE_DOCS["light"] * 50).replace("knight", "kni\x00ght", 1)
    ami = conllua(KEY_DOCS["ami"] * 2)  # a document twice: not what the key holds

    def refused() -> list[tuple]:
        problems = refused_problems(
            world, django_capture_on_commit_callbacks, world.uploads({"light": light, "ami": ami})
        )
        return [(p.file, p.line, p.code, p.message) for p in problems]

    settings.UPLOAD_VALIDATION_PROCESSES = 1
    alone = refused()
    assert {file for file, *_ in alone} == {"LIGHT.CONLLUA", "AMI.CONLLUA"}
    here = len(readings)
    settings.UPLOAD_VALIDATION_PROCESSES = 2
    monkeypatch.setattr(validation, "PARALLEL_FROM_BYTES", 0)
    assert refused() == alone
    assert [name for name, _ in readings[here:]] == ["light.conllua"]  # ami: in the fork
