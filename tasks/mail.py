"""E-mail jobs other than a run's own notice: a competition's announcements."""

from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task

from competition.services.pages import announcement_email_send


@shared_task(acks_late=True, ignore_result=True, autoretry_for=(OSError, SMTPException),
             retry_backoff=True, retry_backoff_max=600, max_retries=5)
def send_announcement_task(announcement_id: int) -> int:
    """E-mail an announcement to the competition's participants; safe to run twice."""
    return announcement_email_send(announcement_id=announcement_id)
