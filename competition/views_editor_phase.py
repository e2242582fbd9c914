"""Pages of the organizers' editor for a phase (``edit/<competition>/<task>/<phase>/``: its
settings, sub-corpora and data files) and of a sub-corpus; the participants' phase page with
its Data section, and data downloads.

Each posted action is one function of the page's forms (`competition.views_editor`). A
competition's editor pages answer 404 to whoever does not organize it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from competition import selectors, selectors_editor, selectors_pages
from competition.definition import editions, editor
from competition.definition.editor import EditorError
from competition.forms_editor import (
    DataFileForm,
    PhaseCopyForm,
    PhaseForm,
    ReleaseForm,
    SubcorpusForm,
    aware,
)
from competition.lookups import found_or_404 as _or_404
from competition.models import DefinitionJob, Phase, PhaseDataFile
from competition.services.audit import audit_structure
from competition.timezones import zone_display
from competition.views_editor import (
    Action,
    EditorPage,
    act,
    action_of,
    posted,
    queued,
    refused,
    rescored,
)
from competition.wording import plural

# --- phases -----------------------------------------------------------------------------


@dataclass
class _PhasePage(EditorPage):
    phase: Phase
    form: PhaseForm
    sub_form: SubcorpusForm
    data_form: DataFileForm
    copy_form: PhaseCopyForm

    @classmethod
    def posted(cls, request: HttpRequest, phase: Phase) -> _PhasePage:
        action = action_of(request)
        post = partial(posted, request, action)
        return cls(
            request,
            action,
            phase,
            form=PhaseForm(post("save"), prefix="phase", initial=PhaseForm.initial_for(phase)),
            sub_form=SubcorpusForm(post("subcorpus"), post("subcorpus", files=True), prefix="sc"),
            data_form=DataFileForm(post("data"), post("data", files=True), prefix="data"),
            copy_form=PhaseCopyForm(
                post("copy"),
                prefix="copy",
                phases=editions.phase_copy_sources(phase=phase, user=request.user),
            ),
        )

    @property
    def here(self) -> str:
        phase = self.phase
        return reverse(
            "competition:edit_phase",
            args=[phase.task.competition.slug, phase.task.slug, phase.slug],
        )

    def refused(self, exc: EditorError) -> None:
        forms = {
            "save": self.form,
            "subcorpus": self.sub_form,
            "data": self.data_form,
            "copy": self.copy_form,
        }
        refused(self.request, forms.get(self.action or ""), exc)

    def data_row(self) -> PhaseDataFile:
        """The phase's data file the form names, or 404."""
        return _or_404(self.phase.data_files.filter(pk=self.request.POST.get("data")).first())


def _phase_copy(page: _PhasePage) -> HttpResponse | None:
    if not page.copy_form.is_valid():
        return None
    copied = editions.phase_subcorpora_copy(
        phase=page.phase,
        source=page.copy_form.cleaned_data["source"],
        user=page.request.user,
        with_keys=page.copy_form.cleaned_data["with_keys"],
    )
    messages.success(page.request, f"{len(copied)} sub-corpora were copied.")
    return redirect(page.here)


def _phase_save(page: _PhasePage) -> HttpResponse | None:
    form, found = page.form, page.phase
    if not form.is_valid():
        return None
    competition = found.task.competition
    with audit_structure(competition=competition, actor=page.request.user, source="the editor"):
        saved = editor.phase_save(
            task=found.task, phase=found, slug=form.cleaned_data["slug"], **form.phase_fields()
        )
    messages.success(page.request, "The phase was saved.")
    return redirect(
        "competition:edit_phase", slug=competition.slug, task=found.task.slug, phase=saved.slug
    )


def _phase_delete(page: _PhasePage) -> HttpResponse:
    found = page.phase
    editor.phase_delete(phase=found)
    messages.success(page.request, f"The phase {found.title} was deleted.")
    return redirect("competition:edit_task", slug=found.task.competition.slug, task=found.task.slug)


def _phase_subcorpus_add(page: _PhasePage) -> HttpResponse | None:
    if not page.sub_form.is_valid():
        return None
    started = editor.subcorpus_save_start(
        phase=page.phase, user=page.request.user, **page.sub_form.cleaned_data
    )
    if isinstance(started, DefinitionJob):
        queued(page.request, started)
        return redirect(page.here)
    documents = plural(len(started.subcorpus.documents), "document")
    messages.success(
        page.request,
        f"The sub-corpus {started.subcorpus.name} was added ({documents} in its key).",
    )
    return redirect(page.here)


def _phase_data_attach(page: _PhasePage) -> HttpResponse | None:
    if not page.data_form.is_valid():
        return None
    data = page.data_form.cleaned_data
    attached = editor.phase_data_attach(
        phase=page.phase,
        upload=data["file"],
        description=data["description"],
        release_at=aware(data["release_at"], page.phase.time_zone),
        public_key=data["public_key"],
    )
    messages.success(page.request, f"{attached.file_name} was attached.")
    return redirect(page.here)


