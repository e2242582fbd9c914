"""manage.py import_bundle BUNDLE.zip --owner USER: a CodaLab or Codabench competition."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competition.errors import CompetitionError
from competition.services.bundles import bundle_import


class Command(BaseCommand):
    help = (
        "Import a CodaLab (competition.yaml v1.x) or Codabench (version: 2) bundle as a "
        "draft competition; lists what was imported, proposed and not imported."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path, help="the bundle (zip)")
        parser.add_argument("--owner", required=True, help="username of its organizer")
        parser.add_argument(
            "--slug", default="", help="the competition's slug (default: from its title)"
        )

    def handle(self, *args, path: Path, owner: str, slug: str, **options) -> None:
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            result = bundle_import(path=path, owner=owner, slug=slug)
        except CompetitionError as exc:
            raise CommandError(exc.message) from None
        report = result.report
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported the {result.dialect} bundle as the draft competition "
                f"{result.competition.slug}."
            )
        )
        for title, lines in (
            ("Imported", report.imported),
            ("Proposed (confirm in the editor)", report.proposed),
            ("Not imported", report.not_imported),
        ):
            self.stdout.write(f"{title}:" + ("" if lines else " none"))
            for line in lines:
                self.stdout.write(f"  - {line}")
