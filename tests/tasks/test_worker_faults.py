"""Faults of the real configuration (PostgreSQL, Redis, `celery worker` processes), each
bounded in time: the broker down at upload, the broker restarted during a burst, the same job
delivered three times. Nothing is lost, nothing is recorded twice, no attempt is spent for
nothing. Run by ``make test`` (pass 2, ``-m services``)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

from competition import scoring as lifecycle
from competition import services
from competition.models import Score, ScoringRun, Submission
from competition.selectors import submission_status_label

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
Status = Submission.Status
QUICK = {"WORKER_HEARTBEAT_INTERVAL": "1", "WORKER_STALE_AFTER": "4"}


@contextlib.contextmanager
def publisher_broker(url: str) -> Iterator[None]:
    """Make this (web) process publish to ``url``, the workers keeping their own broker."""
    from config.celery import app

    def reset() -> None:  # the next publish builds its pools from broker_url again
        app._pool = None
        app.amqp._producer_pool = None

    names = ("broker_url", "broker_read_url", "broker_write_url")
    saved = {name: app.conf[name] for name in names}
    reset()
    app.conf.update(dict.fromkeys(names, url))
    try:
        yield
    finally:
        reset()
        app.conf.update(saved)


def final(pk: int) -> bool:
    return Submission.objects.get(pk=pk).status in Submission.FINAL_STATUSES


def scored_once(submission: Submission) -> None:
    submission.refresh_from_db()
    assert submission.status == Status.SCORED, submission.error
    assert ScoringRun.objects.filter(submission=submission).count() == 1
    rows = Score.objects.filter(submission=submission)
    assert rows.count() == len(set(rows.values_list("subcorpus_id", "mode", "metric", "document")))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Broker:
    """A Redis server of the test's own (no persistence, as deployed here), to restart."""

    def __init__(self, tmp_path) -> None:
        self.port, self.dir = _free_port(), tmp_path
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
            ):
                return
            time.sleep(0.05)
        raise RuntimeError("the test's redis-server did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture
def own_broker(tmp_path, services_ready) -> Iterator[Broker]:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed (apt-get install redis-server)")
    broker = Broker(tmp_path)
    broker.start()
    yield broker
    broker.stop()


def test_a_broker_restarted_during_a_burst_loses_no_run(
    world, own_broker, celery_worker_factory, wait
):
    """Twelve uploads; after the fourth the broker stops (its queue is gone, as a restart
    without persistence leaves it), four are uploaded while it is down, it comes back, four
    more follow. Every run is scored exactly once, none fails, none spends an extra attempt
    for the broker's sake."""
    world.phase.daily_limit = world.phase.total_limit = 50
    world.phase.save()
    ids: list[int] = []
    with publisher_broker(own_broker.url):
        celery_worker_factory(CELERY_BROKER_URL=own_broker.url, **QUICK)  # pinged there

        def upload() -> None:
            ids.append(
                services.submission_create(
                    team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
                ).pk
            )

        for _ in range(4):
            upload()
        own_broker.stop()
        for _ in range(4):
            upload()
        assert not Submission.objects.get(pk=ids[-1]).published
        own_broker.start()
        for _ in range(4):
            upload()
    wait(
        lambda: all(final(pk) for pk in ids),
        timeout=120,
        what="every run of the burst to be scored",
    )
    for pk in ids:
        submission = Submission.objects.get(pk=pk)
        scored_once(submission)
        assert submission.attempts == 1


def test_an_upload_while_the_broker_is_down_is_kept_and_queued_when_it_is_back(
    world, own_broker, celery_worker_factory, wait
):
    """The upload is stored and says "Accepted, waiting for the queue"; once the broker
    answers again, a live worker's recovery round publishes it (no beat) and it is scored."""
    with publisher_broker(own_broker.url):
        celery_worker_factory(CELERY_BROKER_URL=own_broker.url, **QUICK)
        own_broker.stop()
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
        submission.refresh_from_db()
        assert submission.status == Status.QUEUED and not submission.published
        wait(lambda: lifecycle.workers_alive(), timeout=30, what="a worker's heartbeat")
        assert submission_status_label(submission=submission) == "Accepted, waiting for the queue"
        own_broker.start()
    back = time.monotonic()
    wait(lambda: final(submission.pk), timeout=60, what="the run to be published and scored")
    assert time.monotonic() - back < 30
    scored_once(submission)
    assert submission.attempts == 1


def test_the_same_job_delivered_three_times_is_scored_once_with_one_attempt(
    world, celery_worker_factory, wait, monkeypatch
):
    """Three copies of one message (one task id) reach two live workers: one records, the
    copies are turned away (the holder is alive) or find the run done; one set of scores,
    one attempt."""
    from competition.services import submissions
    from tasks.scoring import score_submission_task

    celery_worker_factory(**QUICK)
    celery_worker_factory(**QUICK)
    monkeypatch.setattr(submissions, "scoring_enqueue", lambda *, submission_id: None)
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    for _ in range(3):
        score_submission_task.apply_async(args=[submission.pk], task_id=f"dup-{submission.pk}")
    wait(lambda: final(submission.pk), timeout=60, what="the run to be scored")
    time.sleep(3)  # let the other copies arrive and be turned away
    scored_once(submission)
    assert submission.attempts == 1 and submission.claimed_by == f"dup-{submission.pk}"


def test_a_request_whose_database_connection_is_terminated_answers_503(
    world, client, services_ready
):
    """The web request in flight when its connection dies answers 503 with Retry-After,
    not 500; the next request opens a new connection and succeeds."""
    import psycopg
    from django.db import connection

    client.raise_request_exception = False
    assert client.get("/").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    settings_dict = connection.settings_dict
    with psycopg.connect(
        host=settings_dict["HOST"] or "127.0.0.1",
        port=settings_dict["PORT"] or 5432,
        user=settings_dict["USER"],
        dbname=settings_dict["NAME"],
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    response = client.get("/")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "try again" in response.content.decode().lower()
    assert client.get("/").status_code == 200
    api = client.get("/api/", HTTP_ACCEPT="application/json")
    assert api.status_code in (200, 404)  # reached: the connection is back
