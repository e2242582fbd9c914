"""Competition domain: competitions, tasks, phases, sub-corpora, teams, submissions, scores.

Models hold data and small read-only helpers only. Every write with a rule behind it lives in
``competition.services``; every read a page needs lives in ``competition.selectors``.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


def new_invite_code() -> str:
    """A random, URL-safe team invite code (about 96 bits)."""
    return secrets.token_urlsafe(12)


class Competition(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=300)
    description = models.TextField(blank=True)
    website = models.URLField(blank=True)
    organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organized_competitions"
    )
    # The organizer who may add and remove organizers (staff may too). Blank: staff only.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="owned_competitions",
    )
    created = models.DateTimeField(default=timezone.now)
    # Blank: a draft, seen by its organizers and staff only (competition.visibility). Set by
    # competition.services.publish, never by loading a definition.
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "slug"]

    def __str__(self) -> str:
        return self.title

    @property
    def is_draft(self) -> bool:
        return self.published_at is None


class Task(models.Model):
    # Words that follow a competition's slug in the site's own addresses
    # (competitions/<slug>/team/, .../pages/...): a task may not be named so.
    RESERVED_SLUGS = frozenset(
        {
            "team",
            "teams",
            "pages",
            "terms",
            "organize",
            "announcements",
            "unsubscribe",
            "system-card",
        }
    )

    class Kind(models.TextChoices):
        IDENTITY = "identity", "Identity anaphora"
        BRIDGING = "bridging", "Bridging"
        DISCOURSE_DEIXIS = "discourse_deixis", "Discourse deixis"
        COREFUD = "corefud", "Multilingual coreference (CorefUD)"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="tasks")
    slug = models.SlugField(max_length=100)
    kind = models.CharField(max_length=32, choices=Kind.choices)
    title = models.CharField(max_length=300)
    description = models.TextField(blank=True)
    scorer_options = models.JSONField(default=list, blank=True)
    # A named, versioned scoring procedure of the scorer (`scoring.procedures`), e.g.
    # "crac-2024": its modes replace scorer_options and the analysis modes. Blank: the
    # task's kind and scorer_options decide (competition.task_scoring).
    procedure = models.CharField(max_length=64, blank=True)
    primary_metric = models.CharField(max_length=64)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["competition", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "slug"], name="task_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.competition.slug}/{self.slug}"


class Phase(models.Model):
    class Kind(models.TextChoices):
        DEVELOPMENT = "development", "Development"
        TEST_PREDICTED = "test_predicted", "Test (predicted mentions)"
        TEST_GOLD = "test_gold", "Test (gold mentions)"
        POST_TASK = "post_task", "Post-task (after the official evaluation)"

    class Visibility(models.TextChoices):
        PUBLIC = "public", "Public"
        HIDDEN = "hidden", "Hidden until revealed"

    class RunDetails(models.TextChoices):
        PUBLIC = "public", "Every run's details, once the phase's scores are public"
        TEAM = "team", "Only the run's own team (and the organizers)"

    class Missing(models.TextChoices):
        UNRANKED = (
            "unranked",
            (
                "Every run covers every dataset: an upload missing one is "
                "refused (a run from before a dataset was added has no "
                "average and no rank)"
            ),
        )
        ZERO = (
            "zero",
            (
                "A missing dataset counts as 0 in the average; such runs rank below "
                "every complete run"
            ),
        )

    class Counts(models.TextChoices):
        BEST = "best", "Best submission"
        LATEST = "latest", "Latest submission"
        CHOSEN = "chosen", "Submission chosen by the team"

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="phases")
    slug = models.SlugField(max_length=100)
    kind = models.CharField(max_length=32, choices=Kind.choices)
    title = models.CharField(max_length=300)
    start = models.DateTimeField()
    end = models.DateTimeField(null=True, blank=True)
    leaderboard_visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    # A hidden leaderboard is shown from this moment on (set by phase_reveal; may be in the future).
    revealed_at = models.DateTimeField(null=True, blank=True)
    # Whether ``revealed_at`` was given as a date (a definition, the editor, a reveal set for a
    # later moment) rather than set by an organizer's "Reveal now": a clone of the competition
    # carries a scheduled reveal (moved with the dates), never a reveal by hand.
    reveal_scheduled = models.BooleanField(default=False)
    show_own_scores_when_hidden = models.BooleanField(default=False)
    # Who may open a run's details (its analysis page, per-document scores and exports, the
    # API's view of it) besides its team and the organizers (competition.visibility).
    run_details = models.CharField(
        max_length=16, choices=RunDetails.choices, default=RunDetails.PUBLIC
    )
    daily_limit = models.PositiveIntegerField(default=5)
    total_limit = models.PositiveIntegerField(default=100)
    counts = models.CharField(max_length=16, choices=Counts.choices, default=Counts.BEST)
    # How a run that skipped some sub-corpora (datasets) is averaged and ranked.
    missing = models.CharField(max_length=16, choices=Missing.choices, default=Missing.UNRANKED)
    # The zone the phase's dates are announced in ("UTC", "AoE" or an IANA name, see
    # competition.timezones); start and end are stored in UTC whatever it is.
    time_zone = models.CharField(max_length=64, default="UTC")
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["task", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["task", "slug"], name="phase_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.task}/{self.slug}"

    def is_open(self, *, at: datetime) -> bool:
        """Submissions are accepted from ``start`` up to ``end`` (inclusive), if any."""
        return self.start <= at and (self.end is None or at <= self.end)

    def status(self, *, at: datetime) -> str:
        """'upcoming', 'open' or 'closed' at the given moment."""
        if at < self.start:
            return "upcoming"
        return "open" if self.is_open(at=at) else "closed"

    def leaderboard_is_public(self, *, at: datetime) -> bool:
        """Whether anyone may see the leaderboard and every team's scores at ``at``."""
        if self.leaderboard_visibility == self.Visibility.PUBLIC:
            return True
        return self.revealed_at is not None and self.revealed_at <= at


