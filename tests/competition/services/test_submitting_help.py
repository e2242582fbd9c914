"""What a team is told when it cannot submit or its files are wrong: the form's reason before
any upload, one problem for a fatal file, the evident fix for a file of another split, never
command-line advice; and what it sees while and after a run is scored (queue position, log)."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from competition import selectors, services
from competition.errors import CompetitionError, SubmissionRejected
from competition.models import Phase, Submission
from tests.checked import refusal

pytestmark = pytest.mark.django_db
CLI_WORDS = re.compile(r"ua-score|codicrac|python -m|--")


def upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"))


def refused(world, **kwargs) -> SubmissionRejected:
    """The upload's refusal by the request's own checks (nothing stored)."""
    with pytest.raises(SubmissionRejected) as caught:
        services.submission_create(team=world.alpha, phase=world.phase, user=world.alice, **kwargs)
    return caught.value


def checked(world, capture, **kwargs) -> SubmissionRejected:
    """The refusal of the run by the worker's check of its files, as the upload's own
    refusal carried it before (``invalid_files`` with the problems)."""
    problems = refusal(
        capture,
        lambda: services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, **kwargs
        ),
    )
    return SubmissionRejected("invalid_files", problems=problems)


def test_the_form_knows_before_any_upload_why_no_run_is_possible(make_world):
    world = make_world(daily_limit=1, total_limit=3)
    precheck = lambda: services.submission_precheck(  # noqa: E731
        team=world.alpha,
        phase=world.phase,
        user=world.alice,
    )
    assert precheck() is None
    services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    assert precheck().code == "daily_limit"
    now = timezone.now()
    Phase.objects.filter(pk=world.phase.pk).update(start=now + timedelta(days=2))
    world.phase.refresh_from_db()
    assert precheck().code == "phase_upcoming"
    assert "opens for submissions on" in precheck().message
    Phase.objects.filter(pk=world.phase.pk).update(
        start=now - timedelta(days=9), end=now - timedelta(days=1)
    )
    world.phase.refresh_from_db()
    assert precheck().code == "phase_ended"
    assert services.submission_precheck(
        team=world.alpha, phase=world.phase, user=world.mallory
    ).code in ("phase_ended",)


def test_a_zip_of_the_distributed_names_with_a_folder_and_macos_litter_is_scored(world):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("my-run/light_dev.CONLLUA", world.response_text("light"))
        zf.writestr("my-run/AMI_dev_v2.2022.ES2004a.CONLLUA", world.response_text("ami"))
        zf.writestr("__MACOSX/my-run/._light_dev.CONLLUA", b"\x00\x05\x16\x07")
        zf.writestr("my-run/.DS_Store", b"\x00\x00")
    submission = services.submission_create(
        team=world.alpha,
        phase=world.phase,
        user=world.alice,
        archive=SimpleUploadedFile("my-run.zip", buffer.getvalue()),
    )
    names = dict(submission.files.values_list("subcorpus__slug", "original_name"))
    assert names == {"light": "light_dev.CONLLUA", "ami": "AMI_dev_v2.2022.ES2004a.CONLLUA"}


def test_a_file_of_another_split_gets_the_fix_not_a_list_of_documents(
    world, django_capture_on_commit_callbacks
):
    Phase.objects.filter(pk=world.phase.pk).update(
        kind=Phase.Kind.TEST_PREDICTED, title="Evaluation"
    )
    world.phase.refresh_from_db()
    dev_light = world.response_text("light").replace("light_", "light_dev/light_")
    exc = checked(
        world,
        django_capture_on_commit_callbacks,
        files={
            "light": upload("light_dev.CONLLUA", dev_light),
            "ami": upload("AMI.CONLLUA", world.response_text("ami")),
        },
    )
    [problem] = exc.problems
    assert problem.code == "wrong_split" and problem.file == "light_dev.CONLLUA"
    assert (
        "looks like a development file, but the phase Evaluation scores the test documents of LIGHT"
    ) in problem.message


def test_a_file_in_the_wrong_format_is_one_problem_without_command_line_advice(
    world, django_capture_on_commit_callbacks
):
    corefud = (
        "# newdoc id = x\n# sent_id = 1\n# text = a b\n"
        + "".join(f"{i}\t{w}\t_\t_\t_\t_\t0\t_\t_\t_\n" for i, w in enumerate("ab", start=1))
        + "\n"
    )
    exc = refused(
        world,
        files={
            "light": upload("light.conllu", corefud),
            "ami": upload("AMI.CONLLUA", world.response_text("ami")),
        },
    )
    assert len(exc.problems) == 1, exc.problems
    for problem in exc.problems:
        assert not CLI_WORDS.search(problem.message), problem.message
    noise = "\n".join(f"line {i} of something that is not CONLL-UA" for i in range(200))
    exc = checked(
        world,
        django_capture_on_commit_callbacks,
        files={
            "light": upload("light.conllua", noise),
            "ami": upload("AMI.CONLLUA", world.response_text("ami")),
        },
    )
    assert len(exc.problems) == 1 and exc.problems[0].file == "light.conllua"


def test_missing_documents_are_explained_without_the_scorers_options(
    world, django_capture_on_commit_callbacks
):
    one_doc = world.response_text("light").split("# newdoc id = light_2")[0]
    exc = checked(
        world,
        django_capture_on_commit_callbacks,
        files={
            "light": upload("LIGHT.CONLLUA", one_doc),
            "ami": upload("AMI.CONLLUA", world.response_text("ami")),
        },
    )
    messages = " ".join(p.message for p in exc.problems)
    assert "missing" in messages and "light_2" in messages
    assert not CLI_WORDS.search(messages), messages


def test_queue_position_counts_the_runs_queued_before(world):
    now = timezone.now()
    runs = [
        Submission.objects.create(
            team=world.alpha,
            phase=world.phase,
            status=Submission.Status.QUEUED,
            queued_at=now + timedelta(seconds=i),
        )
        for i in range(3)
    ]
    assert [selectors.submission_queue_position(submission=s) for s in runs] == [0, 1, 2]
    Submission.objects.filter(pk=runs[0].pk).update(status=Submission.Status.SCORED)
    runs[2].refresh_from_db()
    assert selectors.submission_queue_position(submission=runs[2]) == 1


def test_the_scoring_log_says_what_was_read_and_never_a_key_path(
    world, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads(),
            run_name="logged",
        )
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    log = submission.scoring_log
    assert "LIGHT: LIGHT.CONLLUA" in log  # at upload
    assert "each file is checked against its gold key, then scored" in log
    assert re.search(
        r"LIGHT: read LIGHT.CONLLUA \(\d[\d,]* bytes\) and the gold key "
        r"of LIGHT; 2 documents scored in \d+\.\d\d s \(3 modes\)",
        log,
    ), log
    assert log.count("LIGHT: read") == 1  # once per dataset, not once per mode
    assert "done in" in log
    assert str(world.key_dir) not in log and "keys/" not in log
    assert world.key_text("light") not in log


def test_a_runs_details_are_edited_by_its_team_or_organizers_only(world):
    submission = services.submission_create(
        team=world.alpha,
        phase=world.phase,
        user=world.alice,
        files=world.uploads(),
        link="https://example.org/paper",
    )
    assert submission.link == "https://example.org/paper"
    services.submission_describe(
        submission=submission,
        user=world.alice,
        run_name="v2",
        description="ensemble",
        link="https://github.com/a/b",
    )
    assert (submission.run_name, submission.link) == ("v2", "https://github.com/a/b")
    with pytest.raises(CompetitionError) as outsider:
        services.submission_describe(
            submission=submission, user=world.bob, run_name="x", description="", link=""
        )
    assert outsider.value.code == "not_a_member"
    with pytest.raises(CompetitionError) as script:
        services.submission_describe(
            submission=submission,
            user=world.alice,
            run_name="x",
            description="",
            link="javascript:alert(1)",
        )
    assert script.value.code == "invalid_link"
    submission.refresh_from_db()
    assert submission.run_name == "v2"


def test_files_given_for_each_others_sub_corpus_are_named(
    world, django_capture_on_commit_callbacks
):
    exc = checked(
        world,
        django_capture_on_commit_callbacks,
        files={
            "light": upload("AMI.CONLLUA", world.response_text("ami")),
            "ami": upload("LIGHT.CONLLUA", world.response_text("light")),
        },
    )
    assert {(p.subcorpus, p.code) for p in exc.problems} == {
        ("LIGHT", "other_subcorpus"),
        ("AMI", "other_subcorpus"),
    }
    [light] = [p for p in exc.problems if p.subcorpus == "LIGHT"]
    assert light.message.startswith("this file's name says AMI, but it was given for LIGHT")
