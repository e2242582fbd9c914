"""manage.py load_competition FILE.yaml: create or update a competition from its definition."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from competition.errors import CompetitionError
from competition.models import Submission
from competition.services import competition_load
from competition.wording import plural


class Command(BaseCommand):
    help = "Create or update a competition from a YAML definition (idempotent)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="the competition definition (YAML)")
        parser.add_argument("--no-baselines", action="store_true",
                            help="do not submit the baselines the file lists")
        parser.add_argument("--no-rescore", action="store_true",
                            help="do not re-score phases whose gold keys or scorer options "
                                 "changed (re-score them later from their organizer pages)")

    def handle(self, *args, path: str, no_baselines: bool, no_rescore: bool,
               **options) -> None:
        try:
            load = competition_load(path=path, with_baselines=not no_baselines,
                                    rescore=not no_rescore)
        except CompetitionError as exc:
            raise CommandError(exc.message) from None
        competition = load.competition
        if load.removed:
            self.stdout.write("Removed (no longer in the file, nothing submitted): "
                              + ", ".join(load.removed))
        for phase in load.changed_phases:
            label = f"{phase.task.slug}/{phase.slug}"
            if no_rescore:
                self.stdout.write(self.style.WARNING(
                    f"Gold keys or scorer options of {label} changed: its scores are from "
                    "the previous ones until it is re-scored (its organizer page marks "
                    "them)."))
            else:
                count = sum(1 for s in load.rescored if s.phase_id == phase.pk)
                self.stdout.write(f"Gold keys or scorer options of {label} changed: "
                                  f"{count} submissions queued for re-scoring.")
        for task in competition.tasks.all():
            for phase in task.phases.all():
                keyless = phase.subcorpora.filter(available=False).count()
                if keyless:
                    total = phase.subcorpora.count()
                    self.stdout.write(self.style.WARNING(
                        f"{task.slug}/{phase.slug}: {keyless} of {plural(total, 'dataset')} "
                        f"{'has' if keyless == 1 else 'have'} no gold key yet; add "
                        f"{'it' if keyless == 1 else 'them'} on the phase's edit page"
                        + (" (until one is there, the phase takes no runs)."
                           if keyless == total else ".")))
        tasks = competition.tasks.count()
        phases = sum(task.phases.count() for task in competition.tasks.all())
        baselines = Submission.objects.filter(team__competition=competition, is_baseline=True)
        self.stdout.write(self.style.SUCCESS(
            f"Loaded {competition.slug}: {plural(tasks, 'task')}, {plural(phases, 'phase')}, "
            f"{plural(baselines.count(), 'baseline run')} "
            f"({baselines.filter(status=Submission.Status.SCORED).count()} scored)."))
