"""The admin of teams and their runs: teams, members and approvals, submissions and their
files, scoring runs, parts and scores, board entries, re-score batches, worker heartbeats,
system-card answers. Actions that change state go through the services."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db import models as django_models

from competition import models, services
from competition.errors import CompetitionError
from competition.services.pages import team_decide


class MembershipInline(admin.TabularInline):
    model = models.Membership
    extra = 0
    fields = ["user", "competition", "joined_at"]
    raw_id_fields = ["user"]


class SubmissionFileInline(admin.TabularInline):
    model = models.SubmissionFile
    extra = 0
    fields = ["subcorpus", "original_name", "size", "sha256", "path"]
    readonly_fields = fields
    can_delete = False


class ScoringRunInline(admin.TabularInline):
    model = models.ScoringRun
    extra = 0
    fields = ["created_at", "scorer_version", "procedure", "options", "is_current", "task_id"]
    readonly_fields = fields
    can_delete = False


@admin.register(models.Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "competition", "is_organizer_team", "invite_code", "created"]
    list_filter = ["competition", "is_organizer_team"]
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(models.Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "team", "competition", "joined_at"]
    list_filter = ["competition"]
    raw_id_fields = ["user", "team"]


def _each(request, queryset, act) -> None:
    """``act(submission)`` for each chosen run; a run the service refuses is named in a
    message and the others go on."""
    for submission in queryset:
        try:
            act(submission)
        except CompetitionError as exc:
            messages.error(request, f"#{submission.pk}: {exc}")


@admin.action(description="Re-score (new run, history kept)")
def rescore_submissions(modeladmin, request, queryset):
    _each(
        request, queryset, lambda s: services.submission_rescore(submission=s, actor=request.user)
    )


@admin.action(description="Cancel")
def cancel_submissions(modeladmin, request, queryset):
    _each(request, queryset, lambda s: services.submission_cancel(submission=s, user=request.user))


@admin.action(description="Disqualify (reason: set by organizer in admin)")
def disqualify_submissions(modeladmin, request, queryset):
    for submission in queryset:
        reason = submission.disqualified_reason or "Disqualified by the organizers."
        services.submission_disqualify(submission=submission, reason=reason, actor=request.user)


@admin.register(models.Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "team",
        "phase",
        "run_name",
        "status",
        "is_baseline",
        "is_chosen",
        "disqualified",
        "attempts",
        "created_at",
        "scored_at",
    ]
    list_filter = ["status", "phase__task__competition", "phase", "is_baseline", "disqualified"]
    search_fields = ["team__name", "run_name"]
    raw_id_fields = ["team", "submitted_by"]
    readonly_fields = [
        "claimed_by",
        "claimed_at",
        "attempts",
        "created_at",
        "validated_at",
        "queued_at",
        "scoring_started_at",
        "scored_at",
        "failed_at",
        "cancelled_at",
        "updated_at",
        "scorer_version",
    ]
    inlines = [SubmissionFileInline, ScoringRunInline]
    formfield_overrides = {django_models.URLField: {"assume_scheme": "https"}}
    actions = [rescore_submissions, cancel_submissions, disqualify_submissions]


@admin.register(models.SubmissionFile)
class SubmissionFileAdmin(admin.ModelAdmin):
    list_display = ["submission", "subcorpus", "original_name", "size", "sha256"]
    raw_id_fields = ["submission"]


@admin.register(models.ScoringRun)
class ScoringRunAdmin(admin.ModelAdmin):
    list_display = ["id", "submission", "scorer_version", "is_current", "created_at"]
    list_filter = ["is_current", "scorer_version"]
    raw_id_fields = ["submission"]


@admin.register(models.Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = [
        "submission",
        "subcorpus",
        "mode",
        "metric",
        "document",
        "recall",
        "precision",
        "f1",
    ]
    list_filter = ["mode", "metric", "subcorpus__phase"]
    raw_id_fields = ["run", "submission", "subcorpus"]


@admin.register(models.WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ["node", "seen_at"]
    readonly_fields = ["node", "seen_at"]


@admin.register(models.TeamApproval)
class TeamApprovalAdmin(admin.ModelAdmin):
    """A decision made here is the organizers' decision (`team_decide`): the team is told by
    e-mail and the audit log keeps it."""

    list_display = ["team", "status", "reason", "decided_at", "decided_by"]
    list_filter = ["status", "team__competition"]
    fields = ["team", "status", "reason"]

    def save_model(self, request, obj, form, change) -> None:
        decided = team_decide(
            team=obj.team,
            approve=obj.status == models.TeamApproval.Status.APPROVED,
            reason=obj.reason,
            user=request.user,
        )
        obj.pk, obj.decided_at, obj.decided_by = decided.pk, decided.decided_at, request.user


@admin.register(models.RescoreBatch)
class RescoreBatchAdmin(admin.ModelAdmin):
    list_display = ["phase", "started_at", "created_by"]
    readonly_fields = ["submission_ids"]


@admin.register(models.BoardEntry)
class BoardEntryAdmin(admin.ModelAdmin):
    """Kept by competition.services.boards from the score rows: shown, never edited."""

    list_display = ["submission", "run", "pairs"]
    readonly_fields = ["submission", "run", "pairs", "scores"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(models.ScoringPart)
class ScoringPartAdmin(admin.ModelAdmin):
    """Written by the scoring jobs of runs scored in parts (tasks.scoring); removed when the
    run is recorded: shown, never edited."""

    list_display = ["submission", "subcorpus", "claim", "worker", "started_at", "finished_at"]
    readonly_fields = [
        "submission",
        "subcorpus",
        "claim",
        "task_id",
        "worker",
        "started_at",
        "finished_at",
        "outcome",
    ]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(models.SystemCardAnswer)
class SystemCardAnswerAdmin(admin.ModelAdmin):
    list_display = ["submission", "question", "value"]
    readonly_fields = ["submission", "question", "value"]

    def has_add_permission(self, request) -> bool:
        return False
