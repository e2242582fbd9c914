"""A real `celery -A config worker`, as deploy/ starts it, answers a ping over Redis, and
/health/workers/ sees it. Runs in the suite's second pass (`services`), against the real
Redis on 127.0.0.1:6379 (db 15 unless CELERY_BROKER_URL says otherwise)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
BROKER = os.environ.get("CELERY_BROKER_URL") or "redis://127.0.0.1:6379/15"
START_TIMEOUT = 30.0  # seconds for the worker to answer its first ping


def redis_reachable(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.fixture(scope="module")
def worker():
    """One worker process under a unique name for this module; stopped (then killed) at the
    end."""
    if not BROKER.startswith("redis://") or not redis_reachable(BROKER):
        pytest.fail(f"Redis is not reachable at {BROKER}: start it to run this test")
    name = f"deploytest-{uuid.uuid4().hex[:8]}@localhost"
    env = dict(os.environ, CELERY_BROKER_URL=BROKER)
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "celery"),
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
            f"--hostname={name}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield name, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def ping_until_answered(name: str, process: subprocess.Popen) -> list[dict]:
    from celery import Celery

    # not made the current app: the project's shared tasks would then be sent through it
    pinger = Celery("deploytest", broker=BROKER, set_as_current=False)
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(
                    f"the worker exited with {process.returncode}: {process.stderr.read()[-2000:]}"
                )
            replies = pinger.control.ping(destination=[name], timeout=1.0)
            if replies:
                return replies
        return []
    finally:
        pinger.close()


def test_a_deployed_worker_answers_a_ping(worker):
    name, process = worker
    replies = ping_until_answered(name, process)
    assert replies == [{name: {"ok": "pong"}}]


@pytest.mark.django_db  # it also reads the workers' heartbeats
def test_the_health_endpoint_counts_the_worker(worker, client, settings):
    """/health/workers/ pings through the project's own Celery app and broker setting."""
    from config.celery import app

    if settings.CELERY_TASK_ALWAYS_EAGER or app.conf.broker_url != BROKER:
        pytest.fail("the settings do not point at the test broker: run with CELERY_BROKER_URL")
    name, process = worker
    assert ping_until_answered(name, process)
    response = client.get("/health/workers/")
    assert response.status_code == 200
    assert response.json()["count"] >= 1
    assert client.get("/health/broker/").json() == {"status": "ok", "broker": "ok"}