class SubCorpus(models.Model):
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="subcorpora")
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100)
    available = models.BooleanField(default=True)
    # The dataset's language (a name or an ISO code, e.g. "cs" or "Czech"): boards group
    # their columns by it. Blank for single-language competitions.
    language = models.CharField(max_length=64, blank=True)
    # The file name participants upload for it (e.g. "cs_pcedt-corefud-test.conllu"), matched
    # before any other rule; blank: matched by the sub-corpus name.
    file_name = models.CharField(max_length=255, blank=True)
    # Path of the gold key, relative to settings.PRIVATE_ROOT. Never served.
    key_file = models.CharField(max_length=500, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    # SHA-256 of the key's content (line endings, trailing blanks normalised;
    # competition.definition.keys): compared with the data files participants download.
    content_sha256 = models.CharField(max_length=64, blank=True)
    # [{"name": document name, "tokens": number of word tokens}], in file order.
    documents = models.JSONField(default=list, blank=True)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["phase", "order", "id"]
        verbose_name_plural = "sub-corpora"
        constraints = [
            models.UniqueConstraint(fields=["phase", "slug"], name="subcorpus_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.phase}/{self.name}"

    @property
    def key_path(self):
        """Absolute path of the gold key file."""
        from pathlib import Path

        return Path(settings.PRIVATE_ROOT) / self.key_file


class Track(models.Model):
    """A separately ranked class of runs of a task (e.g. "LLM", "unconstrained"), chosen by
    the team at upload."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="tracks")
    slug = models.SlugField(max_length=100)
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["task", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["task", "slug"], name="track_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.task}/{self.name}"


class Team(models.Model):
    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=100)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="Membership",
        through_fields=("team", "user"),
        related_name="teams",
    )
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    is_organizer_team = models.BooleanField(default=False)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["competition", "name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "name"], name="team_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user in a team. ``competition`` repeats the team's, so the database can enforce one
    team per user per competition."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="memberships"
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["team", "joined_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "user"], name="membership_one_team_per_competition"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team}"


CHECKING = "checking"  # a pending run's shown status while the worker checks its files


class Submission(models.Model):
    class Status(models.TextChoices):
        UPLOADED = "uploaded", "Uploaded"
        VALIDATED = "validated", "Validated"
        QUEUED = "queued", "Queued"
        SCORING = "scoring", "Scoring"
        SCORED = "scored", "Scored"
        REJECTED = "rejected", "Rejected"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"
        # Its files no longer fit a gold key the organizers replaced after the upload: kept
        # for the organizers to look at, never counted against the team.
        SET_ASIDE = "set_aside", "Set aside"

    FINAL_STATUSES = (
        Status.SCORED,
        Status.REJECTED,
        Status.FAILED,
        Status.CANCELLED,
        Status.SET_ASIDE,
    )
    PENDING_STATUSES = (Status.UPLOADED, Status.VALIDATED, Status.QUEUED, Status.SCORING)

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="submissions")
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="submissions")
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="submissions",
    )
    run_name = models.CharField(max_length=100, blank=True)
    description = models.TextField(blank=True)
    link = models.URLField(max_length=500, blank=True)  # the run's paper or code
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.UPLOADED)
    is_baseline = models.BooleanField(default=False)
    # A published result of an edition that ran elsewhere, imported with its scores (no
    # files); ``source`` names where the numbers come from.
    is_reference = models.BooleanField(default=False)
    source = models.CharField(max_length=500, blank=True)
    track = models.ForeignKey(
        "Track", on_delete=models.PROTECT, null=True, blank=True, related_name="submissions"
    )
    is_chosen = models.BooleanField(default=False)
    disqualified = models.BooleanField(default=False)
    disqualified_reason = models.TextField(blank=True)
    # Scoring attempts started (claims). The sweep fails a submission after SCORING_MAX_ATTEMPTS.
    attempts = models.PositiveIntegerField(default=0)
    claimed_by = models.CharField(max_length=255, blank=True)  # Celery task id
    # The process that holds the claim: "<worker node>:<pid>" (blank: unknown, e.g. tests).
    claimed_worker = models.CharField(max_length=255, blank=True)
    # False while the scoring message could not be handed to the broker (it was down): a
    # live worker publishes it again (competition.scoring.recovery.submission_recover).
    published = models.BooleanField(default=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    # What the last scoring job read, warned about and how long it took, as the team may see
    # it: files named as uploaded, gold keys by sub-corpus, never a key's path or content.
    scoring_log = models.TextField(blank=True)
    # What the reader warned about in the accepted files (a MISC attribute that looks like a
    # misspelt Entity=, whose mentions are not read): [{"file", "subcorpus", "line",
    # "message"}], files named as uploaded. Written once, by the upload (submission_create).
    upload_warnings = models.JSONField(default=list, blank=True)
    # True when a failure is the platform's fault (time/memory limit, lost job, crash): such a
    # submission does not count against the team's limits.
    platform_failure = models.BooleanField(default=False)
    # {sub-corpus id: SHA-256 of its gold key} the files were validated against at upload: a
    # run that no longer fits a key replaced since is set aside, not failed.
    validated_keys = models.JSONField(default=dict, blank=True)
    # A refused run's problems, as the upload's answer listed them before (file, sub-corpus,
    # document, line, message, code): the worker checks each file before scoring it.
    problems = models.JSONField(default=list, blank=True)
    scorer_version = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)  # uploaded
    # When the worker found every file fitting its gold key; None while the run is checked
    # (it counts against the limits then, until it is refused).
    validated_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    scoring_started_at = models.DateTimeField(null=True, blank=True)
    scored_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The sender's key for the run it meant to upload (the command line's Idempotency-Key,
    # the upload page's hidden field): an upload sent again with it gets this run back.
    idempotency_key = models.CharField(max_length=64, blank=True, default="")

    # Not stored: set on the run `submission_create` returns for a key it had seen already.
    replayed = False

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["phase", "status"], name="submission_phase_status"),
            models.Index(fields=["team", "phase", "created_at"], name="submission_team_phase"),
            models.Index(fields=["status", "queued_at"], name="submission_status_queued"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="submission_team_idempotency_key",
            )
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.team} → {self.phase}"

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL_STATUSES

    @property
    def is_pending(self) -> bool:
        return self.status in self.PENDING_STATUSES

    @property
    def is_checking(self) -> bool:
        """Received and waiting for (or under) the worker's check of its files: a pending
        run that has not been found valid yet. Re-scored runs were checked before."""
        return self.is_pending and self.validated_at is None and not self.is_reference

    @property
    def shown_status(self) -> str:
        """The status as pages and the API name it: "checking" while its files are
        checked, else the stored status."""
        return CHECKING if self.is_checking else str(self.status)


class SubmissionFile(models.Model):
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="files")
    subcorpus = models.ForeignKey(SubCorpus, on_delete=models.CASCADE, related_name="files")
    # Relative to settings.MEDIA_ROOT: submissions/<submission id>/<subcorpus slug>.conllua
    path = models.CharField(max_length=500)
    original_name = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ["submission", "subcorpus__order", "subcorpus_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "subcorpus"], name="submissionfile_unique_subcorpus"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.submission_id}/{self.subcorpus.name}: {self.original_name}"

    @property
    def absolute_path(self):
        from pathlib import Path

        return Path(settings.MEDIA_ROOT) / self.path


class ScoringRun(models.Model):
    """One scoring of a submission. Re-scoring adds a run and makes it current; old runs stay."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="runs")
    scorer_version = models.CharField(max_length=64)
    # The task's scoring procedure when it has one (e.g. "crac-2024"), else blank.
    procedure = models.CharField(max_length=64, blank=True)
    # {mode name: [scorer option words]}, e.g. {"task": ["keep_bridging", "--per-doc"]}
    options = models.JSONField(default=dict)
    # {sub-corpus id: SHA-256 of the gold key scored against}: tells a run scored against a
    # key that has since been corrected.
    keys = models.JSONField(default=dict, blank=True)
    task_id = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    is_current = models.BooleanField(default=True)

    class Meta:
        ordering = ["submission", "-created_at", "-id"]
        indexes = [
            models.Index(fields=["submission", "is_current"], name="run_submission_current"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["submission"],
                condition=Q(is_current=True),
                name="run_one_current_per_submission",
            ),
        ]

    def __str__(self) -> str:
        return f"run {self.pk} of submission {self.submission_id} ({self.scorer_version})"


class Score(models.Model):
    """One number triple: run × sub-corpus × mode × metric × document ("" = whole sub-corpus)."""

    TASK_MODE = "task"

    # A run writes some 11,000 rows at once (a CRAC run with its per-document rows), each
    # one an entry in every index and a check of every foreign key constraint: the run and
    # submission columns have no index of their own (``score_unique_cell`` and
    # ``score_submission`` begin with them), and ``submission``, a copy of the run's
    # submission kept for the boards' reads, no constraint of its own (the run's constraint
    # and the run's own to its submission keep it from pointing nowhere; deletes cascade
    # here as before).
    run = models.ForeignKey(
        ScoringRun, on_delete=models.CASCADE, related_name="scores", db_index=False
    )
    submission = models.ForeignKey(
        Submission,
        on_delete=models.CASCADE,
        related_name="scores",
        db_index=False,
        db_constraint=False,
    )
    subcorpus = models.ForeignKey(SubCorpus, on_delete=models.CASCADE, related_name="scores")
    mode = models.CharField(max_length=100, default=TASK_MODE)
    metric = models.CharField(max_length=64)
    document = models.CharField(max_length=255, blank=True, default="")
    # None only for published reference results that printed F1 alone: never invented.
    recall = models.FloatField(null=True, blank=True)
    precision = models.FloatField(null=True, blank=True)
    f1 = models.FloatField()
    counts = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "subcorpus", "mode", "metric", "document"]
        indexes = [
            models.Index(
                fields=["metric", "mode", "document", "subcorpus"], name="score_leaderboard"
            ),
            models.Index(fields=["submission", "mode", "document"], name="score_submission"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "subcorpus", "mode", "metric", "document"],
                name="score_unique_cell",
            ),
        ]

    def __str__(self) -> str:
        where = f"{self.subcorpus.name}/{self.document}" if self.document else self.subcorpus.name
        return f"{self.metric}[{self.mode}] {where}: F1 {self.f1:.4f}"


class ScoringPart(models.Model):
    """One dataset of a run whose datasets are scored by jobs of their own, across the
    workers (a multi-dataset run fans out: ``tasks.scoring``). ``claim`` is the run's claim
    (its job's task id) the part belongs to: a run queued again gets new parts, and the
    parts of an earlier claim are ignored. A part is written once (``finished_at``)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="parts")
    subcorpus = models.ForeignKey(SubCorpus, on_delete=models.CASCADE, related_name="+")
    claim = models.CharField(max_length=255)
    task_id = models.CharField(max_length=255, blank=True)  # the part's own job, once started
    worker = models.CharField(max_length=255, blank=True)  # "<node>:<pid>" scoring it
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # the part's outcome, written and read by one codec (competition.scoring.parts.StagedPart)
    outcome = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "subcorpus", "claim"], name="scoring_part_once"
            )
        ]

    def __str__(self) -> str:
        return f"part {self.subcorpus_id} of #{self.submission_id} ({self.claim})"


class WorkerHeartbeat(models.Model):
    """A scoring worker node says it is alive (every few seconds, from its main process);
    a claim held by a node that stopped saying so is taken back and scored again."""

    node = models.CharField(max_length=255, unique=True)
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.node} seen {self.seen_at:%Y-%m-%d %H:%M:%S}"


class PhaseDataFile(models.Model):
    """A file the organizers hand to participants for one phase (development data, test
    inputs without coreference, gold-mention inputs), downloadable from the phase page once
    ``release_at`` (blank: the phase's start) has come. Never a gold key: a file identical to
    one is refused (competition.definition.editor), but for a development phase's own key that
    the organizers mark as public (``public_key``)."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="data_files")
    file_name = models.CharField(max_length=255)
    description = models.CharField(max_length=300, blank=True)
    # Relative to settings.PRIVATE_ROOT; served only through the view that checks access.
    path = models.CharField(max_length=500)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    # Content digests of the file and, for a zip, of each member (normalised as a key's
    # content_sha256 is): no gold key may equal any of them.
    content_digests = models.JSONField(default=list, blank=True)
    release_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # The organizers' explicit choice: this file is the development phase's own gold key,
    # released with its annotations (CorefUD dev data). Only then may it equal a key, and only
    # a key of its own development phase (competition.definition.keys).
    public_key = models.BooleanField(default=False)

    class Meta:
        ordering = ["phase", "file_name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["phase", "file_name"], name="phasedatafile_unique_name"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.phase}/{self.file_name}"

    @property
    def released_at(self) -> datetime:
        """When participants may download it."""
        return self.release_at or self.phase.start

    @property
    def absolute_path(self):
        from pathlib import Path

        return Path(settings.PRIVATE_ROOT) / self.path


# --- pages, terms, team approval, announcements -------------------------------------------


class CompetitionPage(models.Model):
    """A page of a competition written by its organizers in Markdown (rendered safely by
    ``competition.markdown``): its overview, evaluation, data or terms."""

    class Kind(models.TextChoices):
        OVERVIEW = "overview", "Overview"
        EVALUATION = "evaluation", "Evaluation"
        DATA = "data", "Data"
        TERMS = "terms", "Terms"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="pages")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    body = models.TextField(blank=True)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["competition", "kind"], name="page_unique_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.competition.slug}/{self.kind}"


class ParticipationRules(models.Model):
    """What a competition asks of its participants beyond its terms: whether the organizers
    approve each team before it may submit. No row: no approval needed."""

    competition = models.OneToOneField(
        Competition, on_delete=models.CASCADE, related_name="participation_rules"
    )
    team_approval = models.BooleanField(default=False)
    # E-mail the teams with no final run of a test phase 48 hours before it closes
    # (competition.services.reminders); members who opted out of the competition's
    # announcements get none.
    deadline_reminders = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"rules of {self.competition.slug}"


class TermsAcceptance(models.Model):
    """A user accepted a competition's terms as they read at ``accepted_at`` (their SHA-256):
    changed terms must be accepted again."""

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="terms_acceptances"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="terms_acceptances"
    )
    terms_sha256 = models.CharField(max_length=64)
    accepted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-accepted_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "user", "terms_sha256"],
                name="terms_accepted_once_per_version",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} accepted the terms of {self.competition.slug}"


