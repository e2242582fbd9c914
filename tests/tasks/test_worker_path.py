"""The submission path with the real services: PostgreSQL, Redis (db 15) and separate
``celery -A config worker`` processes. Run by ``make test`` (pass 2, ``-m services``)."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from competition import scoring as lifecycle
from competition import services
from competition.models import ScoringPart, ScoringRun, SubCorpus, Submission
from tests.paths import CODI21

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
Status = Submission.Status


def status_of(pk: int) -> str:
    return Submission.objects.values_list("status", flat=True).get(pk=pk)


def final(pk: int) -> bool:
    return status_of(pk) in Submission.FINAL_STATUSES


BIG = {"light": "light_test.CONLLUA", "ami": "Persuasion_test.CONLLUA"}


COPIES = 4
"""Each big key holds its file's documents this many times (renamed): 196 documents a job."""

SLOW_WORKER = {
    "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parent / "slow_worker"), os.environ.get("PYTHONPATH", "")]
    ),
    "SLOW_SCORING_SECONDS": "0.025",
}
"""A worker whose every scored document takes 25 ms longer (tests/tasks/slow_worker), so that
a job of the big uploads lasts about 5 s whatever the scorer's speed: long enough to be killed
while it scores, and over the 1 s time limit tested below. (The scorer alone now scores them
in well under that limit.)"""


QUICK_RECOVERY = {"WORKER_HEARTBEAT_INTERVAL": "1", "WORKER_STALE_AFTER": "4"}


def big_uploads(world) -> dict:
    """Point both sub-corpora at keys made of real CODI-CRAC 2021 test files (LIGHT,
    PERSUASION), each document `COPIES` times, and return uploads equal to them."""
    uploads = {}
    for slug, name in BIG.items():
        source = CODI21 / name
        header, body = source.read_bytes().split(b"\n", 1)
        assert header.startswith(b"# global.columns") and body.startswith(b"# newdoc id = ")
        data = b"\n".join(
            [header]
            + [body.replace(b"# newdoc id = ", b"# newdoc id = %d/" % k) for k in range(COPIES)]
        )
        (world.key_dir / f"{slug}_big.conllua").write_bytes(data)
        SubCorpus.objects.filter(phase=world.phase, slug=slug).update(
            key_file=f"keys/{slug}_big.conllua"
        )
        uploads[slug] = SimpleUploadedFile(f"{slug.upper()}.CONLLUA", data)
    return uploads


def test_an_upload_is_scored_by_a_worker_into_postgresql(world, celery_worker, wait):
    """transaction.on_commit queues the job on Redis; a worker process scores it."""
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    wait(lambda: final(submission.pk), timeout=60, what="the worker to score the submission")
    submission.refresh_from_db()
    assert submission.status == Status.SCORED, submission.error
    assert submission.claimed_by  # a real Celery task id
    conll = submission.scores.get(mode="task", metric="conll", document="", subcorpus__slug="ami")
    assert conll.f1 == pytest.approx(1.0)


@pytest.mark.parametrize("parts_from", ["0", "2"], ids=["one-job", "in-parts"])
def test_a_killed_worker_does_not_lose_the_job_and_it_is_scored_once(
    world, celery_worker_factory, wait, parts_from
):
    """The whole worker is SIGKILLed while scoring; the unacknowledged message comes back
    (or the new worker's recovery queues it again), and exactly one run is recorded. In one
    job the run is taken back as a new attempt; in parts the dead worker's part message is
    delivered again under the run's claim, so the attempt stays one."""
    files = big_uploads(world)
    fast_restore = {
        "CELERY_VISIBILITY_TIMEOUT": "5",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "SCORING_PARTS_FROM": parts_from,
        **SLOW_WORKER,
    }
    first = celery_worker_factory(**fast_restore)
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=files
    )
    wait(
        lambda: status_of(submission.pk) == Status.SCORING,
        timeout=60,
        what="the worker to start scoring",
    )
    task_id = Submission.objects.get(pk=submission.pk).claimed_by
    first.kill()
    assert status_of(submission.pk) == Status.SCORING
    celery_worker_factory(**fast_restore)
    wait(lambda: final(submission.pk), timeout=120, what="the redelivered job to finish")
    submission.refresh_from_db()
    assert submission.status == Status.SCORED, submission.error
    # the redelivered message (same task id) or the live worker's recovery (a new message,
    # once the dead node's heartbeat is stale) takes the run back, whichever comes first
    assert submission.claimed_by and submission.attempts >= (2 if parts_from == "0" else 1)
    assert ScoringRun.objects.filter(submission=submission).count() == 1
    assert task_id
    assert ScoringRun.objects.filter(submission=submission).count() == 1
    assert submission.scores.filter(document="", metric="conll", mode="task").count() == 2


