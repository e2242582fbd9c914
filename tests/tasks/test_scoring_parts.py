"""A multi-dataset run scored in parts (one job per dataset, then the chord's last job),
run here job by job in-process: the same rows as one job, each part written once, the last
job safe twice, a refused part ends the run with its message, and the recovery round takes
back a run whose part's worker died or whose last job was lost. The same path with real
workers: tests/tasks/test_worker_path.py."""

from __future__ import annotations

import socket
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError
from django.utils import timezone

from competition import scoring as lifecycle
from competition import services
from competition.models import Score, ScoringPart, ScoringRun, Submission
from tasks.scoring import finish_parts_task, score_part_task, score_submission_task

pytestmark = pytest.mark.django_db
Status = Submission.Status
ROW = ("subcorpus_id", "mode", "metric", "document", "recall", "precision", "f1", "counts")


@pytest.fixture
def claimed(world, django_capture_on_commit_callbacks):
    """A run scored once in one job, then queued again and claimed under "c", its parts
    created (as the dispatching job does before it sends the chord)."""
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    with django_capture_on_commit_callbacks():
        services.submission_rescore(submission=submission)
    held = lifecycle.submission_claim(submission_id=submission.pk, task_id="c")
    subcorpora = lifecycle.scoring_parts_create(submission=held, claim="c")
    assert sorted(subcorpora) == sorted(
        world.phase.subcorpora.filter(available=True).values_list("pk", flat=True)
    )
    assert lifecycle.scoring_parts_create(submission=held, claim="c") == subcorpora
    assert ScoringPart.objects.filter(submission=held).count() == 2
    return held, subcorpora


def rows(run: ScoringRun) -> list[tuple]:
    return sorted(
        Score.objects.filter(run=run).values_list(*ROW), key=lambda r: tuple(str(v) for v in r)
    )


def test_a_run_scored_in_parts_has_the_rows_of_one_job_and_writes_once(
    claimed, django_capture_on_commit_callbacks
):
    submission, subcorpora = claimed
    first_run = ScoringRun.objects.get(submission=submission, is_current=True)
    for subcorpus_id in subcorpora:
        assert score_part_task.apply(args=[submission.pk, subcorpus_id, "c"]).result == "done"
    # a part delivered twice writes once
    assert score_part_task.apply(args=[submission.pk, subcorpora[0], "c"]).result == "skipped"
    assert finish_parts_task.apply(args=[submission.pk, "c"]).result == "scored"
    assert finish_parts_task.apply(args=[submission.pk, "c"]).result == "skipped"  # twice: safe
    submission.refresh_from_db()
    assert submission.status == Status.SCORED and submission.attempts == 1
    current = ScoringRun.objects.get(submission=submission, is_current=True)
    assert current.pk != first_run.pk and current.task_id == "c"
    assert rows(current) == rows(first_run)  # every number as the one-job scoring's
    assert current.keys == first_run.keys
    assert not ScoringPart.objects.filter(submission=submission).exists()
    assert "LIGHT" in submission.scoring_log and "AMI" in submission.scoring_log


def test_parts_of_an_earlier_claim_are_ignored(claimed):
    submission, subcorpora = claimed
    Submission.objects.filter(pk=submission.pk).update(claimed_by="d")  # queued again since
    assert score_part_task.apply(args=[submission.pk, subcorpora[0], "c"]).result == "skipped"
    assert finish_parts_task.apply(args=[submission.pk, "c"]).result == "skipped"
    assert Submission.objects.get(pk=submission.pk).status == Status.SCORING


def test_a_refused_part_ends_the_run_with_its_message(claimed, settings):
    from pathlib import Path

    submission, subcorpora = claimed
    light = submission.files.get(subcorpus__slug="light")
    Path(settings.MEDIA_ROOT, light.path).write_text("not a CONLL-UA file\n")
    for subcorpus_id in subcorpora:
        score_part_task.apply(args=[submission.pk, subcorpus_id, "c"])
    assert finish_parts_task.apply(args=[submission.pk, "c"]).result == "failed"
    submission.refresh_from_db()
    assert submission.status == Status.FAILED and not submission.platform_failure
    assert submission.error.startswith("LIGHT.CONLLUA")
    assert str(light.absolute_path) not in submission.error