class TeamApproval(models.Model):
    """The organizers' decision on a team, in a competition whose teams need approval. No
    row: the team waits for a decision."""

    class Status(models.TextChoices):
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    team = models.OneToOneField(Team, on_delete=models.CASCADE, related_name="approval")
    status = models.CharField(max_length=16, choices=Status.choices)
    reason = models.TextField(blank=True)
    decided_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.team}: {self.status}"


class Announcement(models.Model):
    """News from the organizers: shown on the competition page (newest first) and e-mailed
    to the members of its teams who did not opt out."""

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="announcements"
    )
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True)  # Markdown
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    emailed_at = models.DateTimeField(null=True, blank=True)
    emailed_to = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.competition.slug}: {self.title}"


class AnnouncementOptOut(models.Model):
    """A user does not want a competition's announcements by e-mail."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="announcement_opt_outs"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "user"], name="announcement_opt_out_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} opted out of {self.competition_id}"


class DeadlineReminder(models.Model):
    """A team was reminded that a test phase closes soon while it had no final run there.
    One row per phase and team: the reminder goes out once, however often the job runs."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="+")
    sent_at = models.DateTimeField(default=timezone.now)
    emailed_to = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["phase", "team"], name="deadline_reminder_once"),
        ]

    def __str__(self) -> str:
        return f"reminder to {self.team} for {self.phase}"


