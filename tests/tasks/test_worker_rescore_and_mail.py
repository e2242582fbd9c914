"""A phase re-scoring and an announcement with real workers (PostgreSQL, Redis, separate
``celery -A config worker`` processes): the re-scoring is queued to the workers and its
progress reaches n of n; the announcement's e-mail job runs in a worker, once."""

from __future__ import annotations

import pytest

from competition import services
from competition.models import Announcement, Submission
from competition.services import pages
from competition.services.organize import phase_rescore_start, rescore_progress

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_phase_rescoring_is_done_by_the_workers_and_counted(world, celery_worker, wait):
    runs = [
        services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
        for _ in range(3)
    ]
    wait(
        lambda: all(Submission.objects.get(pk=r.pk).status == "scored" for r in runs),
        timeout=60,
        what="the first scorings",
    )
    batch = phase_rescore_start(phase=world.phase, user=world.alice)
    assert rescore_progress(batch=batch).total == 3
    wait(lambda: rescore_progress(batch=batch).finished, timeout=60, what="the re-scoring")
    for run in runs:
        assert run.runs.count() == 2
        assert Submission.objects.get(pk=run.pk).claimed_by  # a worker's task id


def test_an_announcement_is_mailed_by_a_worker_once(world, celery_worker, wait):
    world.alice.email = "alice@example.org"
    world.alice.save()
    announcement = pages.announcement_post(
        competition=world.competition, title="News", body="Hello"
    )
    wait(
        lambda: Announcement.objects.get(pk=announcement.pk).emailed_to == 1,
        timeout=60,
        what="the worker to send the announcement",
    )
    assert pages.announcement_email_send(announcement_id=announcement.pk) == 0
