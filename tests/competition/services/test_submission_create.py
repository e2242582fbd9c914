"""submission_create: the request's checks before anything counts, limits, storage,
queueing; the worker's check of the files (a refused run: its problems, nothing counted)."""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from competition import scoring as lifecycle
from competition import services
from competition.errors import SubmissionRejected
from competition.models import ScoringRun, Submission, SubmissionFile
from competition.services.problems import Problem

pytestmark = pytest.mark.django_db


def submit(world, user=None, files=None, **kwargs) -> Submission:
    return services.submission_create(
        team=world.alpha,
        phase=world.phase,
        user=user or world.alice,
        files=world.uploads() if files is None else files,
        **kwargs,
    )


def rejected(world, **kwargs) -> SubmissionRejected:
    with pytest.raises(SubmissionRejected) as caught:
        submit(world, **kwargs)
    return caught.value


def refused(world, capture, **kwargs) -> Submission:
    """Submit, then run the scoring job queued at commit (here, in this process): the
    worker checks the files and refuses the run. Returns the run as stored after."""
    with capture(execute=True):
        submission = submit(world, **kwargs)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.REJECTED, submission.scoring_log
    return submission


def problems_of(submission: Submission) -> list[Problem]:
    return [Problem(**problem) for problem in submission.problems]


def nothing_kept(submission: Submission) -> bool:
    """A refused run keeps its rows (the page lists its files) but no file contents, no
    scoring."""
    media = Path(settings.MEDIA_ROOT) / "submissions" / str(submission.pk)
    return not media.exists() and not ScoringRun.objects.filter(submission=submission).exists()


def nothing_stored() -> bool:
    media = Path(settings.MEDIA_ROOT) / "submissions"
    return (
        not Submission.objects.exists()
        and not SubmissionFile.objects.exists()
        and (not media.exists() or not any(media.iterdir()))
    )


def test_it_stores_a_valid_run_and_queues_it_after_commit(
    world, django_capture_on_commit_callbacks
):
    """One file per available sub-corpus is stored under MEDIA_ROOT/submissions/<id>/ and
    the scoring job is queued only when the transaction commits; the files are checked by
    that job (the run is "checking" until then)."""
    with django_capture_on_commit_callbacks() as callbacks:
        submission = submit(world, run_name="primary")
    assert submission.status == Submission.Status.QUEUED
    assert submission.validated_at is None and submission.queued_at is not None
    assert submission.is_checking and submission.shown_status == "checking"
    assert len(callbacks) == 1
    files = {f.subcorpus.slug: f for f in submission.files.select_related("subcorpus")}
    assert set(files) == {"light", "ami"}
    stored = Path(settings.MEDIA_ROOT) / files["light"].path
    assert stored.parent.name == str(submission.pk)
    assert stored.read_text(encoding="utf-8") == world.response_text("light")
    assert files["light"].original_name == "LIGHT.CONLLUA"
    assert len(files["light"].sha256) == 64


def test_it_accepts_one_zip_named_by_sub_corpus(world):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("run/LIGHT.CONLLUA", world.response_text("light"))
        zf.writestr("run/ami.conllua", world.response_text("ami"))
    archive = SimpleUploadedFile("run.zip", buffer.getvalue())
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, archive=archive
    )
    assert submission.files.count() == 2


def test_it_rejects_an_invalid_file_with_file_document_and_line(
    world, django_capture_on_commit_callbacks
):
    """A response with a missing document and a broken markable is refused by the worker's
    check with a list of problems naming the uploaded file, the document and the line;
    nothing is scored and the files' contents are not kept."""
    broken = world.response_text("light").replace(
        "(EntityID=1|MarkableID=markable_3|Min=6)", "(EntityID=1|MarkableID=markable_3|Min=6"
    )
    ami_missing_doc = world.response_text("ami").replace("ami_1", "ami_renamed")
    run = refused(
        world,
        django_capture_on_commit_callbacks,
        files=world.uploads({"light": broken, "ami": ami_missing_doc}),
    )
    problems = problems_of(run)
    assert {p.code for p in problems} and run.error.startswith("The response files do not")
    by_file = {p.file: p for p in problems}
    assert set(by_file) == {"LIGHT.CONLLUA", "AMI.CONLLUA"}
    assert by_file["LIGHT.CONLLUA"].line is not None
    assert by_file["LIGHT.CONLLUA"].subcorpus == "LIGHT"
    assert any("ami_1" in p.message or p.document == "ami_1" for p in problems)
    assert nothing_kept(run)


