"""The Celery app. Settings come from Django's settings, keys prefixed with ``CELERY_``."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["tasks"], related_name="scoring")
app.autodiscover_tasks(["tasks"], related_name="mail")
app.autodiscover_tasks(["leaderboard"], related_name="jobs")
