"""Admin for frozen boards: list and inspect; they are created from the organizer page."""

from django.contrib import admin

from leaderboard.models import BoardSnapshot


@admin.register(BoardSnapshot)
class BoardSnapshotAdmin(admin.ModelAdmin):
    list_display = ["phase", "created_at", "created_by", "active", "note"]
    list_filter = ["active"]
    readonly_fields = ["phase", "created_at", "created_by", "data"]
    search_fields = ["phase__slug", "phase__task__competition__slug", "note"]