def test_a_new_run_checked_in_parts_is_refused_with_every_parts_problems(
    world, django_capture_on_commit_callbacks
):
    """Each part checks its own file before scoring it (the checks run across the
    workers); the last job refuses the run with the problems of every refused part, in the
    datasets' order: nothing recorded, the staged parts and the files' contents gone."""
    light = world.response_text("light").replace("light_2", "light_x")
    ami = world.response_text("ami").replace("ami_1", "ami_renamed")
    with django_capture_on_commit_callbacks():  # stored, not yet checked
        submission = services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads({"light": light, "ami": ami}),
        )
    held = lifecycle.submission_claim(submission_id=submission.pk, task_id="c")
    subcorpora = lifecycle.scoring_parts_create(submission=held, claim="c")
    for subcorpus_id in subcorpora:
        assert score_part_task.apply(args=[submission.pk, subcorpus_id, "c"]).result == "done"
    assert finish_parts_task.apply(args=[submission.pk, "c"]).result == "rejected"
    submission.refresh_from_db()
    assert submission.status == Status.REJECTED and not submission.platform_failure
    assert [p["file"] for p in submission.problems][:1] == ["LIGHT.CONLLUA"]
    assert {p["file"] for p in submission.problems} == {"LIGHT.CONLLUA", "AMI.CONLLUA"}
    assert not ScoringRun.objects.filter(submission=submission).exists()
    assert not ScoringPart.objects.filter(submission=submission).exists()
    assert not any(f.absolute_path.exists() for f in submission.files.all())
    assert services.submission_quota(team=world.alpha, phase=world.phase).total_used == 0


def test_a_part_over_its_time_limit_fails_the_run_as_the_platforms(claimed, monkeypatch):
    from celery.exceptions import SoftTimeLimitExceeded

    submission, subcorpora = claimed

    def too_long(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(lifecycle, "part_compute", too_long)
    for subcorpus_id in subcorpora:
        score_part_task.apply(args=[submission.pk, subcorpus_id, "c"])
    finish_parts_task.apply(args=[submission.pk, "c"])
    submission.refresh_from_db()
    assert submission.status == Status.FAILED and submission.platform_failure
    assert "time limit" in submission.error


def test_the_recovery_round_takes_back_a_run_whose_part_worker_died(
    claimed, settings, django_capture_on_commit_callbacks
):
    submission, subcorpora = claimed
    long_ago = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER + 5)
    Submission.objects.filter(pk=submission.pk).update(
        claimed_worker="celery@a:1", claimed_at=long_ago
    )
    lifecycle.worker_heartbeat(node="celery@a")  # the dispatching node lives on
    lifecycle.worker_heartbeat(node="celery@b")
    ScoringPart.objects.filter(subcorpus_id=subcorpora[0]).update(
        worker="celery@b:2", task_id="p0", started_at=long_ago
    )
    # the part's node beats: the run is left alone (its other part waits in the queue)
    assert lifecycle.submission_recover(node="celery@a").requeued == ()
    lifecycle.worker_heartbeat(node="celery@b", at=long_ago)  # the part's node died
    with django_capture_on_commit_callbacks() as sent:
        report = lifecycle.submission_recover(node="celery@a")
    assert report.requeued == (submission.pk,) and len(sent) == 1
    again = Submission.objects.get(pk=submission.pk)
    assert (again.status, again.claimed_by, again.attempts) == (Status.QUEUED, "", 1)


