"""An organizer's phase re-scoring returns at once and reports its progress: in the embedded
configuration the runs are scored in a background thread, not in the request."""

from __future__ import annotations

import threading

import pytest
from django.urls import reverse

from competition import services
from competition.models import Submission
from competition.services import dispatch
from competition.services.organize import phase_rescore_start, rescore_progress

pytestmark = pytest.mark.django_db(transaction=True)


def _join_background_scoring() -> None:
    for thread in threading.enumerate():
        if thread.name == "rescore-in-process":
            thread.join(timeout=60)


@pytest.fixture(autouse=True)
def _background_scoring_joined():
    """The in-process re-scoring thread ends its database work (the runs, then the boards'
    kept views) before the test's tables are flushed: SQLite refuses a flush while it holds
    a table."""
    yield
    _join_background_scoring()


def _scored_runs(world, n: int) -> list[Submission]:
    runs = [
        services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
        for _ in range(n)
    ]
    for run in runs:
        run.refresh_from_db()
        assert run.status == Submission.Status.SCORED  # scored in-process on commit
    return runs


def test_rescore_returns_before_the_runs_are_scored_and_progress_counts_them(
    world, monkeypatch, settings, wait
):
    assert settings.CELERY_TASK_ALWAYS_EAGER
    runs = _scored_runs(world, 2)
    gate = threading.Event()
    real = dispatch._score_in_background

    def held(ids):  # the background scoring waits until the test lets it go
        gate.wait(30)
        real(ids)

    monkeypatch.setattr(dispatch, "_score_in_background", held)
    batch = phase_rescore_start(phase=world.phase, user=world.alice)
    # Returned although nothing was scored yet: the scoring is not in this thread.
    progress = rescore_progress(batch=batch)
    assert (progress.done, progress.total, progress.finished) == (0, 2, False)
    assert set(Submission.objects.values_list("status", flat=True)) == {"queued"}
    gate.set()
    wait(lambda: rescore_progress(batch=batch).finished, timeout=60, what="the re-scoring")
    for run in runs:
        run.refresh_from_db()
        assert run.status == Submission.Status.SCORED
        assert run.runs.count() == 2 and run.runs.filter(is_current=True).count() == 1


def test_organizer_page_redirects_to_a_progress_page_that_polls(world, client, wait):
    _scored_runs(world, 1)
    world.competition.organizers.add(world.bob)
    client.force_login(world.bob)
    organize = reverse(
        "leaderboard:organize_phase",
        kwargs={
            "competition": world.competition.slug,
            "task": world.task.slug,
            "phase": world.phase.slug,
        },
    )
    response = client.post(organize, {"action": "rescore"})
    assert response.status_code == 302 and "/organize/rescore/" in response["Location"]
    page = client.get(response["Location"])
    assert b'id="rescore-bar"' in page.content
    status_url = response["Location"].rstrip("/") + ".json"

    def progress():
        answer = client.get(status_url)
        if answer.status_code == 503:  # in-process scoring holds SQLite's lock: again later
            assert answer["Retry-After"]
            return None
        return answer.json() if answer.json()["finished"] else None

    final = wait(progress, timeout=60, what="the progress to finish")
    assert final == {"total": 1, "done": 1, "failed": 0, "finished": True}
    # the runs are done; the thread may still be building the boards' views, and SQLite's
    # shared cache refuses the login's write to a table that thread reads
    _join_background_scoring()
    client.force_login(world.alice)  # not an organizer
    assert client.get(status_url).status_code == 404
