"""The admin of a competition's structure: the competition, its tasks, tracks, phases and
datasets, their data files, published averages, system-card questions, definition jobs and
the audit log. Changes to the structure that any door can make are audited as from the
editor."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db import models as django_models

from competition import models, services
from competition.services.audit import audit_record, audit_structure


class AuditedChanges:
    """A model admin whose changes to a competition's structure (a phase's dates once runs
    exist, a task's scoring, through its form or its inlines) go to the audit log, as from
    the editor (`competition.services.audit.audit_structure`)."""

    def competition_of(self, object_id) -> models.Competition | None:
        raise NotImplementedError

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        competition = self.competition_of(object_id) if object_id else None
        with audit_structure(competition=competition, actor=request.user, source="the admin"):
            return super().changeform_view(request, object_id, form_url, extra_context)


class TaskInline(admin.TabularInline):
    model = models.Task
    extra = 0
    fields = ["slug", "kind", "title", "procedure", "primary_metric", "scorer_options", "order"]


class PhaseInline(admin.TabularInline):
    model = models.Phase
    extra = 0
    fields = [
        "slug",
        "kind",
        "title",
        "start",
        "end",
        "leaderboard_visibility",
        "daily_limit",
        "total_limit",
        "counts",
        "missing",
        "run_details",
        "time_zone",
        "order",
    ]


class SubCorpusInline(admin.TabularInline):
    model = models.SubCorpus
    extra = 0
    fields = ["name", "slug", "language", "file_name", "available", "key_file", "sha256", "order"]
    readonly_fields = ["sha256"]


class TrackInline(admin.TabularInline):
    model = models.Track
    extra = 0
    fields = ["slug", "name", "description", "order"]


@admin.register(models.Competition)
class CompetitionAdmin(AuditedChanges, admin.ModelAdmin):
    list_display = ["slug", "title", "created", "published_at", "owner"]
    search_fields = ["slug", "title"]
    filter_horizontal = ["organizers"]
    # Published and unpublished on the competition's publishing page only (its checklist, the
    # audit log, no going back once participants joined).
    readonly_fields = ["published_at"]
    inlines = [TaskInline]
    formfield_overrides = {django_models.URLField: {"assume_scheme": "https"}}

    def competition_of(self, object_id) -> models.Competition | None:
        return models.Competition.objects.filter(pk=object_id).first()

    def save_model(self, request, obj, form, change):
        """A new owner chosen here is in the audit log too, as every change of who organizes."""
        super().save_model(request, obj, form, change)
        if change and "owner" in form.changed_data and obj.owner is not None:
            audit_record(
                competition=obj,
                actor=request.user,
                action=models.AuditEntry.Action.ORGANIZER_ADDED,
                detail=f"{obj.owner.get_username()}, owner (in the admin)",
            )

    def save_related(self, request, form, formsets, change):
        """Organizers changed here are in the audit log too, as on the organizers page."""
        before = set(form.instance.organizers.all()) if change else set()
        super().save_related(request, form, formsets, change)
        after = set(form.instance.organizers.all())
        for user, action in [
            (u, models.AuditEntry.Action.ORGANIZER_ADDED)
            for u in sorted(after - before, key=lambda u: u.pk)
        ] + [
            (u, models.AuditEntry.Action.ORGANIZER_REMOVED)
            for u in sorted(before - after, key=lambda u: u.pk)
        ]:
            audit_record(
                competition=form.instance,
                actor=request.user,
                action=action,
                detail=f"{user.get_username()} (in the admin)",
            )


@admin.register(models.AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """The audit log is read, never written, here."""

    list_display = ["created_at", "competition", "actor", "action", "detail"]
    list_filter = ["competition", "action"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(models.Task)
class TaskAdmin(AuditedChanges, admin.ModelAdmin):
    list_display = ["__str__", "kind", "title", "procedure", "primary_metric", "order"]
    list_filter = ["competition", "kind"]
    inlines = [TrackInline, PhaseInline]

    def competition_of(self, object_id) -> models.Competition | None:
        task = models.Task.objects.filter(pk=object_id).select_related("competition").first()
        return task.competition if task else None


@admin.register(models.Track)
class TrackAdmin(admin.ModelAdmin):
    list_display = ["__str__", "slug", "name", "order"]
    list_filter = ["task__competition"]


@admin.action(description="Reveal the leaderboard now")
def reveal_phases(modeladmin, request, queryset):
    for phase in queryset:
        services.phase_reveal(phase=phase, actor=request.user)


@admin.action(description="Hide the leaderboard")
def hide_phases(modeladmin, request, queryset):
    for phase in queryset:
        services.phase_hide(phase=phase, actor=request.user)


@admin.action(description="Re-score every scored submission (keeps history)")
def rescore_phases(modeladmin, request, queryset):
    total = sum(len(services.phase_rescore(phase=phase, actor=request.user)) for phase in queryset)
    messages.info(request, f"{total} submissions queued for re-scoring.")


@admin.register(models.Phase)
class PhaseAdmin(AuditedChanges, admin.ModelAdmin):
    list_display = [
        "__str__",
        "kind",
        "start",
        "end",
        "leaderboard_visibility",
        "revealed_at",
        "daily_limit",
        "total_limit",
        "counts",
    ]
    list_filter = ["task__competition", "kind", "leaderboard_visibility"]
    inlines = [SubCorpusInline]
    actions = [reveal_phases, hide_phases, rescore_phases]

    def competition_of(self, object_id) -> models.Competition | None:
        phase = models.Phase.objects.filter(pk=object_id).select_related("task__competition")
        found = phase.first()
        return found.task.competition if found else None


@admin.register(models.SubCorpus)
class SubCorpusAdmin(admin.ModelAdmin):
    list_display = ["__str__", "available", "key_file", "sha256"]
    list_filter = ["phase__task__competition", "available"]


@admin.register(models.PhaseDataFile)
class PhaseDataFileAdmin(admin.ModelAdmin):
    """Attached on the phase's edit page, which refuses gold keys; read-only here."""

    list_display = ["file_name", "phase", "size", "release_at", "created_at"]
    list_filter = ["phase__task__competition"]
    readonly_fields = ["phase", "file_name", "path", "size", "sha256", "created_at"]

    def has_add_permission(self, request):
        return False


@admin.register(models.DefinitionJob)
class DefinitionJobAdmin(admin.ModelAdmin):
    """Written by the jobs that load large definitions and keys: shown, never edited."""

    list_display = ["competition", "kind", "file_name", "status", "created_at", "finished_at"]
    list_filter = ["kind", "status"]
    readonly_fields = [
        "competition",
        "kind",
        "phase",
        "params",
        "file_name",
        "path",
        "size",
        "status",
        "progress",
        "message",
        "created_by",
        "created_at",
        "finished_at",
    ]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(models.PublishedAverage)
class PublishedAverageAdmin(admin.ModelAdmin):
    """Written by the reference-results import (`services.references`): a published
    macro-average as printed, with its source. Re-import the file to change it."""

    list_display = ["team", "system", "metric", "mode", "average", "phase", "track", "source"]
    list_filter = ["phase__task__competition", "mode"]
    readonly_fields = [
        "phase",
        "track",
        "mode",
        "metric",
        "team",
        "system",
        "is_baseline",
        "average",
        "source",
        "order",
    ]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(models.SystemCardQuestion)
class SystemCardQuestionAdmin(admin.ModelAdmin):
    """Set from the editor (the CRAC questions) or a definition: shown, never edited here,
    so that every write goes through the competition's one writer."""

    list_display = ["competition", "slug", "text", "kind", "required", "on_board", "order"]
    list_filter = ["competition", "required"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
