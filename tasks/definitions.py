"""Loading an uploaded definition as a job: a large upload's keys are read, checked and
stored here, outside the request, while the competition's edit page shows how far it is
(`competition.definition.upload.definition_job_run` does the work and keeps the
job's row up to date)."""

from __future__ import annotations

from celery import shared_task

from competition.definition.upload import definition_job_run

DEFINITION_TIME_LIMIT = 3600
"""A definition with many large keys may take long; scoring's limits do not apply."""


@shared_task(
    acks_late=True,
    ignore_result=True,
    soft_time_limit=DEFINITION_TIME_LIMIT,
    time_limit=DEFINITION_TIME_LIMIT + 60,
)
def load_definition_task(job_id: int) -> str:
    return definition_job_run(job_id=job_id)