def test_the_sweep_requeues_a_job_whose_message_was_lost(world, celery_worker, wait):
    """A submission left queued with no message in the broker is re-queued by the sweep and
    scored by the worker."""
    with pytest.MonkeyPatch.context() as patch:
        # The message is lost: nothing reaches the broker at commit.
        patch.setattr(
            "competition.services.submissions.scoring_enqueue", lambda *, submission_id: None
        )
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    Submission.objects.filter(pk=submission.pk).update(
        queued_at=timezone.now() - timedelta(hours=1)
    )
    report = lifecycle.submission_sweep()
    assert report.requeued == (submission.pk,)
    wait(lambda: final(submission.pk), timeout=60, what="the re-queued job to finish")
    assert status_of(submission.pk) == Status.SCORED


def test_a_job_over_the_time_limit_fails_with_a_message(
    world, monkeypatch, celery_worker_factory, wait
):
    """Time limits travel in the message (Celery takes them from the sender's settings):
    set them on both sides as a deployment with SCORING_SOFT_TIME_LIMIT=1 would."""
    from tasks.scoring import score_submission_task

    files = big_uploads(world)
    monkeypatch.setattr(score_submission_task, "soft_time_limit", 1)
    monkeypatch.setattr(score_submission_task, "time_limit", 30)
    monkeypatch.setattr("django.conf.settings.SCORING_SOFT_TIME_LIMIT", 1)
    celery_worker_factory(SCORING_SOFT_TIME_LIMIT="1", SCORING_HARD_TIME_LIMIT="30", **SLOW_WORKER)
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=files
    )
    wait(lambda: final(submission.pk), timeout=60, what="the job to stop at its time limit")
    submission.refresh_from_db()
    assert submission.status == Status.FAILED
    assert submission.platform_failure and "time limit of 1 s" in submission.error
    assert services.submission_quota(team=world.alpha, phase=world.phase).total_used == 0


def test_the_pages_from_sign_up_to_scores_with_a_real_worker(client, world, celery_worker, wait):
    """The same path a browser takes, over HTTP, with PostgreSQL, Redis and a worker process:
    sign up, create a team, upload, poll the status JSON, read the scores."""
    from django.urls import reverse

    response = client.post(
        reverse("signup"),
        {
            "username": "carol",
            "email": "",
            "password1": "carol-pass-word-1",
            "password2": "carol-pass-word-1",
        },
    )
    assert response.status_code == 302
    client.post(
        reverse("competition:team", kwargs={"slug": world.competition.slug}),
        {"action": "create", "create-name": "Gamma"},
    )
    submit = reverse(
        "competition:submit",
        kwargs={"slug": world.competition.slug, "task": world.task.slug, "phase": "dev"},
    )
    form = {f"file_{slug}": upload for slug, upload in world.uploads().items()}
    response = client.post(submit, {**form, "run_name": "primary"})
    assert response.status_code == 302
    status_url = response["Location"] + "status.json"

    def finished():
        data = client.get(status_url).json()
        return data if data["final"] else None

    data = wait(finished, timeout=60, interval=0.5, what="the status JSON to say final")
    assert data["status"] == "scored"
    page = client.get(response["Location"]).content.decode()
    assert 'data-status="scored"' in page and 'data-subcorpus="light"' in page


def test_concurrent_uploads_cannot_exceed_the_daily_limit(make_world, services_ready, monkeypatch):
    """Four uploads of one team race in four threads (four PostgreSQL connections) for the
    last slot of the day: the lock on the team row lets exactly one through."""
    import threading

    from django.db import connection

    from competition.errors import SubmissionRejected

    world = make_world(daily_limit=1)
    # No worker here: nothing needs to be queued.
    monkeypatch.setattr(
        "competition.services.submissions.scoring_enqueue", lambda *, submission_id: None
    )
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def upload() -> None:
        try:
            barrier.wait(timeout=30)
            services.submission_create(
                team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
            )
            outcomes.append("accepted")
        except SubmissionRejected as exc:
            outcomes.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=upload) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(outcomes) == ["accepted", "daily_limit", "daily_limit", "daily_limit"]
    assert Submission.objects.filter(team=world.alpha).count() == 1


