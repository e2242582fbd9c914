"""manage.py demo_setup: everything `make demo` needs after `migrate`, safe to run again.

It creates the demo organizer and the demo participant (fixed, documented passwords: this is
a demo), loads CODI-CRAC 2021, the CorefUD demo, the CRAC 2026 demo (empty-node measures
and analyses) and CRAC 2024 (a finished edition: its official results as published, nothing
scored here) from fixtures/ through the competition loader (and CODI-CRAC 2022 with
``--with-2022``), which submits the baseline runs the definition lists, gives the
participant a team, and prints the credentials and where to go. The finished editions get
their published results (fixtures/reference/) on their evaluation boards, frozen as the
official ones.

Scoring follows the configuration: embedded (no CELERY_BROKER_URL), the baselines are scored
in this process before the command ends; with a broker they are queued, and a
``celery -A config worker`` must run to score them.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from competition.errors import CompetitionError
from competition.models import Competition, Membership, Phase, Submission
from competition.services import competition_load, reference_results_import, team_create
from competition.services.publish import competition_publish_waiving
from competition.services.references import reference_averages_read, reference_published_at
from competition.wording import plural
from leaderboard.models import BoardSnapshot
from leaderboard.services import board_freeze

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
DEFINITION_2021 = FIXTURES / "codi-crac-2021.yaml"
DEFINITION_2022 = FIXTURES / "codi-crac-2022.yaml"
DEFINITION_COREFUD = FIXTURES / "corefud-demo.yaml"
DEFINITION_2026 = FIXTURES / "crac-2026-demo.yaml"
DEFINITION_CRAC_2024 = FIXTURES / "crac" / "crac-2024.yaml"
REFERENCES = {
    "codi-crac-2021": (FIXTURES / "reference" / "codi-crac-2021.yaml",),
    "crac-2024": (
        FIXTURES / "reference" / "crac-2024.yaml",
        FIXTURES / "reference" / "crac-2024-corpipe-single.yaml",
    ),
}
"""Published results imported into a competition the demo loads (reference results)."""

ORGANIZER = ("organizer", "codicrac-organizer")
PARTICIPANT = ("participant", "codicrac-participant")
TEAM_NAME = "Demo Team"


class Command(BaseCommand):
    help = (
        "Set up the demo: demo organizer and participant, CODI-CRAC 2021, the CorefUD "
        "demo and the CRAC 2026 demo with their baselines scored, CRAC 2024 with its "
        "published official results, a demo team. Idempotent."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--with-2022",
            action="store_true",
            help="also load CODI-CRAC 2022 (development keys, one AMI test document)",
        )
        parser.add_argument(
            "--definition",
            action="append",
            type=Path,
            metavar="YAML",
            help="load this competition definition instead of CODI-CRAC 2021 (repeatable)",
        )
        parser.add_argument(
            "--url",
            default="http://127.0.0.1:8000/",
            help="the address the server will answer on, for the summary",
        )

    def handle(
        self, *args, with_2022: bool, definition: list[Path] | None, url: str, **options
    ) -> None:
        definitions = definition or [
            DEFINITION_2021,
            DEFINITION_COREFUD,
            DEFINITION_2026,
            DEFINITION_CRAC_2024,
        ]
        if with_2022:
            definitions.append(DEFINITION_2022)
        eager = bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))

        organizer = self.demo_user(*ORGANIZER, staff=True)
        participant = self.demo_user(*PARTICIPANT, staff=False)
        competitions = []
        for path in definitions:
            self.stdout.write(
                f"Loading {path.name} ("
                + (
                    "any baselines are scored in this process: up to a minute or two"
                    if eager
                    else "queueing any baselines"
                )
                + ") ..."
            )
            try:
                load = competition_load(path=path)
            except CompetitionError as exc:
                raise CommandError(exc.message) from None
            competition = load.competition
            competition.organizers.add(organizer)
            # The demo is public (unless its definition says 'published: false').
            if competition.published_at is None and load.publishable:
                try:
                    competition_publish_waiving(competition=competition)
                except CompetitionError as exc:
                    raise CommandError(exc.message) from None
                competition.refresh_from_db()
            self.demo_team(competition=competition, user=participant)
            self.published_results(competition=competition, organizer=organizer)
            self.official_boards(competition=competition, organizer=organizer)
            competitions.append(competition)
        self.summary(competitions, url=url.rstrip("/") + "/", eager=eager)

    def published_results(self, *, competition: Competition, organizer) -> None:
        """Import the edition's published results and freeze each phase that holds them as
        its official board (once: a board frozen before stays as it was), dated by the
        publication of its sources (the latest, when its files give it)."""
        dated: dict[Phase, datetime | None] = {}
        for path in REFERENCES.get(competition.slug, ()):
            try:
                imported = reference_results_import(path=path)
                averages = reference_averages_read(path=path)
                published = reference_published_at(path=path)
            except CompetitionError as exc:
                raise CommandError(exc.message) from None
            for phase in {s.phase for s in imported} | {a.phase for a in averages}:
                known = [d for d in (dated.get(phase), published) if d is not None]
                dated[phase] = max(known) if known else None
            self.stdout.write(
                f"  {plural(len(imported), 'published result')} per dataset and "
                f"{plural(len(averages), 'published average')} imported from {path.name}"
            )
        for phase, published in dated.items():
            if phase.submissions.filter(is_reference=True).exists() and not (
                BoardSnapshot.objects.filter(phase=phase, active=True).exists()
            ):
                board_freeze(
                    phase=phase,
                    user=organizer,
                    note="official results as published; later runs go to the post-task phase",
                    at=published,  # the record's date: its sources'
                )

    def official_boards(self, *, competition: Competition, organizer) -> None:
        """Freeze the board of each ended phase whose task keeps a post-task phase, as the
        organizers of a finished shared task do (once: a frozen board stays as it was). With
        jobs queued rather than run here, a board is frozen only once its runs are scored."""
        now = timezone.now()
        phases = Phase.objects.filter(task__competition=competition, end__lt=now).exclude(
            kind=Phase.Kind.POST_TASK
        )
        for phase in phases:
            if not phase.task.phases.filter(kind=Phase.Kind.POST_TASK).exists():
                continue
            if BoardSnapshot.objects.filter(phase=phase, active=True).exists():
                continue
            runs = Submission.objects.filter(phase=phase)
            if not runs.exists() or runs.filter(status__in=Submission.PENDING_STATUSES).exists():
                continue
            board_freeze(
                phase=phase,
                user=organizer,
                note="official results of the evaluation; later runs go to the post-task phase",
            )

    def demo_user(self, username: str, password: str, *, staff: bool):
        """Create the user, or reset it to the documented password and rights."""
        User = get_user_model()
        user, _ = User.objects.get_or_create(username=username)
        user.set_password(password)
        user.is_active = True
        user.is_staff = user.is_superuser = staff
        user.save()
        return user

    @transaction.atomic
    def demo_team(self, *, competition: Competition, user) -> None:
        if not Membership.objects.filter(competition=competition, user=user).exists():
            team_create(competition=competition, name=TEAM_NAME, user=user)

    def summary(self, competitions: list[Competition], *, url: str, eager: bool) -> None:
        write, style = self.stdout.write, self.style
        write("")
        for competition in competitions:
            baselines = Submission.objects.filter(
                team__competition=competition, is_baseline=True, is_reference=False
            )
            counts = {
                status: baselines.filter(status=status).count()
                for status in Submission.Status.values
            }
            pending = sum(counts[s] for s in Submission.PENDING_STATUSES)
            write(
                style.SUCCESS(
                    f"{competition.title}\n  {plural(competition.tasks.count(), 'task')}, "
                    f"{plural(baselines.count(), 'baseline run')}: {counts['scored']} scored, "
                    f"{pending} waiting, {counts['failed'] + counts['rejected']} failed"
                )
            )
            for failed in baselines.filter(status__in=["failed", "rejected"])[:5]:
                write(style.WARNING(f"  {failed.phase}: {failed.run_name}: {failed.error}"))
            write(f"  {url.rstrip('/')}{self.competition_path(competition)}")
        if not eager:
            write(
                style.WARNING(
                    "\nA broker is configured: the baselines are queued. Start a worker to score "
                    "them:\n  .venv/bin/celery -A config worker --loglevel=info   (or: make worker)"
                )
            )
        write(
            f"\nOpen {url}\n"
            f"  demo organizer:   {ORGANIZER[0]} / {ORGANIZER[1]}   (also admin: {url}admin/)\n"
            f"  demo participant: {PARTICIPANT[0]} / {PARTICIPANT[1]}   (team "
            f'"{TEAM_NAME}")\n'
            "These passwords are public: never use this command on a real deployment."
        )

    @staticmethod
    def competition_path(competition: Competition) -> str:
        try:
            return reverse("competition:competition", kwargs={"slug": competition.slug})
        except NoReverseMatch:
            return "/"
