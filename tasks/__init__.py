"""Celery jobs: score a submission, sweep stuck ones, e-mail the submitter. They load by id
and call services only."""