def test_a_whole_worker_killed_while_a_second_is_alive_is_scored_again_within_a_minute(
    world, celery_worker_factory, wait
):
    """No visibility timeout to wait for: the live worker's heartbeat loop sees the dead
    node's claim, queues the run again and scores it; one run, two attempts."""
    files = big_uploads(world)
    quick = {"WORKER_HEARTBEAT_INTERVAL": "1", "WORKER_STALE_AFTER": "4", **SLOW_WORKER}
    first = celery_worker_factory(**quick)
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=files
    )
    wait(
        lambda: status_of(submission.pk) == Status.SCORING,
        timeout=60,
        what="the first worker to start scoring",
    )
    celery_worker_factory(**quick)
    first.kill()
    killed_at = time.monotonic()
    wait(
        lambda: final(submission.pk),
        timeout=60,
        what="the live worker to take the run back and score it",
    )
    assert time.monotonic() - killed_at < 60
    submission.refresh_from_db()
    assert submission.status == Status.SCORED, submission.error
    assert submission.attempts == 2
    assert ScoringRun.objects.filter(submission=submission).count() == 1


def test_with_no_worker_alive_a_run_says_it_waits_for_one(world, services_ready, settings):
    """Broker up, no worker: the run is queued and says it is waiting for a scoring worker."""
    from competition.selectors import submission_status_label

    settings.CELERY_TASK_ALWAYS_EAGER = False
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    assert status_of(submission.pk) == Status.QUEUED
    assert submission_status_label(submission=submission) == "Waiting for a scoring worker"


def _terminate_other_connections() -> int:
    """End every other PostgreSQL connection to the test database, as a failover or a
    connection reaper does: the scoring job's among them."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def _other_backends() -> set[int]:
    """The server processes of the other connections to the test database now."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return {pid for (pid,) in cursor.fetchall()}


def test_a_worker_keeps_its_database_connection_and_replaces_one_the_server_ended(
    world, celery_worker, wait
):
    """The pool process scores one run after another on the one database connection (a run
    in parts is many jobs: one connection each cost time). When the server ends that
    connection while the worker waits, the next run is scored by its first job all the
    same: the dead connection is replaced before the job, not found dead by its claim."""

    def scored() -> Submission:
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
        wait(lambda: final(submission.pk), timeout=60, what="the worker to score the run")
        submission.refresh_from_db()
        assert submission.status == Status.SCORED, submission.error
        return submission

    scored()
    kept = _other_backends()
    scored()
    assert kept & _other_backends()  # the pool process's connection, still the same
    assert _terminate_other_connections() >= 1
    third = scored()
    assert third.attempts == 1
    log = celery_worker.log.read_text()
    assert "the database is away" not in log and "lost its database connection" not in log


@pytest.mark.parametrize("parts_from", ["0", "2"], ids=["one-job", "in-parts"])
def test_a_job_whose_database_connection_is_terminated_is_scored_again_within_a_minute(
    world, celery_worker_factory, wait, parts_from
):
    """Two workers; while one scores, the database connections are terminated. A run scored
    in one job gives its claim back when it next speaks to the database and is scored again
    at once, as a new job, by a live worker. A run scored in parts loses them while both
    its parts score: each part gives itself back and is retried under the run's claim
    (written once); the recovery rounds, which see the retries wait (a countdown, or the
    other node), leave the run alone. Either way: final well within 60 s, one run, one
    attempt counted."""
    files = big_uploads(world)
    celery_worker_factory(SCORING_PARTS_FROM=parts_from, **QUICK_RECOVERY, **SLOW_WORKER)
    celery_worker_factory(SCORING_PARTS_FROM=parts_from, **QUICK_RECOVERY, **SLOW_WORKER)
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=files
    )
    wait(
        lambda: Submission.objects.get(pk=submission.pk).status == Status.SCORING,
        timeout=60,
        what="a worker to start scoring",
    )
    first_job = Submission.objects.get(pk=submission.pk).claimed_by
    if parts_from != "0":
        # both datasets are being scored, each by a job holding its database connection
        wait(
            lambda: (
                ScoringPart.objects.filter(
                    submission_id=submission.pk, started_at__isnull=False, finished_at__isnull=True
                ).count()
                == 2
            ),
            timeout=60,
            what="both parts to start",
        )
    assert _terminate_other_connections() >= 1
    cut = time.monotonic()
    wait(lambda: final(submission.pk), timeout=90, what="the run to be scored again")
    took = time.monotonic() - cut
    print(f"run ({parts_from=}) final {took:.1f} s after its database connection was terminated")
    assert took < 60, f"final {took:.1f} s after the connection was terminated"
    submission.refresh_from_db()
    assert submission.status == Status.SCORED, submission.error
    assert ScoringRun.objects.filter(submission=submission).count() == 1
    assert submission.attempts == 1
    if parts_from == "0":  # a new job scored it: the first gave its claim back
        assert submission.claimed_by != first_job
    else:  # the parts' retries finished the run under its first claim: nothing re-queued it
        assert submission.claimed_by == first_job
