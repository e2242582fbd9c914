"""Celery jobs: score a submission, sweep stuck ones. They load by id and call services only."""
