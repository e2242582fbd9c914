"""score_submission_task and sweep_stuck_submissions in the embedded configuration
(tasks run in-process). Failures end in a final status with a message, never 'scoring'."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from competition import scoring as lifecycle
from competition import services
from competition.models import ScoringRun, Submission
from tasks import scoring as scoring_tasks
from tasks.scoring import score_submission_task, sweep_stuck_submissions

pytestmark = pytest.mark.django_db
Status = Submission.Status
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def queued(world) -> Submission:
    return services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )


def run_task(submission: Submission, task_id: str = "t-1") -> str:
    result = score_submission_task.apply(args=[submission.pk], task_id=task_id)
    submission.refresh_from_db()
    return result.result


def test_the_task_scores_a_queued_submission(queued):
    assert run_task(queued) == "scored"
    assert queued.status == Status.SCORED and queued.attempts == 1
    assert queued.scores.filter(mode="task", metric="conll", document="").count() == 2


def test_running_the_task_again_changes_nothing(queued):
    run_task(queued)
    rows = queued.scores.count()
    assert run_task(queued, task_id="t-2") == "skipped"
    assert ScoringRun.objects.filter(submission=queued).count() == 1
    assert queued.scores.count() == rows


def test_a_cancelled_submission_is_not_scored(queued):
    services.submission_cancel(submission=queued, user=queued.submitted_by)
    assert run_task(queued) == "skipped"
    assert queued.status == Status.CANCELLED and not queued.scores.exists()


def test_a_file_the_scorer_refuses_fails_without_retry_and_counts(queued):
    """A stored file that no longer reads (changed on disk after validation) fails with the
    scorer's message naming the uploaded file, not the server path."""
    Submission.objects.filter(pk=queued.pk).update(validated_at=timezone.now())  # checked
    queued.refresh_from_db()
    stored = queued.files.get(subcorpus__slug="light").absolute_path
    stored.write_text(
        stored.read_text(encoding="utf-8").replace("Min=6)", "Min=6"), encoding="utf-8"
    )
    assert run_task(queued) == "failed"
    assert queued.status == Status.FAILED and not queued.platform_failure
    assert queued.error.startswith("LIGHT.CONLLUA:")
    assert str(settings.MEDIA_ROOT) not in queued.error
    assert queued.attempts == 1


@pytest.mark.parametrize(
    "exception, words",
    [
        (SoftTimeLimitExceeded(), "time limit"),
        (MemoryError(), "memory limit"),
    ],
)
def test_limits_fail_the_job_as_the_platforms_fault(queued, monkeypatch, exception, words):
    """Celery raises SoftTimeLimitExceeded in the job at the soft limit; the memory cap
    raises MemoryError. Either ends the submission as failed, not counted."""

    def over_the_limit(*, submission):
        raise exception

    monkeypatch.setattr(lifecycle, "submission_compute", over_the_limit)
    assert run_task(queued) == "failed"
    assert queued.status == Status.FAILED and queued.platform_failure
    assert words in queued.error and "does not count" in queued.error


def test_a_crash_is_contained_and_reported(queued, monkeypatch):
    def crash(*, submission):
        raise RuntimeError("bug")

    monkeypatch.setattr(lifecycle, "submission_compute", crash)
    result = score_submission_task.apply(args=[queued.pk], task_id="t-1")
    assert isinstance(result.result, RuntimeError)
    queued.refresh_from_db()
    assert queued.status == Status.FAILED and queued.platform_failure
    assert "bug" not in queued.error and "internal error" in queued.error