def _phase_data_release(page: _PhasePage) -> HttpResponse:
    row, zone = page.data_row(), page.phase.time_zone
    release = ReleaseForm(page.request.POST)
    if not release.is_valid():
        raise EditorError("bad_release", reason=release.errors["release_at"][0])
    editor.phase_data_update(
        data=row,
        description=row.description,
        release_at=aware(release.cleaned_data["release_at"], zone),
    )
    messages.success(
        page.request, f"{row.file_name} is released {zone_display(row.released_at, zone)}."
    )
    return redirect(page.here)


def _phase_data_remove(page: _PhasePage) -> HttpResponse:
    row = page.data_row()
    editor.phase_data_remove(data=row)
    messages.success(page.request, f"{row.file_name} was removed.")
    return redirect(page.here)


PHASE_ACTIONS: dict[str, Action[_PhasePage]] = {
    "copy": _phase_copy,
    "save": _phase_save,
    "delete": _phase_delete,
    "subcorpus": _phase_subcorpus_add,
    "data": _phase_data_attach,
    "release": _phase_data_release,
    "remove_data": _phase_data_remove,
}


@login_required
def phase_edit(request: HttpRequest, slug: str, task: str, phase: str) -> HttpResponse:
    found = _or_404(
        selectors_editor.phase_for_organizer(slug=slug, task=task, phase=phase, user=request.user)
    )
    page = _PhasePage.posted(request, found)
    try:
        if (done := act(PHASE_ACTIONS, page)) is not None:
            return done
    except EditorError as exc:
        page.refused(exc)
    jobs = selectors_editor.definition_jobs(competition=found.task.competition, phase=found)
    return render(
        request,
        "competition/editor/phase.html",
        {
            "competition": found.task.competition,
            "task": found.task,
            "phase": found,
            "form": page.form,
            "sub_form": page.sub_form,
            "data_form": page.data_form,
            "copy_form": page.copy_form,
            "subcorpora": found.subcorpora.all(),
            "data_rows": selectors_editor.phase_data_rows(phase=found, user=request.user),
            "submission_count": found.submissions.count(),
            "jobs": jobs,
            "jobs_pending": any(job.is_pending for job in jobs),
        },
    )


@login_required
def subcorpus_edit(
    request: HttpRequest, slug: str, task: str, phase: str, subcorpus: str
) -> HttpResponse:
    found = _or_404(
        selectors_editor.subcorpus_for_organizer(
            slug=slug, task=task, phase=phase, subcorpus=subcorpus, user=request.user
        )
    )
    action = request.POST.get("action") if request.method == "POST" else None
    form = SubcorpusForm(
        request.POST if action == "save" else None,
        request.FILES if action == "save" else None,
        prefix="sc",
        initial={
            "name": found.name,
            "language": found.language,
            "file_name": found.file_name,
            "available": found.available,
        },
    )
    back = reverse("competition:edit_phase", args=[slug, task, phase])
    try:
        if action == "save" and form.is_valid():
            saved = editor.subcorpus_save_start(
                phase=found.phase, subcorpus=found, user=request.user, **form.cleaned_data
            )
            if isinstance(saved, DefinitionJob):
                queued(request, saved)
                return redirect(back)
            messages.success(request, f"The sub-corpus {saved.subcorpus.name} was saved.")
            rescored(request, saved.rescored)
            return redirect(back)
        if action == "delete":
            editor.subcorpus_delete(subcorpus=found)
            messages.success(request, f"The sub-corpus {found.name} was deleted.")
            return redirect(back)
    except EditorError as exc:
        refused(request, form if action == "save" else None, exc)
    return render(
        request,
        "competition/editor/subcorpus.html",
        {
            "competition": found.phase.task.competition,
            "task": found.phase.task,
            "phase": found.phase,
            "subcorpus": found,
            "form": form,
            "submission_count": found.files.values("submission").distinct().count(),
        },
    )


# --- participants: the phase page and its data ------------------------------------------


@require_GET
def phase_page(request: HttpRequest, slug: str, task: str, phase: str) -> HttpResponse:
    try:
        found = selectors.phase_get(
            competition_slug=slug, task_slug=task, phase_slug=phase, user=request.user
        )
    except Phase.DoesNotExist:
        raise Http404("No such phase.") from None
    competition = found.task.competition
    return render(
        request,
        "competition/editor/phase_page.html",
        {
            "competition": competition,
            "task": found.task,
            "phase": found,
            "now": timezone.now(),
            "subcorpora": found.subcorpora.all(),
            "team": selectors.team_for_user(competition=competition, user=request.user),
            "is_organizer": selectors.user_is_organizer(competition=competition, user=request.user),
            "data_rows": selectors_editor.phase_data_rows(phase=found, user=request.user),
            "data_block": selectors_pages.data_access_block(
                competition=competition, user=request.user
            ),
        },
    )


@require_GET
def data_download(request: HttpRequest, pk: int, file_name: str) -> FileResponse:
    """A phase's data file, for whoever may download it now; 404 to everybody else (the
    same answer as for a file that does not exist)."""
    data = _or_404(
        selectors_editor.data_file_for_download(pk=pk, file_name=file_name, user=request.user)
    )
    if not data.absolute_path.is_file():
        raise Http404("No such file.")
    response = FileResponse(
        open(data.absolute_path, "rb"), as_attachment=True, filename=data.file_name
    )
    response["Cache-Control"] = "private, no-store"
    return response
