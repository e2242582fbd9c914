"""E-mail jobs other than a run's own notice: a competition's announcements and the
reminders before a test phase closes."""

from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task

from competition.services.pages import announcement_email_send
from competition.services.reminders import deadline_reminders_send


@shared_task(
    acks_late=True,
    ignore_result=True,
    autoretry_for=(OSError, SMTPException),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=5,
)
def send_announcement_task(announcement_id: int) -> int:
    """E-mail an announcement to the competition's participants; safe to run twice."""
    return announcement_email_send(announcement_id=announcement_id)


@shared_task(acks_late=True, ignore_result=True)
def send_deadline_reminders_task() -> int:
    """Remind teams with no run in a test phase closing within 48 hours (celery beat, hourly);
    each reminder goes out once however often this runs."""
    return deadline_reminders_send()
