"""The staff's "Import a bundle" page: a CodaLab or Codabench bundle becomes a draft
competition; the result page lists what was imported, proposed and not imported. The
organizers' "Import results" page brings a phase's published results (CSV)."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from competition.definition.bundle_import import (
    ResultsUnmapped,
    bundle_import_start,
    bundle_job_report,
    bundle_results_import,
)
from competition.definition.upload import definition_job_bytes
from competition.errors import CompetitionError
from competition.forms_editor import BundleImportForm, BundleResultsForm
from competition.models import DefinitionJob, Phase
from competition.selectors_editor import competition_for_organizer
from competition.views_editor import refused_status


@staff_member_required
def bundle_import_view(request: HttpRequest) -> HttpResponse:
    """Import a bundle: now when it is small, else by a job whose page shows its progress
    (the request only stores the upload)."""
    form = BundleImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            result = bundle_import_start(
                upload=form.cleaned_data["bundle"],
                owner=form.cleaned_data["owner"].strip(),
                slug=form.cleaned_data["slug"],
                user=request.user,
            )
        except CompetitionError as exc:
            form.add_error(None, exc.message)
        else:
            if isinstance(result, DefinitionJob):
                return redirect("competition:bundle_job", job_id=result.pk)
            return render(
                request,
                "competition/editor/bundle_done.html",
                {"result": result, "competition": result.competition, "report": result.report},
            )
    return render(
        request,
        "competition/editor/bundle.html",
        {"form": form, "job_bytes": definition_job_bytes()},
        status=refused_status(form),
    )


@staff_member_required
def bundle_job_view(request: HttpRequest, job_id: int) -> HttpResponse:
    """How far a large bundle's import is; its report once done (the page refreshes itself
    while the job runs)."""
    try:
        job = get_object_or_404(
            DefinitionJob.objects.select_related("competition"),
            pk=job_id,
            kind=DefinitionJob.Kind.BUNDLE,
        )
        report = bundle_job_report(job)
    except OperationalError:  # SQLite locks the tables while the job writes the competition
        return render(request, "competition/editor/bundle_job.html", {"busy": True})
    return render(
        request,
        "competition/editor/bundle_job.html",
        {"job": job, "report": report, "competition": job.competition},
    )


PENDING = re.compile(r"^[0-9a-f]{32}$")


def _pending_path(competition, token: str) -> Path:
    """Where a results file waits for "apply anyway" (one competition's, by its token): kept
    apart from the scratch folder, which a refused upload leaves empty."""
    return Path(settings.PRIVATE_ROOT) / "results-pending" / f"{competition.pk}-{token}.csv"


@login_required
def bundle_results_view(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_for_organizer(slug=slug, user=request.user)
    if competition is None:
        raise Http404("No such page.")
    phases = list(
        Phase.objects.filter(task__competition=competition)
        .select_related("task")
        .order_by("task__order", "order")
    )
    form = BundleResultsForm(request.POST or None, request.FILES or None, phases=phases)
    done = unmapped = None
    error = ""
    if request.method == "POST" and PENDING.match(request.POST.get("pending", "")):
        form = BundleResultsForm(None, phases=phases)
        done, error = _results_apply_anyway(request, competition, phases)
    elif request.method == "POST" and form.is_valid():
        phase = next(p for p in phases if str(p.pk) == form.cleaned_data["phase"])
        upload = form.cleaned_data["results"]
        token = uuid.uuid4().hex
        path = _pending_path(competition, token)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            for chunk in upload.chunks():
                handle.write(chunk)
        try:
            created, read = bundle_results_import(
                phase=phase,
                path=path,
                source=form.cleaned_data["source"],
                unit=form.cleaned_data["unit"],
                name=upload.name,
            )
        except ResultsUnmapped as exc:  # kept for "apply anyway"
            unmapped = {
                "read": exc.read,
                "message": exc.message,
                "token": token,
                "phase": phase,
                "source": form.cleaned_data["source"],
                "unit": form.cleaned_data["unit"],
                "name": upload.name,
            }
        except CompetitionError as exc:
            path.unlink(missing_ok=True)
            form.add_error(None, exc.message)
        else:
            path.unlink(missing_ok=True)
            done = {"phase": phase, "created": created, "read": read}
    return render(
        request,
        "competition/editor/bundle_results.html",
        {
            "competition": competition,
            "form": form,
            "done": done,
            "unmapped": unmapped,
            "error": error,
        },
        status=refused_status(form),
    )


def _results_apply_anyway(request: HttpRequest, competition, phases) -> tuple[dict | None, str]:
    """Import the columns that map of a results file kept by an earlier attempt."""
    path = _pending_path(competition, request.POST["pending"])
    phase = next((p for p in phases if str(p.pk) == request.POST.get("phase")), None)
    name = Path(request.POST.get("name", "") or "results.csv").name
    if phase is None or not path.is_file():
        return None, "That results file is no longer waiting: upload it again."
    try:
        created, read = bundle_results_import(
            phase=phase,
            path=path,
            source=request.POST.get("source", ""),
            unit=request.POST.get("unit", "auto"),
            name=name,
            apply_anyway=True,
        )
    except CompetitionError as exc:
        return None, exc.message
    finally:
        path.unlink(missing_ok=True)
    return {"phase": phase, "created": created, "read": read}, ""
