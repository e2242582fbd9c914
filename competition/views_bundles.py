"""The staff's "Import a bundle" page: a CodaLab or Codabench bundle becomes a draft
competition; the result page lists what was imported, proposed and not imported. The
organizers' "Import results" page brings a phase's published results (CSV)."""

from __future__ import annotations

import tempfile
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
from competition.services.bundles import bundle_import, bundle_results_import
from competition.views_editor import refused_status


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
                        actor=request.user,
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
    return render(
        request, "competition/editor/bundle.html", {"form": form}, status=refused_status(form)
    )


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
    done = None
    if request.method == "POST" and form.is_valid():
        phase = next(p for p in phases if str(p.pk) == form.cleaned_data["phase"])
        upload = form.cleaned_data["results"]
        tmp = Path(settings.PRIVATE_ROOT) / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=tmp, suffix=".csv") as handle:
            for chunk in upload.chunks():
                handle.write(chunk)
            handle.flush()
            try:
                created, read = bundle_results_import(
                    phase=phase,
                    path=Path(handle.name),
                    source=form.cleaned_data["source"],
                    unit=form.cleaned_data["unit"],
                    name=upload.name,
                )
            except CompetitionError as exc:
                form.add_error(None, exc.message)
            else:
                done = {"phase": phase, "created": created, "read": read}
    return render(
        request,
        "competition/editor/bundle_results.html",
        {"competition": competition, "form": form, "done": done},
        status=refused_status(form),
    )
