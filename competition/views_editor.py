"""Pages of the organizers' editor for a competition and its tasks (``edit/<competition>/…``)
and the staff's "new competition" page; a phase's and a sub-corpus's are in
`competition.views_editor_phase`.

Each view parses the request, calls one service or selector, and renders. A page with
several forms posts one of them, named by ``action``: each action is one function of the
page's forms, found in a table (``COMPETITION_ACTIONS``, ``TASK_ACTIONS``). A competition's
pages answer 404 to whoever does not organize it (staff included by the policy,
competition.visibility).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from competition import selectors, selectors_editor
from competition.definition import editions, editor
from competition.definition import upload as definition_upload
from competition.definition.editor import EditorError
from competition.errors import CompetitionError, DefinitionError
from competition.forms_editor import (
    CloneForm,
    CompetitionCreateForm,
    CompetitionForm,
    DefinitionUploadForm,
    PhaseForm,
    TaskForm,
    TrackForm,
)
from competition.lookups import found_or_404 as _or_404
from competition.models import Competition, DefinitionJob, Task, Track
from competition.services.audit import audit_definition_load, audit_structure


def refused(request: HttpRequest, form, exc: CompetitionError) -> None:
    """Put a refusal on the form field at fault, or on the form."""
    field = getattr(exc, "field", None)
    if form is not None and field in getattr(form, "fields", {}):
        form.add_error(field, exc.message)
    elif form is not None:
        form.add_error(None, exc.message)
    else:
        messages.error(request, exc.message)


def rescored(request: HttpRequest, runs) -> None:
    if runs:
        messages.info(
            request,
            f"{len(runs)} scored submissions are being re-scored "
            "against the changed key or scoring.",
        )


def queued(request: HttpRequest, job: DefinitionJob) -> None:
    where = (
        "under Definition file"
        if job.kind == DefinitionJob.Kind.DEFINITION
        else "under Sub-corpora"
    )
    messages.info(
        request,
        f"{job.file_name} is large: it is being read by a job. Its progress is shown {where}.",
    )


def refused_status(*forms) -> int:
    """400 when a posted form was refused (its errors shown on the page), else 200: a
    refusal is the client's error, never a success nor a server error."""
    return 400 if any(form is not None and form.is_bound and form.errors for form in forms) else 200


# --- staff: new competition -------------------------------------------------------------


@staff_member_required
def competition_new(request: HttpRequest) -> HttpResponse:
    # the staff member creating it organizes it unless they name someone else
    form = CompetitionCreateForm(
        request.POST or None, initial={"owner": request.user.get_username()}
    )
    if request.method == "POST" and form.is_valid():
        try:
            competition = editor.competition_create(**form.cleaned_data, actor=request.user)
        except EditorError as exc:
            refused(request, form, exc)
        else:
            messages.success(
                request,
                f"{competition.title} was created; {form.cleaned_data['owner']} organizes it.",
            )
            return redirect("competition:edit", slug=competition.slug)
    return render(request, "competition/editor/new.html", {"form": form})


# --- competition ------------------------------------------------------------------------
# The editor's pages post one form each, named by ``action``; each action is a function of
# the page's forms (`_CompetitionPage`, `_TaskPage`, `_PhasePage`) that answers a redirect
# once done, or None to show the page again with the form's errors.

P = TypeVar("P", bound="EditorPage")
Action = Callable[[P], HttpResponse | None]


@dataclass
class EditorPage:
    request: HttpRequest
    action: str | None


def action_of(request: HttpRequest) -> str | None:
    return request.POST.get("action") if request.method == "POST" else None


def posted(request: HttpRequest, action: str | None, name: str, files: bool = False) -> Any:
    """The posted data (``files``: the posted files) for the form of the action ``name``;
    None, an unbound form, when another action was posted."""
    if action != name:
        return None
    return request.FILES if files else request.POST


def act(actions: Mapping[str, Action[P]], page: P) -> HttpResponse | None:
    act = actions.get(page.action or "")
    return act(page) if act is not None else None


@dataclass
class _CompetitionPage(EditorPage):
    competition: Competition
    form: CompetitionForm
    task_form: TaskForm
    upload_form: DefinitionUploadForm
    clone_form: CloneForm

    @classmethod
    def posted(cls, request: HttpRequest, competition: Competition) -> _CompetitionPage:
        action = action_of(request)
        post = partial(posted, request, action)
        return cls(
            request,
            action,
            competition,
            form=CompetitionForm(
                post("save"),
                initial={
                    "title": competition.title,
                    "description": competition.description,
                    "website": competition.website,
                },
            ),
            task_form=TaskForm(post("task"), prefix="task"),
            upload_form=DefinitionUploadForm(post("upload"), post("upload", files=True)),
            clone_form=CloneForm(
                post("clone"), prefix="clone", initial={"title": competition.title}
            ),
        )

    def refused(self, exc: EditorError) -> None:
        forms = {"save": self.form, "task": self.task_form, "clone": self.clone_form}
        refused(self.request, forms.get(self.action or ""), exc)


