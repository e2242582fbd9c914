"""The admin of what participants read and accept: pages, participation rules, terms
accepted, announcements and their opt-outs, deadline reminders."""

from __future__ import annotations

from django.contrib import admin

from competition import models


@admin.register(models.CompetitionPage)
class CompetitionPageAdmin(admin.ModelAdmin):
    list_display = ["competition", "kind", "updated_at", "updated_by"]
    list_filter = ["kind", "competition"]


@admin.register(models.ParticipationRules)
class ParticipationRulesAdmin(admin.ModelAdmin):
    list_display = ["competition", "team_approval", "deadline_reminders"]


@admin.register(models.TermsAcceptance)
class TermsAcceptanceAdmin(admin.ModelAdmin):
    list_display = ["competition", "user", "accepted_at", "terms_sha256"]
    list_filter = ["competition"]
    readonly_fields = ["competition", "user", "accepted_at", "terms_sha256"]


@admin.register(models.Announcement)
class AnnouncementAdmin(admin.ModelAdmin):
    list_display = ["competition", "title", "created_at", "emailed_at", "emailed_to"]
    list_filter = ["competition"]
    readonly_fields = ["emailed_at", "emailed_to"]


@admin.register(models.AnnouncementOptOut)
class AnnouncementOptOutAdmin(admin.ModelAdmin):
    list_display = ["competition", "user", "created_at"]


@admin.register(models.DeadlineReminder)
class DeadlineReminderAdmin(admin.ModelAdmin):
    list_display = ["phase", "team", "sent_at", "emailed_to"]
