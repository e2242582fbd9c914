"""Only a real attempt counts, a run whose worker died is taken back by a live worker, and a
run the broker never got is published when it can be: what the workers' heartbeat loop
does (tasks/scoring.py heartbeat_loop -> submission_recover)."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.utils import timezone

from competition import scoring as lifecycle
from competition import services
from competition.models import Submission, WorkerHeartbeat
from competition.selectors import submission_status_label

pytestmark = pytest.mark.django_db
Status = Submission.Status
HERE = f"celery@here:{os.getpid()}"  # this process: alive
GONE = "celery@here:999999999"  # no such process on this node


@pytest.fixture
def queued(world, django_capture_on_commit_callbacks) -> Submission:
    with django_capture_on_commit_callbacks():  # not run: the run stays queued
        return services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )


def attempts(submission: Submission) -> int:
    return Submission.objects.get(pk=submission.pk).attempts


def test_the_same_message_delivered_three_times_is_one_attempt(queued):
    """Copies of a message delivered while its first copy is being scored are refused and
    spend nothing; the holder itself claiming again (a retry) spends nothing either."""
    parent = f"celery@here:{os.getppid()}"  # another live process on this node
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=HERE)
    for _ in range(2):
        assert (
            lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=parent) is None
        )
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=HERE)
    assert attempts(queued) == 1


def test_a_claim_whose_process_died_is_taken_over_as_a_new_attempt(queued):
    lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=GONE)
    taken = lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=HERE)
    assert taken is not None and taken.claimed_worker == HERE and attempts(queued) == 2


def test_a_claim_held_on_another_node_depends_on_that_nodes_heartbeat(queued):
    lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker="celery@there:1")
    lifecycle.worker_heartbeat(node="celery@there")
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=HERE) is None
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(minutes=5))
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=HERE)
    assert attempts(queued) == 2


def test_a_live_worker_takes_back_the_runs_of_a_node_that_stopped_beating(
    queued, settings, django_capture_on_commit_callbacks
):
    lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker="celery@dead:7")
    long_ago = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER + 5)
    Submission.objects.filter(pk=queued.pk).update(claimed_at=long_ago)
    lifecycle.worker_heartbeat(node="celery@dead", at=long_ago)
    lifecycle.worker_heartbeat(node="celery@alive")
    with django_capture_on_commit_callbacks() as queued_jobs:
        report = lifecycle.submission_recover()
    assert report.requeued == (queued.pk,) and len(queued_jobs) == 1
    again = Submission.objects.get(pk=queued.pk)
    assert (again.status, again.claimed_worker, again.attempts) == (Status.QUEUED, "", 1)
    # a node that still beats keeps its runs
    lifecycle.submission_claim(submission_id=queued.pk, task_id="u", worker="celery@alive:8")
    Submission.objects.filter(pk=queued.pk).update(claimed_at=long_ago)
    assert lifecycle.submission_recover().requeued == ()


def test_a_run_the_broker_never_got_says_so_and_is_published_when_it_can_be(
    world, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Broker down at upload: the run is stored, says it waits for the queue, and the next
    recovery round (a worker, once the broker is back) publishes it."""
    from tasks import scoring as jobs

    def down(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(jobs.score_submission_task, "delay", down)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    submission.refresh_from_db()
    assert submission.status == Status.QUEUED and not submission.published
    assert submission_status_label(submission=submission) == "Waiting for a scoring worker"
    lifecycle.worker_heartbeat(node="celery@alive")
    assert submission_status_label(submission=submission) == "Accepted, waiting for the queue"
    assert lifecycle.submission_recover().published == ()  # the broker is still away
    assert not Submission.objects.get(pk=submission.pk).published
    sent = []
    monkeypatch.setattr(jobs.score_submission_task, "delay", sent.append)
    report = lifecycle.submission_recover()
    assert report.published == (submission.pk,) and sent == [submission.pk]
    assert Submission.objects.get(pk=submission.pk).published


def test_the_heartbeat_loop_beats_and_recovers(monkeypatch, settings):
    from tasks import scoring as jobs

    calls = []
    monkeypatch.setattr(
        lifecycle, "submission_recover", lambda *, node, running: calls.append(("recover", node))
    )
    settings.WORKER_HEARTBEAT_INTERVAL = 0
    jobs.heartbeat_loop("celery@loop", rounds=2)
    assert calls == [("recover", "celery@loop")] * 2
    assert WorkerHeartbeat.objects.filter(node="celery@loop").exists()


def test_a_run_whose_message_the_broker_lost_is_sent_again_when_the_queue_is_empty(
    queued, settings, monkeypatch
):
    """A broker restarted without persistence forgets its messages: a run queued for longer
    than the grace time while the queue is empty is sent again, once per grace time; while
    messages wait in the queue, nothing is sent (the run may be among them)."""
    from competition.services import dispatch
    from tasks import scoring as jobs

    length = {"value": 3}
    monkeypatch.setattr(dispatch, "scoring_queue_length", lambda: length["value"])
    sent: list[int] = []
    monkeypatch.setattr(jobs.score_submission_task, "delay", sent.append)
    long_ago = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER + 5)
    Submission.objects.filter(pk=queued.pk).update(queued_at=long_ago)
    assert lifecycle.submission_recover().resent == () and sent == []
    length["value"] = 0
    assert lifecycle.submission_recover().resent == (queued.pk,) and sent == [queued.pk]
    assert attempts(queued) == 0
    assert lifecycle.submission_recover().resent == ()  # not again within the grace time
    assert sent == [queued.pk]


