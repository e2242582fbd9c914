"""The board views are rebuilt once per batch of score changes (leaderboard/jobs.py): the
first change of a batch schedules one job, later changes move its time on, and the job
builds each view once the phase's scores are quiet, after the last score."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.http import QueryDict
from django.urls import reverse

from competition import services as competition_services
from leaderboard import board_views, services
from leaderboard.jobs import board_views_refresh_task
from leaderboard.selectors.precomputed import public_view_key
from leaderboard.services import WARMED_QUERIES
from tests.leaderboard.test_board_entries import Phase

pytestmark = pytest.mark.django_db

RUNS = 6


@pytest.fixture
def broker(monkeypatch):
    """The refresh jobs sent, kept as a broker would keep them: (args, countdown)."""
    sent: list[tuple[tuple, float]] = []
    monkeypatch.setattr(
        board_views_refresh_task,
        "apply_async",
        lambda args, countdown: sent.append((tuple(args), countdown)),
    )
    return sent


@pytest.fixture
def builds(monkeypatch):
    """Every view built: (view, query text)."""
    built: list[tuple[str, str]] = []
    page, api = board_views.board_page_content, board_views.board_api_payload

    def count_page(**kwargs):
        built.append(("page", kwargs["query"].urlencode()))
        return page(**kwargs)

    def count_api(**kwargs):
        built.append(("api", kwargs["query"].urlencode()))
        return api(**kwargs)

    monkeypatch.setattr(board_views, "board_page_content", count_page)
    monkeypatch.setattr(board_views, "board_api_payload", count_api)
    return built


page_content = board_views.board_page_content


def views() -> list[tuple[str, str]]:
    return sorted((view, text) for text in WARMED_QUERIES for view in ("page", "api"))


def test_a_batch_of_rescored_runs_rebuilds_each_view_once_after_its_last_score(
    make, client, settings, broker, builds, django_capture_on_commit_callbacks
):
    """Six runs re-scored one after another send one job; the job, taken while the scores
    still move, waits again; run after the quiet time it builds each view once, and the
    board a visitor then reads is that kept view, with the final scores."""
    settings.BOARD_VIEWS_QUIET, settings.BOARD_VIEWS_MAX_WAIT = 30, 120
    world = Phase(make, procedure="", counts="best")
    runs = [world.queued(n % 3) for n in range(RUNS)]
    for n, run in enumerate(runs):
        with django_capture_on_commit_callbacks(execute=True):
            world.record(run, {"light": 0.1 + n / 100, "ami": 0.2})
    assert broker == [((world.phase.pk,), 30)] and builds == []
    board_views_refresh_task.apply(args=broker.pop()[0])  # as a worker runs it
    assert sorted(builds) == views()
    builds.clear()

    # the organizer re-scores the phase: every run is scored again, one after another
    for n, run in enumerate(runs):
        competition_services.submission_rescore(submission=run, queue=False)
        with django_capture_on_commit_callbacks(execute=True):
            world.record(run, {"light": 0.9 - n / 100, "ami": 0.5})
    assert broker == [((world.phase.pk,), 30)] and builds == []  # one job, nothing built yet
    # a worker takes the job after the countdown; scores changed since: it waits again
    board_views_refresh_task.run(world.phase.pk)
    assert builds == [] and len(broker) == 2 and 0 < broker[-1][1] <= 30
    later = time.time() + settings.BOARD_VIEWS_QUIET
    assert services.board_views_refresh_wait(phase_id=world.phase.pk, at=later) == 0
    board_views_refresh_task.apply(args=broker[-1][0])
    assert sorted(builds) == views()  # each view once, not once per run

    # what a visitor reads is the kept view, built from the final scores
    world.phase.refresh_from_db()
    anonymous = AnonymousUser()
    task = world.phase.task
    board = reverse("leaderboard:board", args=[task.competition.slug, task.slug, world.phase.slug])
    built = len(builds)
    for text in WARMED_QUERIES:
        query = QueryDict(text)
        kept = cache.get(
            public_view_key(phase=world.phase, viewer=anonymous, view="page", query=query)
        )
        fresh, _ = page_content(phase=world.phase, viewer=anonymous, query=query)
        assert kept == fresh and kept in client.get(f"{board}?{text}").content.decode()
    payload = client.get(reverse("api-leaderboard", args=[world.phase.pk]) + "?runs=all").json()
    assert len(builds) == built  # read, not built again
    finals = sorted(row["scores"]["light"]["f1"] for row in payload["rows"])
    assert finals == pytest.approx(sorted(0.9 - n / 100 for n in range(RUNS)))

    # a score after the rebuild asks for one of its own
    broker.clear()
    with django_capture_on_commit_callbacks(execute=True):
        world.record(world.queued(0), {"light": 0.3, "ami": 0.3})
    assert broker == [((world.phase.pk,), 30)]


def test_a_rebuild_waits_for_quiet_scores_and_at_most_the_longest_wait(settings):
    """Due ``BOARD_VIEWS_QUIET`` after the latest change, or ``BOARD_VIEWS_MAX_WAIT`` after
    the first of a batch that goes on; once built, the next change asks again."""
    settings.BOARD_VIEWS_QUIET, settings.BOARD_VIEWS_MAX_WAIT = 5, 60
    assert services.board_views_refresh_request(phase_ids=[7, 7], at=1000.0) == [7]
    assert services.board_views_refresh_request(phase_ids=[7, 8], at=1003.0) == [8]
    assert services.board_views_refresh_wait(phase_id=7, at=1004.0) == 4.0
    assert services.board_views_refresh_wait(phase_id=7, at=1008.0) == 0.0
    for moment in range(1004, 1100, 2):  # a batch that goes on: built 60 s after it began
        services.board_views_refresh_request(phase_ids=[7], at=float(moment))
    assert services.board_views_refresh_wait(phase_id=7, at=1059.0) == 1.0
    assert services.board_views_refresh_wait(phase_id=7, at=1060.0) == 0.0
    services.board_views_refresh(phase_id=7)  # no such phase: nothing to build
    assert services.board_views_refresh_request(phase_ids=[7], at=1100.0) == [7]
    assert services.board_views_refresh_wait(phase_id=9) == 0.0  # nothing pending


def test_with_no_quiet_time_the_views_are_built_at_once(
    make, settings, broker, builds, django_capture_on_commit_callbacks
):
    """``BOARD_VIEWS_QUIET = 0``: every change builds the views, no job is sent."""
    settings.BOARD_VIEWS_QUIET = 0
    world = Phase(make, procedure="", counts="best")
    with django_capture_on_commit_callbacks(execute=True):
        world.record(world.queued(0), {"light": 0.5, "ami": 0.25})
    assert broker == [] and sorted(builds) == views()
