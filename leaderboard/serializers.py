"""REST API serializers. They expose public fields only: never a gold key path, never a
checksum of a key, never another team's files."""

from __future__ import annotations

from rest_framework import serializers

from competition.models import Competition, Phase, SubCorpus, Submission, Task, Track
from competition.selectors import submission_status_label
from leaderboard.exports import board_meta, row_fields
from leaderboard.ranking import FIELDS


class SubCorpusSerializer(serializers.ModelSerializer):
    class Meta:
        model = SubCorpus
        # file_name: the name participants are told to upload (blank: named by the dataset)
        fields = ["name", "slug", "available", "language", "file_name"]


class TrackSerializer(serializers.ModelSerializer):
    class Meta:
        model = Track
        fields = ["slug", "name", "description"]


class PhaseSerializer(serializers.ModelSerializer):
    competition = serializers.CharField(source="task.competition.slug", read_only=True)
    task = serializers.CharField(source="task.slug", read_only=True)
    subcorpora = SubCorpusSerializer(many=True, read_only=True)
    # The task's tracks, each ranked on its own board; a run names one (empty: no tracks).
    tracks = TrackSerializer(source="task.tracks", many=True, read_only=True)
    leaderboard_public = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField()
    # The system-card questions a run answers (``card.<slug>`` at upload); ``required``:
    # a run of this phase is refused without an answer.
    card_questions = serializers.SerializerMethodField()

    class Meta:
        model = Phase
        fields = [
            "id",
            "competition",
            "task",
            "slug",
            "kind",
            "title",
            "start",
            "end",
            "status",
            "leaderboard_visibility",
            "leaderboard_public",
            "revealed_at",
            "show_own_scores_when_hidden",
            "daily_limit",
            "total_limit",
            "counts",
            "subcorpora",
            "tracks",
            "card_questions",
        ]

    def _now(self):
        from django.utils import timezone

        return timezone.now()

    def get_card_questions(self, phase: Phase) -> list[dict]:
        from competition.services.card_answers import card_required

        final = card_required(phase=phase)
        return [
            {
                "slug": q.slug,
                "text": q.text,
                "kind": q.kind,
                "choices": list(q.choices),
                "required": final and q.required,
                "when": dict(q.when),
            }
            for q in phase.task.competition.card_questions.all()
        ]

    def get_leaderboard_public(self, phase: Phase) -> bool:
        return phase.leaderboard_is_public(at=self._now())

    def get_status(self, phase: Phase) -> str:
        return phase.status(at=self._now())


class TaskSerializer(serializers.ModelSerializer):
    phases = PhaseSerializer(many=True, read_only=True)
    tracks = TrackSerializer(many=True, read_only=True)

    class Meta:
        model = Task
        fields = [
            "id",
            "slug",
            "kind",
            "title",
            "description",
            "primary_metric",
            "scorer_options",
            "tracks",
            "phases",
        ]


class CompetitionSerializer(serializers.ModelSerializer):
    tasks = TaskSerializer(many=True, read_only=True)

    class Meta:
        model = Competition
        fields = ["slug", "title", "description", "website", "tasks"]


class CompetitionListSerializer(serializers.ModelSerializer):
    class Meta:
        model = Competition
        fields = ["slug", "title", "website"]


class SubmitSerializer(serializers.Serializer):
    """Multipart form: ``run_name``, ``description``, ``link``, ``track`` (a track's slug, in
    tasks with tracks), and either ``archive`` (one zip) or one file field per sub-corpus,
    named by its slug (e.g. ``light``). System-card answers are ``card.<question slug>``
    fields (``card.llm=yes``; the phase's ``card_questions`` lists them)."""

    run_name = serializers.CharField(required=False, allow_blank=True, max_length=100)
    track = serializers.CharField(required=False, allow_blank=True, max_length=100)
    description = serializers.CharField(required=False, allow_blank=True)
    link = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=500,
        help_text="the run's paper or code (http or https)",
    )
    archive = serializers.FileField(required=False)


