"""manage.py load_competition FILE.yaml: create or update a competition from its definition."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from competition.errors import CompetitionError
from competition.models import Submission
from competition.services import competition_load


class Command(BaseCommand):
    help = "Create or update a competition from a YAML definition (idempotent)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="the competition definition (YAML)")
        parser.add_argument("--no-baselines", action="store_true",
                            help="do not submit the baselines the file lists")

    def handle(self, *args, path: str, no_baselines: bool, **options) -> None:
        try:
            competition = competition_load(path=path, with_baselines=not no_baselines)
        except CompetitionError as exc:
            raise CommandError(exc.message) from None
        tasks = competition.tasks.count()
        phases = sum(task.phases.count() for task in competition.tasks.all())
        baselines = Submission.objects.filter(team__competition=competition, is_baseline=True)
        self.stdout.write(self.style.SUCCESS(
            f"Loaded {competition.slug}: {tasks} tasks, {phases} phases, "
            f"{baselines.count()} baseline runs "
            f"({baselines.filter(status=Submission.Status.SCORED).count()} scored)."))
