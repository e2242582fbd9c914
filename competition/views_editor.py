"""Pages of the organizers' editor (``edit/<competition>/…``), the staff's "new competition"
page, the phase page with its Data section, and data downloads.

Each view parses the request, calls one service or selector, and renders. A competition's
pages answer 404 to whoever does not organize it (staff included by the policy,
competition.visibility).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from competition import selectors, selectors_editor, selectors_pages
from competition.definition import editions, editor
from competition.definition import upload as definition_upload
from competition.definition.editor import EditorError
from competition.errors import CompetitionError, DefinitionError
from competition.forms_editor import (
    CloneForm,
    CompetitionCreateForm,
    CompetitionForm,
    DataFileForm,
    DefinitionUploadForm,
    PhaseCopyForm,
    PhaseForm,
    ReleaseForm,
    SubcorpusForm,
    TaskForm,
    TrackForm,
    aware,
)
from competition.lookups import found_or_404 as _or_404
from competition.models import DefinitionJob, Phase
from competition.services.audit import audit_definition_load, audit_structure
from competition.timezones import zone_display
from competition.wording import plural


def _refused(request: HttpRequest, form, exc: CompetitionError) -> None:
    """Put a refusal on the form field at fault, or on the form."""
    field = getattr(exc, "field", None)
    if form is not None and field in getattr(form, "fields", {}):
        form.add_error(field, exc.message)
    elif form is not None:
        form.add_error(None, exc.message)
    else:
        messages.error(request, exc.message)


def _rescored(request: HttpRequest, rescored) -> None:
    if rescored:
        messages.info(
            request,
            f"{len(rescored)} scored submissions are being re-scored "
            "against the changed key or scoring.",
        )


def _queued(request: HttpRequest, job: DefinitionJob) -> None:
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
            _refused(request, form, exc)
        else:
            messages.success(
                request,
                f"{competition.title} was created; {form.cleaned_data['owner']} organizes it.",
            )
            return redirect("competition:edit", slug=competition.slug)
    return render(request, "competition/editor/new.html", {"form": form})


# --- competition ------------------------------------------------------------------------


@login_required
def competition_edit(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _or_404(selectors_editor.competition_for_organizer(slug=slug, user=request.user))
    action = request.POST.get("action") if request.method == "POST" else None
    form = CompetitionForm(
        request.POST if action == "save" else None,
        initial={
            "title": competition.title,
            "description": competition.description,
            "website": competition.website,
        },
    )
    task_form = TaskForm(request.POST if action == "task" else None, prefix="task")
    upload_form = DefinitionUploadForm(
        request.POST if action == "upload" else None, request.FILES if action == "upload" else None
    )
    clone_form = CloneForm(
        request.POST if action == "clone" else None,
        prefix="clone",
        initial={"title": competition.title},
    )
    try:
        if action == "clone" and clone_form.is_valid():
            clone = editions.competition_clone(
                source=competition, user=request.user, **clone_form.cleaned_data
            )
            messages.success(
                request,
                f"{clone.title} was made as a draft copy of "
                f"{competition.title}; check its dates and keys.",
            )
            return redirect("competition:edit", slug=clone.slug)
        if action == "save" and form.is_valid():
            editor.competition_update(competition=competition, **form.cleaned_data)
            messages.success(request, "The competition was saved.")
            return redirect("competition:edit", slug=slug)
        if action == "task" and task_form.is_valid():
            data = task_form.cleaned_data
            task, _ = editor.task_save(
                competition=competition,
                slug=data["slug"],
                kind=data["kind"],
                title=data["title"],
                description=data["description"],
                procedure=data["procedure"],
                scorer_options=task_form.cleaned_options(),
                primary_metric=data["primary_metric"],
            )
            messages.success(request, f"The task {task.title} was added; add its phases.")
            return redirect("competition:edit_task", slug=slug, task=task.slug)
        if action == "upload" and upload_form.is_valid():
            upload = upload_form.cleaned_data["definition"]
            with audit_structure(
                competition=competition, actor=request.user, source=f"the uploaded {upload.name}"
            ):
                load = definition_upload.definition_upload_start(
                    competition=competition, upload=upload, user=request.user
                )
            if isinstance(load, DefinitionJob):
                _queued(request, load)
                return redirect("competition:edit", slug=slug)
            audit_definition_load(
                load=load, actor=request.user, source=f"the uploaded {upload.name}"
            )
            note = f" Removed: {', '.join(load.removed)}." if load.removed else ""
            messages.success(request, "The definition was loaded." + note)
            _rescored(request, load.rescored)
            return redirect("competition:edit", slug=slug)
    except DefinitionError as exc:
        upload_form.add_error("definition", exc.message)
    except EditorError as exc:
        _refused(
            request, {"save": form, "task": task_form, "clone": clone_form}.get(action or ""), exc
        )
    competition = selectors.competition_detail(slug=slug, user=request.user)
    jobs = selectors_editor.definition_jobs(competition=competition)
    return render(
        request,
        "competition/editor/competition.html",
        {
            "jobs": jobs,
            "jobs_pending": any(job.is_pending for job in jobs),
            "competition": competition,
            "form": form,
            "task_form": task_form,
            "upload_form": upload_form,
            "clone_form": clone_form,
            "organizers": competition.organizers.order_by("username"),
        },
        status=refused_status(form, task_form, upload_form, clone_form),
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


@login_required
def task_edit(request: HttpRequest, slug: str, task: str) -> HttpResponse:
    found = _or_404(selectors_editor.task_for_organizer(slug=slug, task=task, user=request.user))
    action = request.POST.get("action") if request.method == "POST" else None
    form = TaskForm(
        request.POST if action == "save" else None,
        prefix="task",
        initial={
            "slug": found.slug,
            "title": found.title,
            "kind": found.kind,
            "description": found.description,
            "procedure": found.procedure,
            "scorer_options": "" if found.procedure else " ".join(found.scorer_options),
            "primary_metric": found.primary_metric,
        },
    )
    phase_form = PhaseForm(request.POST if action == "phase" else None, prefix="phase")
    track_form = TrackForm(request.POST if action == "track_add" else None, prefix="track")
    try:
        if action and action.startswith("track_"):
            done = _track_action(request, found, action, track_form)
            if done is not None:
                messages.success(request, done)
                return redirect(request.path + "#tracks")
        if action == "save" and form.is_valid():
            data = form.cleaned_data
            with audit_structure(
                competition=found.competition, actor=request.user, source="the editor"
            ):
                saved, rescored = editor.task_save(
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
            messages.success(request, "The task was saved.")
            _rescored(request, rescored)
            return redirect("competition:edit_task", slug=slug, task=saved.slug)
        if action == "delete":
            editor.task_delete(task=found)
            messages.success(request, f"The task {found.title} was deleted.")
            return redirect("competition:edit", slug=slug)
        if action == "phase" and phase_form.is_valid():
            phase = editor.phase_save(
                task=found, slug=phase_form.cleaned_data["slug"], **phase_form.phase_fields()
            )
            messages.success(
                request, f"The phase {phase.title} was added; add its sub-corpora and their keys."
            )
            return redirect("competition:edit_phase", slug=slug, task=found.slug, phase=phase.slug)
    except EditorError as exc:
        _refused(
            request,
            {"save": form, "phase": phase_form, "track_add": track_form}.get(action or ""),
            exc,
        )
    return render(
        request,
        "competition/editor/task.html",
        {
            "competition": found.competition,
            "task": found,
            "form": form,
            "phase_form": phase_form,
            "phases": found.phases.prefetch_related("subcorpora"),
            "track_form": track_form,
            "tracks": selectors_editor.task_tracks(task=found),
        },
    )


def _track_action(request: HttpRequest, task, action: str, form: TrackForm) -> str | None:
    """Add, rename, move or remove a track of ``task``; returns what was done, or None when
    the add form has errors to show."""
    if action == "track_add":
        if not form.is_valid():
            return None
        track = editor.track_save(
            task=task,
            slug=form.cleaned_data["slug"],
            name=form.cleaned_data["name"],
            description=form.cleaned_data["description"],
        )
        return f"The track {track.name} was added."
    raw = request.POST.get("track", "")
    track = _or_404(task.tracks.filter(pk=int(raw)).first() if raw.isdigit() else None)
    if action == "track_save":
        editor.track_save(
            task=task,
            track=track,
            name=request.POST.get("name", ""),
            description=request.POST.get("description", ""),
        )
        return f"The track {track.name} was saved."
    if action in ("track_up", "track_down"):
        editor.track_move(track=track, step=-1 if action == "track_up" else 1)
        return f"The track {track.name} was moved."
    if action == "track_delete":
        editor.track_delete(track=track)
        return f"The track {track.name} was removed."
    raise Http404("No such action.")


# --- phases -----------------------------------------------------------------------------


@login_required
def phase_edit(request: HttpRequest, slug: str, task: str, phase: str) -> HttpResponse:
    found = _or_404(
        selectors_editor.phase_for_organizer(slug=slug, task=task, phase=phase, user=request.user)
    )
    action = request.POST.get("action") if request.method == "POST" else None
    form = PhaseForm(
        request.POST if action == "save" else None,
        prefix="phase",
        initial=PhaseForm.initial_for(found),
    )
    sub_form = SubcorpusForm(
        request.POST if action == "subcorpus" else None,
        request.FILES if action == "subcorpus" else None,
        prefix="sc",
    )
    data_form = DataFileForm(
        request.POST if action == "data" else None,
        request.FILES if action == "data" else None,
        prefix="data",
    )
    copy_form = PhaseCopyForm(
        request.POST if action == "copy" else None,
        prefix="copy",
        phases=editions.phase_copy_sources(phase=found, user=request.user),
    )
    here = reverse("competition:edit_phase", args=[slug, task, phase])
    try:
        if action == "copy" and copy_form.is_valid():
            copied = editions.phase_subcorpora_copy(
                phase=found,
                source=copy_form.cleaned_data["source"],
                user=request.user,
                with_keys=copy_form.cleaned_data["with_keys"],
            )
            messages.success(request, f"{len(copied)} sub-corpora were copied.")
            return redirect(here)
        if action == "save" and form.is_valid():
            with audit_structure(
                competition=found.task.competition, actor=request.user, source="the editor"
            ):
                saved = editor.phase_save(
                    task=found.task,
                    phase=found,
                    slug=form.cleaned_data["slug"],
                    **form.phase_fields(),
                )
            messages.success(request, "The phase was saved.")
            return redirect("competition:edit_phase", slug=slug, task=task, phase=saved.slug)
        if action == "delete":
            editor.phase_delete(phase=found)
            messages.success(request, f"The phase {found.title} was deleted.")
            return redirect("competition:edit_task", slug=slug, task=task)
        if action == "subcorpus" and sub_form.is_valid():
            started = editor.subcorpus_save_start(
                phase=found, user=request.user, **sub_form.cleaned_data
            )
            if isinstance(started, DefinitionJob):
                _queued(request, started)
                return redirect(here)
            documents = plural(len(started.subcorpus.documents), "document")
            messages.success(
                request,
                f"The sub-corpus {started.subcorpus.name} was added ({documents} in its key).",
            )
            return redirect(here)
        if action == "data" and data_form.is_valid():
            data = data_form.cleaned_data
            attached = editor.phase_data_attach(
                phase=found,
                upload=data["file"],
                description=data["description"],
                release_at=aware(data["release_at"], found.time_zone),
                public_key=data["public_key"],
            )
            messages.success(request, f"{attached.file_name} was attached.")
            return redirect(here)
        if action == "release":
            row = _or_404(found.data_files.filter(pk=request.POST.get("data")).first())
            release = ReleaseForm(request.POST)
            if not release.is_valid():
                raise EditorError("bad_release", reason=release.errors["release_at"][0])
            editor.phase_data_update(
                data=row,
                description=row.description,
                release_at=aware(release.cleaned_data["release_at"], found.time_zone),
            )
            messages.success(
                request,
                f"{row.file_name} is released {zone_display(row.released_at, found.time_zone)}.",
            )
            return redirect(here)
        if action == "remove_data":
            row = _or_404(found.data_files.filter(pk=request.POST.get("data")).first())
            editor.phase_data_remove(data=row)
            messages.success(request, f"{row.file_name} was removed.")
            return redirect(here)
    except EditorError as exc:
        by_action = {"save": form, "subcorpus": sub_form, "data": data_form, "copy": copy_form}
        _refused(request, by_action.get(action or ""), exc)
    jobs = selectors_editor.definition_jobs(competition=found.task.competition, phase=found)
    return render(
        request,
        "competition/editor/phase.html",
        {
            "competition": found.task.competition,
            "task": found.task,
            "phase": found,
            "form": form,
            "sub_form": sub_form,
            "data_form": data_form,
            "copy_form": copy_form,
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
                _queued(request, saved)
                return redirect(back)
            messages.success(request, f"The sub-corpus {saved.subcorpus.name} was saved.")
            _rescored(request, saved.rescored)
            return redirect(back)
        if action == "delete":
            editor.subcorpus_delete(subcorpus=found)
            messages.success(request, f"The sub-corpus {found.name} was deleted.")
            return redirect(back)
    except EditorError as exc:
        _refused(request, form if action == "save" else None, exc)
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