class ScoreCellSerializer(serializers.Serializer):
    recall = serializers.FloatField()
    precision = serializers.FloatField()
    f1 = serializers.FloatField()


class SubmissionSerializer(serializers.ModelSerializer):
    team = serializers.CharField(source="team.name", read_only=True)
    track = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    track_name = serializers.CharField(source="track.name", read_only=True, default="")
    phase_id = serializers.IntegerField(read_only=True)
    is_final = serializers.BooleanField(read_only=True)
    files = serializers.SerializerMethodField()
    scores = serializers.SerializerMethodField()
    status = serializers.CharField(
        source="shown_status",
        read_only=True,
        help_text='"checking" while the worker checks the files, then "scoring", "scored", '
        '"rejected" (the files do not fit: see `problems`), "failed", …',
    )
    status_detail = serializers.SerializerMethodField()
    # what the reader warned about in the accepted files: file (as uploaded), subcorpus,
    # line, message
    warnings = serializers.ListField(
        child=serializers.DictField(), source="upload_warnings", read_only=True
    )
    problems = serializers.SerializerMethodField()

    class Meta:
        model = Submission
        fields = [
            "id",
            "phase_id",
            "team",
            "run_name",
            "description",
            "link",
            "track",
            "track_name",
            "status",
            "status_detail",
            "is_final",
            "error",
            "warnings",
            "problems",
            "is_baseline",
            "is_chosen",
            "disqualified",
            "scorer_version",
            "created_at",
            "scored_at",
            "files",
            "scores",
        ]

    def get_status_detail(self, submission: Submission) -> str:
        """The status in words: "Accepted, waiting for the queue", "Waiting for a scoring
        worker", or the status's own name."""
        return submission_status_label(submission=submission)

    def get_problems(self, submission: Submission) -> list[dict]:
        """A refused run's problems (file, subcorpus, document, line, message, code), as an
        upload refused at once lists them; empty otherwise."""
        if submission.status != Submission.Status.REJECTED:
            return []
        return list(submission.problems or [])

    def get_files(self, submission: Submission) -> list[dict]:
        return [
            {"subcorpus": f.subcorpus.slug, "name": f.original_name, "size": f.size}
            for f in submission.files.all()
        ]

    def get_scores(self, submission: Submission) -> dict | None:
        """{mode: {metric: {sub-corpus slug | "avg": {recall, precision, f1}}}}, or None while
        not scored or while the phase hides them from this viewer."""
        analysis = self.context.get("analysis")
        if analysis is None:
            return None
        out: dict = {}
        for line in [*analysis.lines, *analysis.analysis_lines]:
            cells = {slug: cell_dict(cell) for slug, cell in line.cells.items()}
            if line.average is not None:
                cells["avg"] = cell_dict(line.average)
            out.setdefault(line.mode, {})[line.metric] = cells
        return out


class PublicSubmissionSerializer(SubmissionSerializer):
    """A run of another team whose details the phase shows to everyone: what its analysis
    page shows, never its files, messages or who uploaded it."""

    class Meta(SubmissionSerializer.Meta):
        fields = [
            "id",
            "phase_id",
            "team",
            "run_name",
            "description",
            "link",
            "track",
            "track_name",
            "status",
            "is_final",
            "is_baseline",
            "disqualified",
            "scorer_version",
            "created_at",
            "scored_at",
            "scores",
        ]


def cell_dict(cell) -> dict[str, float]:
    return {name: cell.get(name) for name in FIELDS}


def board_payload(board) -> dict:
    """The leaderboard as nested JSON: the same rows, order and ranks as the page."""
    rows = []
    for row in board.rows:
        entry = row.entry
        rows.append(
            {
                **row_fields(row),
                "average": None if row.average is None else cell_dict(row.average),
                "scores": {slug: cell_dict(cell) for slug, cell in entry.scores.items()},
                "card": board.cards.of(entry.submission_id),
            }
        )
    return {
        "board": board_meta(board),
        "metrics": board.metrics,
        "modes": board.modes,
        "rows": rows,
    }
