"""Frozen boards: the official record of a leaderboard at a moment (e.g. the deadline).

A `BoardSnapshot` stores the *raw material* of a board (every scored run with its scores per
metric and sub-corpus, as JSON), not rendered rows, so the frozen board is ranked, filtered and
sorted by exactly the same code and the same visibility rules as the live one, and every metric
that was stored at freezing time stays selectable. The newest active snapshot of a phase is
the board participants see; organizers can still look at the live board.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class BoardSnapshot(models.Model):
    phase = models.ForeignKey(
        "competition.Phase", on_delete=models.CASCADE, related_name="board_snapshots"
    )
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    note = models.CharField(max_length=300, blank=True)
    # False once an organizer unfreezes the board; the snapshot itself is kept as history.
    active = models.BooleanField(default=True)
    # {"subcorpora": [{"slug", "name", "available"}], "primary_metric": str,
    #  "entries": [{submission fields..., "scores": {mode: {metric: {slug: [r, p, f1]}}}}]}
    data = models.JSONField(default=dict)
    # The public JSON document of the frozen board (`leaderboard.frozen`), encoded once at
    # the freeze and served as stored: the bytes, their gzip form and their ETag. Empty for
    # a snapshot written before they were stored (then encoded on request, as before).
    document = models.BinaryField(default=b"", editable=False)
    document_gzip = models.BinaryField(default=b"", editable=False)
    document_etag = models.CharField(max_length=80, blank=True, editable=False)

    class Meta:
        ordering = ["phase", "-created_at", "-id"]
        indexes = [models.Index(fields=["phase", "active"], name="snapshot_phase_active")]

    def __str__(self) -> str:
        return f"board of {self.phase} frozen at {self.created_at:%Y-%m-%d %H:%M} UTC"
