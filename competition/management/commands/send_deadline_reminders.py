"""Remind teams with no run in a test phase that closes within 48 hours (once per phase and
team; safe to run as often as wanted, e.g. hourly from cron; the Celery beat schedule runs it
too)."""

from django.core.management.base import BaseCommand

from competition.services.reminders import deadline_reminders_send


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args, **options):
        sent = deadline_reminders_send()
        self.stdout.write(f"{sent} reminder mail{'s' if sent != 1 else ''} sent.")