class RescoreBatch(models.Model):
    """An organizer's re-scoring of a phase: which submissions it queued, so its page can
    show how many are done."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="rescore_batches")
    submission_ids = models.JSONField(default=list)
    started_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"re-scoring of {self.phase} at {self.started_at:%Y-%m-%d %H:%M}"


class PublishedAverage(models.Model):
    """A published official result whose source prints only the macro-average over the
    datasets (no per-dataset numbers), imported from a reference-results file's
    ``averages_only`` table (`competition.services.references`). Shown beside the phase's
    board as printed, with its source; never ranked with the board's runs, whose numbers are
    per dataset."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="published_averages")
    track = models.ForeignKey(
        Track, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    mode = models.CharField(max_length=100, default="task")
    metric = models.CharField(max_length=64)
    team = models.CharField(max_length=200)
    system = models.CharField(max_length=200, blank=True)
    is_baseline = models.BooleanField(default=False)
    average = models.FloatField()  # a fraction, as the source prints it (rounded)
    source = models.CharField(max_length=500)
    order = models.PositiveIntegerField(default=0)  # the row's place in its printed table

    class Meta:
        ordering = ["phase", "track", "order", "id"]

    def __str__(self) -> str:
        return f"{self.team} {self.metric}[{self.mode}] {100 * self.average:.2f} ({self.phase})"


class BoardEntry(models.Model):
    """What the boards show by default of one scored run, kept beside its score rows so that a
    board reads one small row per run instead of every score row of the phase.

    Written by one function only, ``competition.services.boards.board_entries_write``, from
    every path that changes a run's current scoring. ``scores`` holds the sub-corpus rows of
    ``run`` (the current scoring it was built from) for the (mode, metric) pairs named in
    ``pairs``: the task's primary metric in the task mode, and the variant columns of its
    procedure. The same shape as a frozen board's entries: ``{mode: {metric: {sub-corpus slug:
    [recall, precision, f1]}}}``. A reader uses a row only while ``run`` is still the current
    scoring and ``pairs`` still what the task shows; anything else is read from the score rows.
    """

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, primary_key=True, related_name="board_entry"
    )
    run = models.ForeignKey(ScoringRun, on_delete=models.CASCADE, related_name="+")
    pairs = models.CharField(max_length=1000)
    scores = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"board entry of submission {self.submission_id} (run {self.run_id})"