def test_it_never_shows_the_gold_key_path_in_problems(world, django_capture_on_commit_callbacks):
    run = refused(
        world,
        django_capture_on_commit_callbacks,
        files=world.uploads(
            {"light": world.response_text("ami"), "ami": world.response_text("ami")}
        ),
    )
    text = " ".join(str(p) for p in problems_of(run)) + run.error + run.scoring_log
    assert str(settings.PRIVATE_ROOT) not in text and str(settings.MEDIA_ROOT) not in text
    assert "gold key of LIGHT" in text or "light_1" in text


def test_a_rejected_upload_spends_no_quota(world, django_capture_on_commit_callbacks):
    broken = world.response_text("light").replace("light_2", "light_x")
    refused(
        world,
        django_capture_on_commit_callbacks,
        files=world.uploads({"light": broken, "ami": world.response_text("ami")}),
    )
    quota = services.submission_quota(team=world.alpha, phase=world.phase)
    assert (quota.daily_used, quota.total_used) == (0, 0)


def test_runs_being_checked_count_so_a_burst_cannot_pass_the_limit(make_world):
    """Runs stored and waiting for the worker's check count: a burst of uploads beyond the
    daily limit is refused at once, before any of them is checked."""
    world = make_world(daily_limit=3)
    pending = [submit(world) for _ in range(3)]
    assert all(run.is_checking for run in pending)
    assert rejected(world).code == "daily_limit"
    assert Submission.objects.count() == 3


def test_a_refused_run_stops_counting(make_world, django_capture_on_commit_callbacks):
    world = make_world(daily_limit=1)
    broken = world.response_text("light").replace("light_2", "light_x")
    refused(
        world,
        django_capture_on_commit_callbacks,
        files=world.uploads({"light": broken, "ami": world.response_text("ami")}),
    )
    assert submit(world).is_checking  # the refused run left the day's one run free


def test_it_requires_a_file_for_every_available_sub_corpus(world):
    exc = rejected(world, files=world.uploads({"light": world.response_text("light")}))
    assert exc.code == "missing_files" and "AMI" in exc.message
    assert nothing_stored()


def test_it_refuses_a_file_for_an_unavailable_or_unknown_sub_corpus(world):
    files = world.uploads()
    files["switchboard"] = SimpleUploadedFile("SWITCHBOARD.CONLLUA", b"x")
    exc = rejected(world, files=files)
    assert exc.code == "unknown_files" and "switchboard" in exc.message


def test_it_rejects_a_sixth_run_on_the_same_day(make_world):
    world = make_world(daily_limit=5)
    for _ in range(5):
        submit(world)
    exc = rejected(world)
    assert exc.code == "daily_limit" and exc.params["limit"] == 5
    assert Submission.objects.count() == 5


def test_the_daily_limit_counts_the_current_utc_day_only(make_world):
    world = make_world(daily_limit=1)
    first = submit(world)
    yesterday = timezone.now() - timedelta(days=1)
    Submission.objects.filter(pk=first.pk).update(validated_at=yesterday, created_at=yesterday)
    submit(world)  # yesterday's run does not count today
    assert rejected(world).code == "daily_limit"


def test_it_rejects_runs_over_the_total_limit(make_world):
    world = make_world(daily_limit=10, total_limit=2)
    submit(world)
    submit(world)
    assert rejected(world).code == "total_limit"


