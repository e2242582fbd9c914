"""A database that is away for a moment answers 503 with Retry-After (pages and API), not
500 (config/database_errors.py). The real thing, a terminated connection on PostgreSQL, is
in tests/tasks/test_worker_faults.py."""

from __future__ import annotations

import pytest
from django.db import InterfaceError, OperationalError

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "error",
    [OperationalError("server closed the connection"), InterfaceError("connection already closed")],
)
def test_a_page_whose_database_is_away_answers_503_with_a_retry_hint(client, monkeypatch, error):
    def away(**kwargs):
        raise error

    monkeypatch.setattr("competition.selectors_home.competition_cards", away)
    client.raise_request_exception = False
    response = client.get("/")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "try again in a few seconds" in response.content.decode()


def test_the_api_answers_503_in_json(client, monkeypatch, world):
    from django.db.models.query import QuerySet

    def away(self, *args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(QuerySet, "_fetch_all", away)
    client.raise_request_exception = False
    response = client.get("/api/competitions/")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "try again" in response.json()["detail"]


def test_other_errors_are_not_turned_into_503(client, monkeypatch):
    def broken(**kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr("competition.selectors_home.competition_cards", broken)
    client.raise_request_exception = False
    assert client.get("/").status_code == 500