class DefinitionJob(models.Model):
    """Heavy work on a competition's definition done by a job, outside the request, with how
    far it is, for the editor's pages: a large uploaded definition (``definition``), a large
    gold key given on a sub-corpus's form (``key``, for ``phase``; ``params`` holds the
    form's values), or a large CodaLab or Codabench bundle imported as a new competition
    (``bundle``: no competition until it is created; ``params`` holds the owner, the slug
    and, once done, the import's report)."""

    class Kind(models.TextChoices):
        DEFINITION = "definition", "Definition"
        KEY = "key", "Gold key"
        BUNDLE = "bundle", "Competition bundle"

    class Status(models.TextChoices):
        QUEUED = "queued", "Waiting for a worker"
        RUNNING = "running", "Loading"
        DONE = "done", "Loaded"
        FAILED = "failed", "Refused"

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="definition_jobs", null=True
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.DEFINITION)
    phase = models.ForeignKey(
        Phase, on_delete=models.CASCADE, null=True, blank=True, related_name="definition_jobs"
    )
    params = models.JSONField(default=dict, blank=True)
    file_name = models.CharField(max_length=255)
    # The received upload, relative to settings.PRIVATE_ROOT; removed when the job ends.
    path = models.CharField(max_length=500)
    size = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.CharField(max_length=300, blank=True)
    message = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        owner = self.competition.slug if self.competition else "new competition"
        return f"{owner}: {self.file_name} ({self.status})"

    @property
    def is_pending(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class AuditEntry(models.Model):
    """One organizer action on a competition, with who did it and when: written by
    ``competition.services.audit.audit_record`` only, shown to the competition's organizers."""

    class Action(models.TextChoices):
        KEYS_CHANGED = "keys_changed", "Gold keys changed"
        REVEAL = "reveal", "Leaderboard revealed"
        HIDE = "hide", "Leaderboard hidden"
        FREEZE = "freeze", "Board frozen"
        UNFREEZE = "unfreeze", "Board unfrozen"
        RESCORE = "rescore", "Re-scored"
        DISQUALIFY = "disqualify", "Run disqualified"
        PUBLISH = "publish", "Published"
        UNPUBLISH = "unpublish", "Back to draft"
        ORGANIZER_ADDED = "organizer_added", "Organizer added"
        ORGANIZER_REMOVED = "organizer_removed", "Organizer removed"
        CARD_CHANGED = "card_changed", "System card changed"
        CARD_OVERRIDE = "card_override", "Locked system card changed"
        DATES_CHANGED = "dates_changed", "Phase dates changed"
        TEAM_APPROVED = "team_approved", "Team approved"
        TEAM_REJECTED = "team_rejected", "Team rejected"
        SCORING_CHANGED = "scoring_changed", "Scoring changed"

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="audit_entries"
    )
    # Blank: a command-line operator (manage.py), or a user since deleted.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    action = models.CharField(max_length=32, choices=Action.choices)
    detail = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["competition", "created_at"], name="audit_competition")]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.competition.slug}: {self.action} by {self.actor or 'operator'}"