def test_parts_that_lost_their_database_connection_keep_the_runs_one_attempt(
    claimed, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Both parts lose their database connection as they write (``pg_terminate_backend``, a
    failover): each gives its part back and is retried under the run's claim. A recovery
    round on their node while the retries wait (the node runs neither job: a retry's
    countdown, or another node took it) leaves the run alone; the retries write the parts
    and the run is recorded once, on its one attempt."""
    submission, subcorpora = claimed
    assert submission.attempts == 1
    long_ago = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER + 5)
    Submission.objects.filter(pk=submission.pk).update(
        claimed_worker="celery@a:1", claimed_at=long_ago
    )
    node = socket.gethostname()  # where an in-process job says it runs
    lifecycle.worker_heartbeat(node=node)
    store, start = lifecycle.scoring_part_store, lifecycle.scoring_part_start
    cut: list[int] = []
    rounds = []

    def store_or_lose_the_connection(**kwargs):
        if kwargs["subcorpus_id"] not in cut:
            cut.append(kwargs["subcorpus_id"])
            raise OperationalError("terminating connection due to administrator command")
        return store(**kwargs)

    def start_after_a_recovery_round(**kwargs):
        if kwargs["subcorpus_id"] in cut:  # the retry: the part is not held meanwhile
            part = ScoringPart.objects.get(subcorpus_id=kwargs["subcorpus_id"])
            assert (part.worker, part.started_at, part.finished_at) == ("", None, None)
            rounds.append(lifecycle.submission_recover(node=node, running=set))
        return start(**kwargs)

    monkeypatch.setattr(lifecycle, "scoring_part_store", store_or_lose_the_connection)
    monkeypatch.setattr(lifecycle, "scoring_part_start", start_after_a_recovery_round)
    for subcorpus_id in subcorpora:
        assert score_part_task.apply(args=[submission.pk, subcorpus_id, "c"]).result == "done"
    assert sorted(cut) == sorted(subcorpora)
    assert [(r.requeued, r.resent) for r in rounds] == [((), ())] * 2
    with django_capture_on_commit_callbacks(execute=True):
        assert finish_parts_task.apply(args=[submission.pk, "c"]).result == "scored"
    submission.refresh_from_db()
    assert (submission.status, submission.attempts) == (Status.SCORED, 1)
    assert ScoringRun.objects.filter(submission=submission, is_current=True).get().task_id == "c"


def test_a_part_released_by_another_job_or_after_it_was_written_stays_as_it_is(claimed):
    """Only the part's own job gives it back, and only while it is not written."""
    submission, subcorpora = claimed
    ScoringPart.objects.filter(subcorpus_id=subcorpora[0]).update(
        worker="celery@b:2", task_id="p0", started_at=timezone.now()
    )
    release = dict(submission_id=submission.pk, subcorpus_id=subcorpora[0], claim="c")
    assert not lifecycle.scoring_part_release(**release, task_id="p9")
    ScoringPart.objects.filter(subcorpus_id=subcorpora[0]).update(finished_at=timezone.now())
    assert not lifecycle.scoring_part_release(**release, task_id="p0")
    assert ScoringPart.objects.get(subcorpus_id=subcorpora[0]).worker == "celery@b:2"


def test_a_retry_waiting_for_its_countdown_is_a_job_its_node_runs():
    """Celery keeps a retry waiting for its countdown among the node's scheduled requests,
    not its reserved ones: the recovery round must count it as running, or it takes the
    run of a part (or of a job) that is only waiting to try again."""
    from celery.worker import state

    from tasks.scoring import node_task_ids

    class Waiting:
        id = "p0"

    waiting = Waiting()
    state.scheduled_requests.add(waiting)
    try:
        assert "p0" in node_task_ids()
    finally:
        state.scheduled_requests.discard(waiting)
    assert "p0" not in node_task_ids()


def test_the_recovery_round_sends_a_lost_last_job_again(claimed, settings, monkeypatch):
    submission, subcorpora = claimed
    for subcorpus_id in subcorpora:
        score_part_task.apply(args=[submission.pk, subcorpus_id, "c"])
    long_ago = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER + 5)
    Submission.objects.filter(pk=submission.pk).update(
        claimed_worker="celery@a:1", claimed_at=long_ago
    )
    lifecycle.worker_heartbeat(node="celery@a")
    sent = []
    monkeypatch.setattr(finish_parts_task, "delay", lambda *args: sent.append(args))
    assert lifecycle.submission_recover(node="celery@a").requeued == ()
    assert sent == [(submission.pk, "c")]
    assert lifecycle.submission_recover(node="celery@a").requeued == ()
    assert len(sent) == 1  # once per grace time
    assert finish_parts_task.apply(args=list(sent[0])).result == "scored"


def test_in_process_a_multi_dataset_run_is_scored_in_one_job(
    world, django_capture_on_commit_callbacks
):
    """The embedded configuration (`make demo`) has no workers to spread over."""
    with django_capture_on_commit_callbacks():
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    assert score_submission_task.apply(args=[submission.pk]).result == "scored"
    assert not ScoringPart.objects.exists()


