"""The record of a phase: the organizer's results package (one zip, organizers only) and
the stable JSON document of each frozen board (everyone who may see the phase's board),
sent as the bytes encoded at the freeze, from their file (`leaderboard.frozen.document_file`),
with an ETag (a request naming it gets 304) and gzip-compressed where the client accepts it."""

from __future__ import annotations

from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods

from competition.models import Phase
from competition.visibility import Visibility, phase_visibility
from leaderboard.frozen import (
    document_etag,
    document_file,
    frozen_board_bytes,
    stored_document_file,
)
from leaderboard.models import BoardSnapshot
from leaderboard.package import phase_results_package
from leaderboard.package_jobs import package_job, package_job_file, package_job_start
from leaderboard.views_organize import _organizer_phase_or_404


@require_GET
def frozen_board_json(
    request: HttpRequest, competition: str, task: str, phase: str, snapshot_id: int
) -> HttpResponse:
    phase_obj = get_object_or_404(
        Phase.objects.select_related("task__competition"),
        slug=phase,
        task__slug=task,
        task__competition__slug=competition,
    )
    if phase_visibility(phase=phase_obj, user=request.user) not in (
        Visibility.ALL,
        Visibility.PUBLIC,
    ):
        raise Http404("no such board")
    zipped = _accepts_gzip(request.headers.get("Accept-Encoding", ""))
    found = stored_document_file(phase_id=phase_obj.pk, snapshot_id=snapshot_id, zipped=zipped)
    if found is None:  # no file here yet, or a snapshot from before they were written
        return _document_from_row(request, phase_obj, snapshot_id, zipped=zipped)
    path, etag = found
    return _stored_document(
        request, path, etag=etag, zipped=zipped, name=_name(phase_obj, snapshot_id)
    )


def _name(phase: Phase, snapshot_id: int) -> str:
    return slugify(
        f"{phase.task.competition.slug}-{phase.task.slug}-{phase.slug}-frozen-{snapshot_id}"
    )


def _headers(etag: str) -> dict[str, str]:
    return {"ETag": etag, "Cache-Control": "public, max-age=86400", "Vary": "Accept-Encoding"}


def _document_from_row(
    request: HttpRequest, phase: Phase, snapshot_id: int, *, zipped: bool
) -> HttpResponse:
    """The document of a snapshot whose file is not found: its stored form's file written
    from its row, or (a snapshot from before the document was stored) encoded now."""
    snapshot = get_object_or_404(
        # the stored scores and document are large: read only what this request sends
        BoardSnapshot.objects.select_related("phase__task__competition").defer(
            "data", "document", "document_gzip"
        ),
        pk=snapshot_id,
        phase=phase,
    )
    if snapshot.document_etag:
        path = document_file(snapshot, zipped=zipped)
        name = _name(phase, snapshot_id)
        return _stored_document(
            request, path, etag=snapshot.document_etag, zipped=zipped, name=name
        )
    body = frozen_board_bytes(snapshot)
    headers = _headers(document_etag(body))
    if headers["ETag"] in _etags(request.headers.get("If-None-Match", "")):
        return HttpResponseNotModified(headers=headers)
    return HttpResponse(body, content_type="application/json", headers=headers)


def _stored_document(
    request: HttpRequest, path, *, etag: str, zipped: bool, name: str
) -> HttpResponse:
    """The stored file, sent as it lies (the server's CPU the same however large the board),
    or 304 to a request that names its ETag."""
    headers = _headers(etag)
    if etag in _etags(request.headers.get("If-None-Match", "")):
        return HttpResponseNotModified(headers=headers)
    if zipped:
        headers["Content-Encoding"] = "gzip"
    response = StoredFileResponse(
        open(path, "rb"),  # noqa: SIM115 (the response closes it)
        content_type="application/json",
        filename=f"{name}.json",
    )
    for header, value in headers.items():
        response[header] = value
    return response


class StoredFileResponse(FileResponse):
    """A stored file sent as it lies on disk; its bytes can also be read whole as
    ``content`` (read once, then kept), as a caller reads an `HttpResponse`'s."""

    _whole: bytes | None = None

    @property
    def content(self) -> bytes:
        if self._whole is None:
            self._whole = b"".join(self.streaming_content)
        return self._whole


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


@require_http_methods(["GET", "POST"])
def results_package_progress(
    request: HttpRequest, competition: str, task: str, phase: str
) -> HttpResponse:
    """POST: build the phase's results package as a job (`leaderboard.package_jobs`); GET:
    its progress page (``?format=json``: the progress alone), with the download once it is
    done. Organizers only (404 to everyone else)."""
    phase_obj = _organizer_phase_or_404(request, competition, task, phase)
    if request.method == "POST":
        package_job_start(phase=phase_obj, user=request.user)
        return redirect("leaderboard:results_package_progress", competition, task, phase)
    job = package_job(phase=phase_obj, user=request.user)
    if request.GET.get("format") == "json":
        if job is None:
            raise Http404("no package asked for")
        return JsonResponse(
            {"state": job.state, "done": job.done, "total": job.total, "error": job.error}
        )
    return render(
        request,
        "leaderboard/package_progress.html",
        {
            "competition": phase_obj.task.competition,
            "task": phase_obj.task,
            "phase": phase_obj,
            "job": job,
        },
    )


@require_GET
def results_package_download(
    request: HttpRequest, competition: str, task: str, phase: str
) -> HttpResponse:
    """The zip the organizer's package job built (404 until it is done)."""
    phase_obj = _organizer_phase_or_404(request, competition, task, phase)
    job = package_job(phase=phase_obj, user=request.user)
    path = package_job_file(job) if job is not None and job.state == "done" else None
    if path is None or not path.is_file():
        raise Http404("the package is not built")
    name = slugify(f"{competition}-{task}-{phase}-results")
    return FileResponse(
        open(path, "rb"),  # noqa: SIM115 (the response closes it)
        as_attachment=True,
        filename=f"{name}.zip",
        content_type="application/zip",
    )