class SystemCardQuestion(models.Model):
    """A question of a competition's system card: what a team says of the system behind a
    run (LLM-based or not, base model, …). ``required``: a run of a test phase (a final
    run) needs an answer; ``on_board``: boards may show the answers as a column."""

    class Kind(models.TextChoices):
        YES_NO = "yes_no", "Yes or no"
        CHOICE = "choice", "One of the choices"
        TEXT = "text", "Text"
        URL = "url", "Link"

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="card_questions"
    )
    slug = models.SlugField(max_length=64)
    text = models.CharField(max_length=300)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.TEXT)
    choices = models.JSONField(default=list, blank=True)
    required = models.BooleanField(default=False)
    on_board = models.BooleanField(default=False)
    # {question slug: answer}: the question applies only when an earlier question was
    # answered so ({"llm": "yes"}: asked of LLM-based systems only). Empty: always.
    when = models.JSONField(default=dict, blank=True)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "slug"], name="card_question_unique_slug"
            )
        ]

    def __str__(self) -> str:
        return f"{self.competition.slug}/{self.slug}"


class SystemCardAnswer(models.Model):
    """A team's answer to one system-card question for one run."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="card_answers"
    )
    question = models.ForeignKey(
        SystemCardQuestion, on_delete=models.CASCADE, related_name="answers"
    )
    value = models.CharField(max_length=500)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["submission", "question"], name="card_answer_unique")
        ]

    def __str__(self) -> str:
        return f"#{self.submission_id} {self.question.slug}={self.value}"