def test_cancelled_and_platform_failed_runs_do_not_count(make_world):
    world = make_world(daily_limit=2)
    cancelled = submit(world)
    services.submission_cancel(submission=cancelled, user=world.alice)
    failed = submit(world)
    lifecycle.submission_fail(submission=failed, reason="worker lost", platform_failure=True)
    submit(world)
    submit(world)
    assert rejected(world).code == "daily_limit"


def test_runs_failed_because_of_their_files_count(make_world):
    world = make_world(daily_limit=1)
    failed = submit(world)
    lifecycle.submission_fail(submission=failed, reason="bad file", platform_failure=False)
    assert rejected(world).code == "daily_limit"


def test_limits_are_per_team(make_world):
    world = make_world(daily_limit=1)
    submit(world)
    other = services.submission_create(
        team=world.beta, phase=world.phase, user=world.bob, files=world.uploads()
    )
    assert other.team == world.beta


def test_it_rejects_a_user_who_is_not_in_the_team(world):
    assert rejected(world, user=world.bob).code == "not_a_member"
    assert rejected(world, user=world.mallory).code == "not_a_member"
    assert nothing_stored()


def test_it_rejects_runs_outside_the_phase_dates(world):
    world.phase.start = timezone.now() + timedelta(hours=1)
    world.phase.save()
    assert rejected(world).code == "phase_closed"
    world.phase.start = timezone.now() - timedelta(days=2)
    world.phase.end = timezone.now() - timedelta(days=1)
    world.phase.save()
    assert rejected(world).code == "phase_closed"


def test_baselines_skip_dates_and_limits_but_only_for_the_organizer_team(make_world):
    world = make_world(daily_limit=0)
    world.phase.end = timezone.now() - timedelta(days=1)
    world.phase.save()
    organizers = services.organizer_team_get_or_create(competition=world.competition)
    baseline = services.submission_create(
        team=organizers,
        phase=world.phase,
        user=None,
        files=world.uploads(),
        run_name="All singletons",
        is_baseline=True,
    )
    assert baseline.is_baseline and baseline.status == Submission.Status.QUEUED
    with pytest.raises(SubmissionRejected) as caught:
        services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads(),
            is_baseline=True,
        )
    assert caught.value.code == "not_a_member"


@pytest.mark.parametrize(
    "payload", [b"\xff\xfe\x00garbage\n", b"", b"just some text\n", b"PK\x03\x04 not really a zip"]
)
def test_junk_files_are_rejected_with_a_message_not_a_crash(
    world, payload, django_capture_on_commit_callbacks
):
    """Junk is refused at once when the request's checks see it (an archive that is not
    one, a file in no known format), else by the worker's check: a message per file,
    never a crash, nothing scored or counted."""
    files = world.uploads()
    files["light"] = SimpleUploadedFile("LIGHT.CONLLUA", payload)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            run = submit(world, files=files)
    except SubmissionRejected as exc:
        assert exc.code in {"invalid_files", "unsafe_zip"}
        assert exc.message
        assert all(p.file == "LIGHT.CONLLUA" for p in exc.problems)
        assert nothing_stored()
        return
    run.refresh_from_db()
    assert run.status == Submission.Status.REJECTED and run.error
    assert problems_of(run) and all(p.file == "LIGHT.CONLLUA" for p in problems_of(run))
    assert nothing_kept(run)


def test_a_file_in_the_other_format_is_refused_in_one_line_naming_both(world):
    """A CorefUD CoNLL-U file for a CONLL-UA phase: the formats named, no scorer option."""
    corefud = (
        "# global.Entity = eid-etype-head-other\n# newdoc id = light_1\n# sent_id = 1\n"
        "1\tthe\t_\t_\t_\t_\t0\troot\t_\tEntity=(1--1-)\n"
    )
    exc = rejected(
        world, files=world.uploads({"light": corefud, "ami": world.response_text("ami")})
    )
    assert [(p.file, p.message) for p in exc.problems] == [
        ("LIGHT.CONLLUA", "this is a CorefUD CoNLL-U file; the phase expects CONLL-UA")
    ]
    assert nothing_stored()
