"""The staff's "Import a bundle" page: a CodaLab or Codabench bundle becomes a draft
competition; the result page lists what was imported, proposed and not imported. The
organizers' "Import results" page brings a phase's published results (CSV)."""

from __future__ import annotations

import re
import tempfile
import uuid
from pathlib import Path

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from competition.bundles.archive import BundleLimits
from competition.errors import CompetitionError
from competition.forms_editor import BundleImportForm, BundleResultsForm
from competition.models import Phase
from competition.selectors_editor import competition_for_organizer
from competition.services.bundles import (
    ResultsUnmapped,
    bundle_import,
    bundle_results_import,
)


@staff_member_required
def bundle_import_view(request: HttpRequest) -> HttpResponse:
    form = BundleImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["bundle"]
        limit = BundleLimits.current().bytes
        if upload.size > limit:
            form.add_error("bundle", f"{upload.name}: larger than the limit of {limit} bytes")
        else:
            tmp = Path(settings.PRIVATE_ROOT) / "tmp"
            tmp.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=tmp, suffix=".zip") as handle:
                for chunk in upload.chunks():
                    handle.write(chunk)
                handle.flush()
                try:
                    result = bundle_import(
                        path=Path(handle.name),
                        name=upload.name,
                        owner=form.cleaned_data["owner"].strip(),
                        slug=form.cleaned_data["slug"],
                    )
                except CompetitionError as exc:
                    form.add_error(None, exc.message)
                else:
                    return render(
                        request,
                        "competition/editor/bundle_done.html",
                        {
                            "result": result,
                            "competition": result.competition,
                            "report": result.report,
                        },
                    )
    return render(request, "competition/editor/bundle.html", {"form": form})


PENDING = re.compile(r"^[0-9a-f]{32}$")


def _pending_path(competition, token: str) -> Path:
    """Where a results file waits for "apply anyway" (one competition's, by its token)."""
    return Path(settings.PRIVATE_ROOT) / "tmp" / "results" / f"{competition.pk}-{token}.csv"


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