def _competition_clone(page: _CompetitionPage) -> HttpResponse | None:
    if not page.clone_form.is_valid():
        return None
    competition = page.competition
    clone = editions.competition_clone(
        source=competition, user=page.request.user, **page.clone_form.cleaned_data
    )
    messages.success(
        page.request,
        f"{clone.title} was made as a draft copy of {competition.title}; check its dates and keys.",
    )
    return redirect("competition:edit", slug=clone.slug)


def _competition_save(page: _CompetitionPage) -> HttpResponse | None:
    if not page.form.is_valid():
        return None
    editor.competition_update(competition=page.competition, **page.form.cleaned_data)
    messages.success(page.request, "The competition was saved.")
    return redirect("competition:edit", slug=page.competition.slug)


def _competition_task_add(page: _CompetitionPage) -> HttpResponse | None:
    form = page.task_form
    if not form.is_valid():
        return None
    data = form.cleaned_data
    task, _ = editor.task_save(
        competition=page.competition,
        slug=data["slug"],
        kind=data["kind"],
        title=data["title"],
        description=data["description"],
        procedure=data["procedure"],
        scorer_options=form.cleaned_options(),
        primary_metric=data["primary_metric"],
    )
    messages.success(page.request, f"The task {task.title} was added; add its phases.")
    return redirect("competition:edit_task", slug=page.competition.slug, task=task.slug)


def _competition_upload(page: _CompetitionPage) -> HttpResponse | None:
    if not page.upload_form.is_valid():
        return None
    request, competition = page.request, page.competition
    upload = page.upload_form.cleaned_data["definition"]
    source = f"the uploaded {upload.name}"
    with audit_structure(competition=competition, actor=request.user, source=source):
        load = definition_upload.definition_upload_start(
            competition=competition, upload=upload, user=request.user
        )
    if isinstance(load, DefinitionJob):
        queued(request, load)
        return redirect("competition:edit", slug=competition.slug)
    audit_definition_load(load=load, actor=request.user, source=source)
    note = f" Removed: {', '.join(load.removed)}." if load.removed else ""
    messages.success(request, "The definition was loaded." + note)
    rescored(request, load.rescored)
    return redirect("competition:edit", slug=competition.slug)


COMPETITION_ACTIONS: dict[str, Action[_CompetitionPage]] = {
    "clone": _competition_clone,
    "save": _competition_save,
    "task": _competition_task_add,
    "upload": _competition_upload,
}


