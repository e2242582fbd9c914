"""manage.py load_competition FILE.yaml: create or update a competition from its definition.

A competition it creates is a draft, seen by its organizers and staff only, until it is
published: on its publishing page, or here with ``--publish`` (the operator's explicit act,
refused when the definition says ``published: false``). Loading never unpublishes.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from django.core.management.base import BaseCommand, CommandError

from competition.errors import CompetitionError
from competition.models import Competition, Submission
from competition.services import competition_load
from competition.services.audit import audit_definition_load, audit_structure
from competition.services.publish import competition_publish_waiving
from competition.untrusted import yaml_read
from competition.wording import plural


class Command(BaseCommand):
    help = "Create or update a competition from a YAML definition (idempotent)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="the competition definition (YAML)")
        parser.add_argument(
            "--no-baselines", action="store_true", help="do not submit the baselines the file lists"
        )
        parser.add_argument(
            "--no-rescore",
            action="store_true",
            help="do not re-score phases whose gold keys or scorer options "
            "changed (re-score them later from their organizer pages)",
        )
        parser.add_argument(
            "--publish",
            action="store_true",
            help="publish the competition if it is a draft (unless the "
            "definition says 'published: false'); the checklist's "
            "unmet items are printed and waived",
        )

    def handle(
        self, *args, path: str, no_baselines: bool, no_rescore: bool, publish: bool, **options
    ) -> None:
        try:
            with audit_structure(
                competition=_loaded_before(path), actor=None, source=f"load_competition {path}"
            ):
                load = competition_load(
                    path=path, with_baselines=not no_baselines, rescore=not no_rescore
                )
        except CompetitionError as exc:
            raise CommandError(exc.message) from None
        competition = load.competition
        audit_definition_load(load=load, actor=None, source=f"load_competition {path}")
        if load.removed:
            self.stdout.write(
                "Removed (no longer in the file, nothing submitted): " + ", ".join(load.removed)
            )
        self._report_changes(load, no_rescore=no_rescore)
        self._warn_keyless(competition)
        tasks = competition.tasks.count()
        phases = sum(task.phases.count() for task in competition.tasks.all())
        baselines = Submission.objects.filter(team__competition=competition, is_baseline=True)
        self.stdout.write(
            self.style.SUCCESS(
                f"Loaded {competition.slug}: {plural(tasks, 'task')}, {plural(phases, 'phase')}, "
                f"{plural(baselines.count(), 'baseline run')} "
                f"({baselines.filter(status=Submission.Status.SCORED).count()} scored)."
            )
        )
        self._publish(load, publish=publish)

    def _report_changes(self, load, *, no_rescore: bool) -> None:
        """Which phases' keys or scorer options changed, and what became of their scores."""
        for phase in load.changed_phases:
            label = f"{phase.task.slug}/{phase.slug}"
            if no_rescore:
                self.stdout.write(
                    self.style.WARNING(
                        f"Gold keys or scorer options of {label} changed: its scores are from "
                        "the previous ones until it is re-scored (its organizer page marks "
                        "them)."
                    )
                )
            else:
                count = sum(1 for s in load.rescored if s.phase_id == phase.pk)
                self.stdout.write(
                    f"Gold keys or scorer options of {label} changed: "
                    f"{count} submissions queued for re-scoring."
                )

    def _warn_keyless(self, competition) -> None:
        """Each phase with datasets that have no gold key yet (it takes no runs until then)."""
        for task in competition.tasks.all():
            for phase in task.phases.all():
                keyless = phase.subcorpora.filter(available=False).count()
                if keyless:
                    total = phase.subcorpora.count()
                    self.stdout.write(
                        self.style.WARNING(
                            f"{task.slug}/{phase.slug}: {keyless} of {plural(total, 'dataset')} "
                            f"{'has' if keyless == 1 else 'have'} no gold key yet; add "
                            f"{'it' if keyless == 1 else 'them'} on the phase's edit page"
                            + (
                                " (until one is there, the phase takes no runs)."
                                if keyless == total
                                else "."
                            )
                        )
                    )

    def _publish(self, load, *, publish: bool) -> None:
        competition = load.competition
        competition.refresh_from_db(fields=["published_at"])
        if competition.published_at is not None:
            self.stdout.write(f"{competition.slug} is published.")
            return
        if not publish:
            self.stdout.write(
                self.style.WARNING(
                    f"{competition.slug} is a draft: only its organizers and staff see it. "
                    "Publish it on its publishing page, or load it again with --publish."
                )
            )
            return
        if not load.publishable:
            raise CommandError(
                f"{competition.slug} stays a draft: its definition says "
                "'published: false' (remove it to publish)."
            )
        try:
            waived = competition_publish_waiving(competition=competition)
        except CompetitionError as exc:
            raise CommandError(f"{competition.slug} stays a draft. {exc.message}") from None
        for item in waived:
            self.stdout.write(self.style.WARNING(f"Waived: {item.label} ({item.detail})."))
        self.stdout.write(self.style.SUCCESS(f"{competition.slug} is published."))


def _loaded_before(path: str) -> Competition | None:
    """The competition the file defines, if it is loaded already (its changes are audited)."""
    try:
        data = yaml_read(Path(path).read_text(encoding="utf-8"), name=Path(path).name)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, CompetitionError):
        return None  # the load itself says what is wrong with the file
    slug = data.get("slug") if isinstance(data, dict) else None
    return Competition.objects.filter(slug=str(slug)).first() if slug else None