def test_a_fresh_queued_run_is_not_sent_again(queued, monkeypatch):
    from competition.scoring import recovery as scoring_services

    monkeypatch.setattr(scoring_services, "scoring_queue_empty", lambda: True)
    assert lifecycle.submission_recover().resent == ()


def test_a_claim_held_by_a_job_its_node_no_longer_runs_is_taken_back(
    queued, settings, django_capture_on_commit_callbacks
):
    """A pool process that outlived its job (the job lost its database connection and gave
    up) is alive but idle: its node's recovery round, which knows the jobs it runs, queues
    the run again; a job still running keeps it."""
    lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=HERE)
    long_ago = timezone.now() - timedelta(seconds=settings.WORKER_STALE_AFTER + 5)
    Submission.objects.filter(pk=queued.pk).update(claimed_at=long_ago)
    lifecycle.worker_heartbeat(node="celery@here")
    assert lifecycle.submission_recover(node="celery@here", running=lambda: {"t"}).requeued == ()
    # without what the node runs, only whether the process exists is known: it does
    assert lifecycle.submission_recover(node="celery@here").requeued == ()
    with django_capture_on_commit_callbacks() as sent:
        report = lifecycle.submission_recover(node="celery@here", running=lambda: {"other"})
    assert report.requeued == (queued.pk,) and len(sent) == 1
    assert Submission.objects.get(pk=queued.pk).status == Status.QUEUED


def test_the_next_try_of_a_job_takes_over_its_claim_without_spending(queued):
    """A retry of the job (same task id, in another live process) takes the claim of the
    try before it, which has ended; a copy of the same try is still refused."""
    parent = f"celery@here:{os.getppid()}"
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=parent)
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=HERE) is None
    taken = lifecycle.submission_claim(
        submission_id=queued.pk, task_id="t", worker=HERE, resumes=True
    )
    assert taken is not None and taken.claimed_worker == HERE and attempts(queued) == 1
    # a retry never takes the claim of another job
    assert (
        lifecycle.submission_claim(
            submission_id=queued.pk, task_id="u", worker=parent, resumes=True
        )
        is None
    )


def test_a_released_claim_is_queued_again_and_gives_its_attempt_back(
    queued, django_capture_on_commit_callbacks
):
    lifecycle.submission_claim(submission_id=queued.pk, task_id="t", worker=HERE)
    assert not lifecycle.submission_release(submission_id=queued.pk, task_id="other")
    with django_capture_on_commit_callbacks() as sent:
        assert lifecycle.submission_release(submission_id=queued.pk, task_id="t", spent=False)
    again = Submission.objects.get(pk=queued.pk)
    assert (again.status, again.claimed_by, again.attempts) == (Status.QUEUED, "", 0)
    assert len(sent) == 1
    lifecycle.submission_claim(submission_id=queued.pk, task_id="v", worker=HERE)
    with django_capture_on_commit_callbacks():
        lifecycle.submission_release(submission_id=queued.pk, task_id="v")  # spent: kept
    assert attempts(queued) == 1