@login_required
def competition_edit(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _or_404(selectors_editor.competition_for_organizer(slug=slug, user=request.user))
    page = _CompetitionPage.posted(request, competition)
    try:
        if (done := act(COMPETITION_ACTIONS, page)) is not None:
            return done
    except DefinitionError as exc:
        page.upload_form.add_error("definition", exc.message)
    except EditorError as exc:
        page.refused(exc)
    return _competition_render(page)


def _competition_render(page: _CompetitionPage) -> HttpResponse:
    request = page.request
    competition = selectors.competition_detail(slug=page.competition.slug, user=request.user)
    jobs = selectors_editor.definition_jobs(competition=competition)
    forms = (page.form, page.task_form, page.upload_form, page.clone_form)
    return render(
        request,
        "competition/editor/competition.html",
        {
            "jobs": jobs,
            "jobs_pending": any(job.is_pending for job in jobs),
            "competition": competition,
            "form": page.form,
            "task_form": page.task_form,
            "upload_form": page.upload_form,
            "clone_form": page.clone_form,
            "organizers": competition.organizers.order_by("username"),
        },
        status=refused_status(*forms),
    )


@login_required
@require_GET
def definition_download(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    competition = _or_404(selectors_editor.competition_for_organizer(slug=slug, user=request.user))
    if fmt == "zip":
        archive = definition_upload.competition_definition_zip(competition=competition)
        response = HttpResponse(archive, content_type="application/zip")
    else:
        text = definition_upload.competition_definition_yaml(competition=competition)
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}.{fmt}"'
    response["Cache-Control"] = "private, no-store"
    return response


# --- tasks ------------------------------------------------------------------------------


@dataclass
class _TaskPage(EditorPage):
    task: Task
    form: TaskForm
    phase_form: PhaseForm
    track_form: TrackForm

    @classmethod
    def posted(cls, request: HttpRequest, task: Task) -> _TaskPage:
        action = action_of(request)
        post = partial(posted, request, action)
        initial = {
            "slug": task.slug,
            "title": task.title,
            "kind": task.kind,
            "description": task.description,
            "procedure": task.procedure,
            "scorer_options": "" if task.procedure else " ".join(task.scorer_options),
            "primary_metric": task.primary_metric,
        }
        return cls(
            request,
            action,
            task,
            form=TaskForm(post("save"), prefix="task", initial=initial),
            phase_form=PhaseForm(post("phase"), prefix="phase"),
            track_form=TrackForm(post("track_add"), prefix="track"),
        )

    def refused(self, exc: EditorError) -> None:
        forms = {"save": self.form, "phase": self.phase_form, "track_add": self.track_form}
        refused(self.request, forms.get(self.action or ""), exc)


def _task_save(page: _TaskPage) -> HttpResponse | None:
    form, found = page.form, page.task
    if not form.is_valid():
        return None
    data = form.cleaned_data
    with audit_structure(
        competition=found.competition, actor=page.request.user, source="the editor"
    ):
        saved, runs = editor.task_save(
            competition=found.competition,
            task=found,
            slug=data["slug"],
            kind=data["kind"],
            title=data["title"],
            description=data["description"],
            procedure=data["procedure"],
            scorer_options=form.cleaned_options(),
            primary_metric=data["primary_metric"],
        )
    messages.success(page.request, "The task was saved.")
    rescored(page.request, runs)
    return redirect("competition:edit_task", slug=found.competition.slug, task=saved.slug)


def _task_delete(page: _TaskPage) -> HttpResponse:
    editor.task_delete(task=page.task)
    messages.success(page.request, f"The task {page.task.title} was deleted.")
    return redirect("competition:edit", slug=page.task.competition.slug)


def _task_phase_add(page: _TaskPage) -> HttpResponse | None:
    form, found = page.phase_form, page.task
    if not form.is_valid():
        return None
    phase = editor.phase_save(task=found, slug=form.cleaned_data["slug"], **form.phase_fields())
    messages.success(
        page.request, f"The phase {phase.title} was added; add its sub-corpora and their keys."
    )
    return redirect(
        "competition:edit_phase", slug=found.competition.slug, task=found.slug, phase=phase.slug
    )


def _tracks_done(page: _TaskPage, done: str) -> HttpResponse:
    messages.success(page.request, done)
    return redirect(page.request.path + "#tracks")


def _posted_track(page: _TaskPage) -> Track:
    raw = page.request.POST.get("track", "")
    return _or_404(page.task.tracks.filter(pk=int(raw)).first() if raw.isdigit() else None)


def _track_add(page: _TaskPage) -> HttpResponse | None:
    form = page.track_form
    if not form.is_valid():
        return None
    track = editor.track_save(
        task=page.task,
        slug=form.cleaned_data["slug"],
        name=form.cleaned_data["name"],
        description=form.cleaned_data["description"],
    )
    return _tracks_done(page, f"The track {track.name} was added.")


def _track_save(page: _TaskPage) -> HttpResponse:
    track = _posted_track(page)
    editor.track_save(
        task=page.task,
        track=track,
        name=page.request.POST.get("name", ""),
        description=page.request.POST.get("description", ""),
    )
    return _tracks_done(page, f"The track {track.name} was saved.")


def _track_move(page: _TaskPage) -> HttpResponse:
    track = _posted_track(page)
    editor.track_move(track=track, step=-1 if page.action == "track_up" else 1)
    return _tracks_done(page, f"The track {track.name} was moved.")


def _track_delete(page: _TaskPage) -> HttpResponse:
    track = _posted_track(page)
    editor.track_delete(track=track)
    return _tracks_done(page, f"The track {track.name} was removed.")


def _track_unknown(page: _TaskPage) -> HttpResponse:
    raise Http404("No such action.")


TASK_ACTIONS: dict[str, Action[_TaskPage]] = {
    "save": _task_save,
    "delete": _task_delete,
    "phase": _task_phase_add,
    "track_add": _track_add,
    "track_save": _track_save,
    "track_up": _track_move,
    "track_down": _track_move,
    "track_delete": _track_delete,
}


@login_required
def task_edit(request: HttpRequest, slug: str, task: str) -> HttpResponse:
    found = _or_404(selectors_editor.task_for_organizer(slug=slug, task=task, user=request.user))
    page = _TaskPage.posted(request, found)
    actions = TASK_ACTIONS
    if page.action and page.action.startswith("track_") and page.action not in actions:
        actions = {page.action: _track_unknown}
    try:
        if (done := act(actions, page)) is not None:
            return done
    except EditorError as exc:
        page.refused(exc)
    return render(
        request,
        "competition/editor/task.html",
        {
            "competition": found.competition,
            "task": found,
            "form": page.form,
            "phase_form": page.phase_form,
            "phases": found.phases.prefetch_related("subcorpora"),
            "track_form": page.track_form,
            "tracks": selectors_editor.task_tracks(task=found),
        },
    )
