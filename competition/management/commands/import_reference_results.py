"""manage.py import_reference_results FILE.yaml [--freeze]: the published results of an
edition; with --freeze, each phase they land on is frozen as its official board, dated by
the file's ``published`` day (the publication of its source) when it gives one."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competition.errors import CompetitionError
from competition.services.references import reference_published_at, reference_results_import
from leaderboard.services import board_freeze


class Command(BaseCommand):
    help = (
        "Import published results (team, system, per-sub-corpus scores, source) into "
        "a competition's phases; a re-import of the same source replaces them."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path, help="the reference-results file (YAML)")
        parser.add_argument(
            "--freeze",
            action="store_true",
            help="freeze each phase imported into as its official board, dated by the source",
        )

    def handle(self, *args, path: Path, freeze: bool = False, **options) -> None:
        try:
            created = reference_results_import(path=path)
            published = reference_published_at(path=path)
        except CompetitionError as exc:
            raise CommandError(exc.message) from None
        if freeze:
            for phase in {s.phase for s in created}:
                board_freeze(phase=phase, note="official results as published", at=published)
        phases = sorted({f"{s.phase.task.slug}/{s.phase.slug}" for s in created})
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {len(created)} published results into {', '.join(phases)}."
            )
        )
