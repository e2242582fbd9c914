"""The job layer's side of the services' queue port (``competition.services.dispatch``):
each job named by a real import."""

from __future__ import annotations

from django.conf import settings

from tasks.definitions import load_definition_task
from tasks.mail import send_announcement_task
from tasks.scoring import (
    finish_parts_task,
    notify_submission_task,
    score_submission_task,
    scoring_queue_length,
)


class CeleryJobQueue:
    """Hands the services' jobs to Celery (to the broker, or in-process when Celery runs
    jobs eagerly: the embedded configuration)."""

    def score(self, submission_id: int) -> None:
        score_submission_task.delay(submission_id)

    def score_here(self, submission_id: int) -> None:
        score_submission_task.apply(args=[submission_id])

    def finish_parts(self, submission_id: int, claim: str) -> None:
        finish_parts_task.delay(submission_id, claim)

    def notify(self, submission_id: int) -> None:
        notify_submission_task.delay(submission_id)

    def announce(self, announcement_id: int) -> None:
        send_announcement_task.delay(announcement_id)

    def load_definition(self, job_id: int) -> None:
        load_definition_task.delay(job_id)

    def scoring_queue_length(self) -> int | None:
        return scoring_queue_length()

    def runs_in_process(self) -> bool:
        return bool(settings.CELERY_TASK_ALWAYS_EAGER)