def test_the_sweep_task_rescues_a_lost_job(queued, django_capture_on_commit_callbacks):
    Submission.objects.filter(pk=queued.pk).update(
        queued_at=timezone.now() - timedelta(seconds=settings.SWEEP_STUCK_AFTER + 1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        report = sweep_stuck_submissions.apply().result
    assert report == {"requeued": [queued.pk], "failed": []}
    queued.refresh_from_db()
    assert queued.status == Status.SCORED


def test_the_beat_schedule_runs_the_sweep():
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-stuck-submissions"]
    assert entry["task"] == sweep_stuck_submissions.name
    assert entry["schedule"].total_seconds() == settings.SWEEP_INTERVAL


def test_the_task_is_acknowledged_late_and_requeued_on_worker_loss():
    assert score_submission_task.acks_late and score_submission_task.reject_on_worker_lost
    assert settings.CELERY_TASK_SOFT_TIME_LIMIT < settings.CELERY_TASK_TIME_LIMIT
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert visibility > settings.CELERY_TASK_TIME_LIMIT


def test_a_worker_child_cannot_grow_past_the_memory_cap():
    """The worker_process_init hook caps the child's data segment: a large allocation raises
    MemoryError (checked in a separate process)."""
    code = (
        "import django; django.setup()\n"
        "from tasks.scoring import limit_child_memory\n"
        "limit_child_memory()\n"
        "try:\n    b = bytearray(400 * 1024 * 1024)\n    print('allocated')\n"
        "except MemoryError:\n    print('refused')\n"
    )
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings", SCORING_MEMORY_LIMIT_MB="300")
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == "refused", out.stderr[-2000:]
    assert scoring_tasks.limit_child_memory is not None


def test_the_scoring_deadline_stops_a_long_job_in_the_main_thread():
    import time

    from tasks.scoring import scoring_deadline

    start = time.monotonic()
    with pytest.raises(SoftTimeLimitExceeded), scoring_deadline(1):
        while time.monotonic() - start < 10:
            sum(range(1000))
    assert time.monotonic() - start < 5
    with scoring_deadline(1):  # disarmed afterwards: nothing fires later
        pass
    time.sleep(1.2)


def test_a_hard_time_limit_report_fails_the_claimed_submission(queued):
    from celery.exceptions import TimeLimitExceeded
    from celery.signals import task_failure

    lifecycle.submission_claim(submission_id=queued.pk, task_id="t-9")
    task_failure.send(
        sender=score_submission_task,
        task_id="other",
        args=[queued.pk],
        exception=TimeLimitExceeded(5),
        kwargs={},
        traceback=None,
        einfo=None,
    )
    queued.refresh_from_db()
    assert queued.status == Status.SCORING  # another task's failure changes nothing
    task_failure.send(
        sender=score_submission_task,
        task_id="t-9",
        args=[queued.pk],
        exception=TimeLimitExceeded(5),
        kwargs={},
        traceback=None,
        einfo=None,
    )
    queued.refresh_from_db()
    assert queued.status == Status.FAILED and "hard time limit" in queued.error


def test_a_missing_gold_key_is_the_platforms_fault_and_hides_its_path(queued):
    key = Path(settings.PRIVATE_ROOT) / queued.files.get(subcorpus__slug="ami").subcorpus.key_file
    key.unlink()
    assert run_task(queued) == "failed"
    assert queued.status == Status.FAILED and queued.platform_failure
    assert "gold key of AMI" in queued.error
    assert str(settings.PRIVATE_ROOT) not in queued.error


def test_a_job_that_loses_its_database_connection_gives_the_run_back_uncounted(
    queued, monkeypatch, django_capture_on_commit_callbacks
):
    """The connection dies while the job records: the job closes it, gives its claim back
    and the run is queued again (here: scored at once, in-process) with one attempt in all;
    no retry under the old claim, no 'scoring' left behind."""
    import psycopg.errors
    from django.db import OperationalError

    from competition.scoring import record as recording

    record = recording.submission_record
    calls = []

    def record_once_lost(**kwargs):
        calls.append(kwargs["task_id"])
        if len(calls) == 1:
            text = "terminating connection due to administrator command"
            raise OperationalError(text) from psycopg.errors.AdminShutdown(text)
        return record(**kwargs)

    monkeypatch.setattr(recording, "submission_record", record_once_lost)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_task(queued) == "released"
    queued.refresh_from_db()
    assert queued.status == Status.SCORED, queued.error
    assert queued.attempts == 1 and len(calls) == 2 and calls[1] != "t-1"
    assert ScoringRun.objects.filter(submission=queued).count() == 1


def test_a_statement_the_database_refuses_keeps_the_attempt(
    queued, monkeypatch, django_capture_on_commit_callbacks
):
    """A refused statement (a timeout; the connection lives) gives the claim back too, but
    the attempt stays counted, so a run that always fails so is bounded by the attempts."""
    import psycopg.errors
    from django.db import OperationalError

    from competition.scoring import record as recording

    def refused(**kwargs):
        text = "canceling statement due to statement timeout"
        raise OperationalError(text) from psycopg.errors.QueryCanceled(text)

    monkeypatch.setattr(recording, "submission_record", refused)
    monkeypatch.setattr("django.conf.settings.SCORING_MAX_ATTEMPTS", 3)
    with django_capture_on_commit_callbacks(execute=True):
        run_task(queued)
    queued.refresh_from_db()
    assert queued.status == Status.FAILED and queued.platform_failure
    assert queued.attempts == 3 and "after 3 attempts" in queued.error
