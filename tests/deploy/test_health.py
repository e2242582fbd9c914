"""The health endpoints (config/health.py): JSON answers, 200 when healthy, 503 when not."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import DatabaseError
from django.test import override_settings

pytestmark = pytest.mark.django_db

CLOSED_BROKER = "redis://127.0.0.1:1/0"  # nothing listens on port 1: refused at once


@pytest.fixture
def broker_down():
    """A real (non-eager) configuration whose broker refuses connections."""
    from config.celery import app

    saved = app.conf.broker_url
    app.conf.broker_url = CLOSED_BROKER
    try:
        with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
            yield
    finally:
        app.conf.broker_url = saved


@pytest.mark.parametrize("url", ["/health/", "/health/broker/", "/health/workers/"])
def test_it_answers_ok_as_json_in_the_embedded_configuration(client, url, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["status"] == "ok"


def test_it_says_eager_for_broker_and_workers_when_jobs_run_in_process(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert client.get("/health/broker/").json()["broker"] == "eager"
    assert client.get("/health/workers/").json()["workers"] == "eager"


def test_it_checks_the_database_for_the_web_answer(client):
    assert client.get("/health/").json() == {"status": "ok", "database": "ok"}


def test_it_answers_503_when_the_database_is_unreachable(client):
    with mock.patch("config.health.connection") as connection:
        connection.cursor.side_effect = DatabaseError("could not connect to server")
        response = client.get("/health/")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "unreachable"}


def test_it_answers_503_when_the_broker_is_unreachable(client, broker_down):
    response = client.get("/health/broker/")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "broker": "unreachable"}


def test_it_answers_503_for_workers_when_the_broker_is_unreachable(client, broker_down):
    response = client.get("/health/workers/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["count"] == 0


def test_it_never_names_the_broker_address(client, broker_down):
    """Health answers are public: no host, port or URL in them."""
    for url in ("/health/broker/", "/health/workers/"):
        assert "127.0.0.1" not in client.get(url).content.decode()


def test_it_refuses_writes(client):
    assert client.post("/health/").status_code == 405
