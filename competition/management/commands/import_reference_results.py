"""manage.py import_reference_results FILE.yaml: the published results of an edition."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competition.errors import CompetitionError
from competition.services.references import reference_results_import


class Command(BaseCommand):
    help = (
        "Import published results (team, system, per-sub-corpus scores, source) into "
        "a competition's phases; a re-import of the same source replaces them."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path, help="the reference-results file (YAML)")

    def handle(self, *args, path: Path, **options) -> None:
        try:
            created = reference_results_import(path=path)
        except CompetitionError as exc:
            raise CommandError(exc.message) from None
        phases = sorted({f"{s.phase.task.slug}/{s.phase.slug}" for s in created})
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {len(created)} published results into {', '.join(phases)}."
            )
        )
