"""manage.py import_bundle BUNDLE.zip --owner USER: a CodaLab or Codabench competition."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from competition.definition.bundle_import import bundle_import
from competition.errors import CompetitionError

TIME_LIMIT = 3600
"""Seconds an import may take (BUNDLE_IMPORT_TIME_LIMIT; the browser's job has the same)."""


class TimeUp(BaseException):
    """The import ran past its limit (a BaseException: nothing on the way catches it, and
    the import's transaction and files are undone as for any refusal)."""


@contextmanager
def time_limit_of(seconds: int) -> Iterator[None]:
    """Raise `TimeUp` in this thread after ``seconds`` (0: no limit; only in the main
    thread, where signals arrive)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame) -> None:
        raise TimeUp

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Command(BaseCommand):
    help = (
        "Import a CodaLab (competition.yaml v1.x) or Codabench (version: 2) bundle as a "
        "draft competition; lists what was imported, proposed and not imported."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path, help="the bundle (zip)")
        parser.add_argument("--owner", required=True, help="username of its organizer")
        parser.add_argument(
            "--slug", default="", help="the competition's slug (default: short, from its title)"
        )
        parser.add_argument(
            "--time-limit",
            type=int,
            default=int(getattr(settings, "BUNDLE_IMPORT_TIME_LIMIT", TIME_LIMIT)),
            help=f"stop after this many seconds, creating nothing (default {TIME_LIMIT}; 0: none)",
        )

    def handle(self, *args, path: Path, owner: str, slug: str, time_limit: int, **options) -> None:
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            with time_limit_of(time_limit):
                result = bundle_import(
                    path=path,
                    owner=owner,
                    slug=slug,
                    progress=lambda text: self.stderr.write(f"  {text}"),
                )
        except TimeUp:
            raise CommandError(
                f"{path.name}: stopped after {time_limit} s, the import's time limit "
                "(--time-limit): nothing was created. Give a longer limit, or 0 for none."
            ) from None
        except CompetitionError as exc:
            raise CommandError(exc.message) from None
        report = result.report
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported the {result.platform} bundle as the draft competition "
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
