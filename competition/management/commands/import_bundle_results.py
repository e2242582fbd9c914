"""manage.py import_bundle_results COMPETITION TASK/PHASE FILE.csv --source TEXT."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competition.definition.bundle_import import ResultsUnmapped, bundle_results_import
from competition.errors import CompetitionError
from competition.models import Phase


class Command(BaseCommand):
    help = (
        "Import a phase's results from CodaLab's results CSV or Codabench's leaderboard "
        "export as published reference results."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("competition")
        parser.add_argument("phase", help="task/phase")
        parser.add_argument("path", type=Path)
        parser.add_argument("--source", required=True, help="where the numbers come from")
        parser.add_argument("--unit", default="auto", choices=["auto", "percent", "fraction"])
        parser.add_argument(
            "--apply-anyway",
            action="store_true",
            help="import the columns that map even when some column cannot be placed",
        )

    def handle(
        self,
        *args,
        competition: str,
        phase: str,
        path: Path,
        source: str,
        unit: str,
        apply_anyway: bool,
        **options,
    ) -> None:
        task_slug, _, phase_slug = phase.partition("/")
        found = (
            Phase.objects.filter(
                task__competition__slug=competition, task__slug=task_slug, slug=phase_slug
            )
            .select_related("task")
            .first()
        )
        if found is None:
            raise CommandError(f"no phase {phase!r} in {competition!r}")
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            created, read = bundle_results_import(
                phase=found, path=path, source=source, unit=unit, apply_anyway=apply_anyway
            )
        except ResultsUnmapped as exc:
            self._columns(exc.read)
            raise CommandError(f"{exc.message} (--apply-anyway)") from None
        except CompetitionError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            self.style.SUCCESS(f"Imported {len(created)} published results into {phase}.")
        )
        self._columns(read)

    def _columns(self, read) -> None:
        """The mapping of every column: what it became, or why not."""
        for column in read.columns:
            state = (
                "imported"
                if column.imported
                else "NOT PLACED"
                if column.blocking
                else "not imported"
            )
            self.stdout.write(f"  {state}: {column}")
