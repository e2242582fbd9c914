"""The record of a phase: the organizer's results package (one zip, organizers only) and
the stable JSON document of each frozen board (everyone who may see the phase's board),
sent as the bytes encoded at the freeze (`leaderboard.frozen`), with an ETag (a request
naming it gets 304) and gzip-compressed where the client accepts it."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from competition.visibility import Visibility, phase_visibility
from leaderboard.frozen import document_etag, frozen_board_bytes
from leaderboard.models import BoardSnapshot
from leaderboard.package import phase_results_package
from leaderboard.views_organize import _organizer_phase_or_404


@require_GET
def frozen_board_json(
    request: HttpRequest, competition: str, task: str, phase: str, snapshot_id: int
) -> HttpResponse:
    snapshot = get_object_or_404(
        # the stored scores and document are large: read only what this request sends
        BoardSnapshot.objects.select_related("phase__task__competition").defer(
            "data", "document", "document_gzip"
        ),
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
    if not snapshot.document_etag:  # written before the document was stored: encode it
        body = frozen_board_bytes(snapshot)
        etag, zipped = document_etag(body), False
    else:
        etag = snapshot.document_etag
        zipped = _accepts_gzip(request.headers.get("Accept-Encoding", ""))
    headers = {"ETag": etag, "Cache-Control": "public, max-age=86400", "Vary": "Accept-Encoding"}
    if etag in _etags(request.headers.get("If-None-Match", "")):
        return HttpResponseNotModified(headers=headers)
    if snapshot.document_etag:  # the one stored form the client takes, read alone
        column = "document_gzip" if zipped else "document"
        body = bytes(BoardSnapshot.objects.values_list(column, flat=True).get(pk=snapshot.pk))
        if zipped:
            headers["Content-Encoding"] = "gzip"
    return HttpResponse(body, content_type="application/json", headers=headers)


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _accepts_gzip(header: str) -> bool:
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


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
