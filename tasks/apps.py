from __future__ import annotations

from django.apps import AppConfig


class TasksConfig(AppConfig):
    """The job layer. On start-up it installs its queue behind the services' port, so that
    the services can queue jobs without importing this layer."""

    name = "tasks"
    label = "tasks"
    verbose_name = "Jobs"

    def ready(self) -> None:
        from competition.services.dispatch import queue_install
        from tasks.queue import CeleryJobQueue

        queue_install(CeleryJobQueue())