def test_parts_the_broker_lost_queue_the_run_again_without_an_attempt(
    claimed, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """A broker restarted without persistence forgets the parts' messages: parts that never
    started, nothing moving for twice the grace time and an empty queue. The run is queued again
    and its attempt given back; while the queue holds messages, nothing happens."""
    from competition.scoring import recovery as scoring_services

    submission, _ = claimed
    lifecycle.worker_heartbeat(node="celery@a")
    monkeypatch.setattr(scoring_services, "scoring_queue_empty", lambda: True)
    # claimed a little over the grace time ago: a part may just have been taken, not begun
    recent = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER + 5)
    Submission.objects.filter(pk=submission.pk).update(
        claimed_worker="celery@a:1", claimed_at=recent
    )
    assert lifecycle.submission_recover(node="celery@a").resent == ()
    long_ago = timezone.now() - timedelta(seconds=2 * settings.WORKER_STALE_AFTER + 5)
    Submission.objects.filter(pk=submission.pk).update(claimed_at=long_ago)
    monkeypatch.setattr(scoring_services, "scoring_queue_empty", lambda: False)
    assert lifecycle.submission_recover(node="celery@a").resent == ()
    monkeypatch.setattr(scoring_services, "scoring_queue_empty", lambda: True)
    with django_capture_on_commit_callbacks() as sent:
        report = lifecycle.submission_recover(node="celery@a")
    assert report.resent == (submission.pk,) and report.requeued == () and len(sent) == 1
    again = Submission.objects.get(pk=submission.pk)
    assert (again.status, again.attempts) == (Status.QUEUED, 0)


def test_the_sweep_leaves_a_long_run_in_parts_alone_while_its_parts_move(claimed, settings):
    """A run in parts may take longer than SWEEP_STUCK_AFTER in all (many datasets, few
    workers): the sweep judges it by its parts, not by its claim's age."""
    submission, subcorpora = claimed
    long_ago = timezone.now() - timedelta(seconds=settings.SWEEP_STUCK_AFTER + 60)
    Submission.objects.filter(pk=submission.pk).update(claimed_at=long_ago)
    ScoringPart.objects.filter(subcorpus_id=subcorpora[0]).update(
        worker="celery@b:2", task_id="p0", started_at=timezone.now()
    )
    assert lifecycle.submission_sweep().requeued == ()
    ScoringPart.objects.update(started_at=long_ago)
    assert lifecycle.submission_sweep().requeued == (submission.pk,)


@pytest.mark.django_db(transaction=True)
def test_a_crac_2026_run_in_parts_has_each_datasets_analyses_and_empty_nodes():
    """The analyses and the empty-node measures of the crac-2026 procedure are scored in
    each dataset's part: the run scored in parts has the rows of the one-job scoring (the
    analysis modes and the measures of every dataset), and each part's log line."""
    get_user_model().objects.create_user("organizer")
    demo = Path(__file__).resolve().parents[2] / "fixtures" / "crac-2026-demo.yaml"
    competition = services.competition_load(path=demo).competition
    submission = Submission.objects.get(
        phase__task__competition=competition, run_name="String match"
    )
    first_run = ScoringRun.objects.get(submission=submission, is_current=True)
    services.submission_rescore(submission=submission, queue=False)  # no job: scored below
    held = lifecycle.submission_claim(submission_id=submission.pk, task_id="c")
    assert held is not None
    subcorpora = lifecycle.scoring_parts_create(submission=held, claim="c")
    assert len(subcorpora) == 2
    for subcorpus_id in subcorpora:
        assert score_part_task.apply(args=[submission.pk, subcorpus_id, "c"]).result == "done"
        part = ScoringPart.objects.get(submission=submission, subcorpus_id=subcorpus_id)
        assert (
            sum(
                "analysis rows (entity range, entity type, mention type)" in line
                for line in part.outcome["log"]
            )
            == 1
        )
    assert finish_parts_task.apply(args=[submission.pk, "c"]).result == "scored"
    current = ScoringRun.objects.get(submission=submission, is_current=True)
    assert current.pk != first_run.pk
    assert rows(current) == rows(first_run)
    for subcorpus_id in subcorpora:
        modes = set(
            Score.objects.filter(run=current, subcorpus_id=subcorpus_id).values_list(
                "mode", flat=True
            )
        )
        assert {"task", "empty-nodes"} <= modes
        assert any(m.startswith("entity range ") for m in modes)
        assert any(m.startswith("mention type ") for m in modes)
    submission.refresh_from_db()
    assert submission.scoring_log.count("analysis rows") >= 4  # two datasets, twice scored
