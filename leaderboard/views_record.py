"""The record of a phase: the organizer's results package (one zip, organizers only) and
the stable JSON document of each frozen board (everyone who may see the phase's board).

A frozen board's document is built from its `BoardSnapshot` alone, which is never changed
once written, and is the same for every viewer: the runs the public board shows (no
disqualified or failed run), each number with the procedure, scorer version and data
version (the gold key's SHA-256) it was computed with. Snapshots taken before the data
versions were recorded say ``null`` there rather than reading today's keys.
"""

from __future__ import annotations

import json

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from competition.visibility import Visibility, phase_visibility
from leaderboard.models import BoardSnapshot
from leaderboard.package import phase_results_package
from leaderboard.views_organize import _organizer_phase_or_404

_ENTRY_FIELDS = (
    "submission_id",
    "team",
    "run_name",
    "submitted_at",
    "is_baseline",
    "is_reference",
    "source",
    "track",
    "procedure",
    "scorer_version",
)


def frozen_board_document(snapshot: BoardSnapshot) -> dict:
    """The public content of one frozen board (see the module docstring)."""
    phase = snapshot.phase
    data = snapshot.data or {}
    entries = []
    for entry in data.get("entries", []):
        if entry.get("disqualified") or entry.get("status") != "scored":
            continue
        keys = entry.get("keys")
        numbers = []
        for mode, metrics in sorted((entry.get("scores") or {}).items()):
            for metric, cells in sorted(metrics.items()):
                for slug, values in sorted(cells.items()):
                    numbers.append(
                        {
                            "mode": mode,
                            "metric": metric,
                            "subcorpus": slug,
                            "recall": values[0],
                            "precision": values[1],
                            "f1": values[2],
                            "procedure": entry.get("procedure") or None,
                            "scorer_version": entry.get("scorer_version") or None,
                            "data_version": None if keys is None else keys.get(slug),
                        }
                    )
        entries.append({**{name: entry.get(name) for name in _ENTRY_FIELDS}, "scores": numbers})
    return {
        "snapshot": snapshot.pk,
        "competition": phase.task.competition.slug,
        "task": phase.task.slug,
        "phase": phase.slug,
        "frozen_at": snapshot.created_at.isoformat(),
        "note": snapshot.note,
        "primary_metric": data.get("primary_metric"),
        "subcorpora": data.get("subcorpora", []),
        "data_versions": data.get("data_versions"),
        "entries": entries,
    }


@require_GET
def frozen_board_json(
    request: HttpRequest, competition: str, task: str, phase: str, snapshot_id: int
) -> HttpResponse:
    snapshot = get_object_or_404(
        BoardSnapshot.objects.select_related("phase__task__competition"),
        pk=snapshot_id,
        phase__slug=phase,
        phase__task__slug=task,
        phase__task__competition__slug=competition,
    )
    if phase_visibility(phase=snapshot.phase, user=request.user) not in (
        Visibility.ALL,
        Visibility.PUBLIC,
    ):
        raise Http404("no such board")
    body = json.dumps(frozen_board_document(snapshot), sort_keys=True, ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json")
    response["Cache-Control"] = "public, max-age=86400"
    return response


@require_GET
def results_package_zip(
    request: HttpRequest, competition: str, task: str, phase: str
) -> HttpResponse:
    """The phase's results package for the overview paper (`leaderboard.package`).
    Organizers only (404 to everyone else)."""
    phase_obj = _organizer_phase_or_404(request, competition, task, phase)
    data = phase_results_package(phase=phase_obj, viewer=request.user)
    name = slugify(f"{competition}-{task}-{phase}-results")
    return HttpResponse(
        data,
        content_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}.zip"'},
    )
