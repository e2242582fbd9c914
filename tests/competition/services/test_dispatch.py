"""The services' queue port: the job layer fills it in at start-up, and a service queues a job
through it only once its transaction commits."""

from __future__ import annotations

import pytest

from competition.services import dispatch
from tasks.queue import CeleryJobQueue


class RecordingQueue:
    """A queue that keeps what it was handed; ``down`` makes it refuse like a lost broker."""

    def __init__(self, *, down: bool = False) -> None:
        self.down = down
        self.sent: list[tuple[str, int]] = []

    def _take(self, job: str, pk: int) -> None:
        if self.down:
            raise ConnectionError("broker unreachable")
        self.sent.append((job, pk))

    def score(self, submission_id: int) -> None:
        self._take("score", submission_id)

    def score_here(self, submission_id: int) -> None:
        self._take("score here", submission_id)

    def notify(self, submission_id: int) -> None:
        self._take("notify", submission_id)

    def announce(self, announcement_id: int) -> None:
        self._take("announce", announcement_id)

    def scoring_queue_length(self) -> int | None:
        return None if self.down else len(self.sent)

    def runs_in_process(self) -> bool:
        return False


@pytest.fixture
def recording(monkeypatch):
    queue = RecordingQueue()
    monkeypatch.setattr(dispatch, "_installed", queue)
    return queue


def test_the_job_layer_installs_its_celery_queue_when_django_starts():
    assert isinstance(dispatch.job_queue(), CeleryJobQueue)


def test_without_a_job_layer_queueing_says_what_is_missing(monkeypatch):
    monkeypatch.setattr(dispatch, "_installed", None)
    with pytest.raises(RuntimeError, match="INSTALLED_APPS"):
        dispatch.job_queue()


@pytest.mark.django_db
def test_jobs_leave_only_when_the_transaction_commits(
    recording, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        dispatch.scoring_enqueue(submission_id=7)
        dispatch.notification_enqueue(submission_id=7)
        dispatch.announcement_email_enqueue(announcement_id=3)
    assert recording.sent == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert recording.sent == [("score", 7), ("notify", 7), ("announce", 3)]


def test_publishing_says_whether_the_broker_took_the_job(monkeypatch):
    queue = RecordingQueue(down=True)
    monkeypatch.setattr(dispatch, "_installed", queue)
    assert dispatch.scoring_publish(submission_id=5) is False
    assert dispatch.scoring_queue_empty() is False  # unknown is not empty
    queue.down = False
    assert dispatch.scoring_publish(submission_id=5) is True
    assert queue.sent == [("score", 5)]
    assert dispatch.scoring_queue_length() == 1
