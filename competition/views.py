"""Pages of the competition app. Each view parses the request, calls one service or
selector, and renders; the rules live in services and selectors."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from competition import selectors, selectors_home, services
from competition.errors import CompetitionError, SubmissionRejected
from competition.forms import (
    RunDetailsForm,
    SignupForm,
    SubmissionForm,
    TeamCreateForm,
    TeamJoinForm,
)
from competition.lookups import competition_detail_or_404 as _competition_or_404
from competition.lookups import openable_submission_or_404 as _submission_or_404
from competition.lookups import phase_or_404 as _phase_or_404
from competition.models import Phase, Submission
from competition.services.card_answers import card_required
from competition.standings import run_standings
from competition.upload_manifest import manifest_check
from competition.visibility import (
    Visibility,
    phase_visibility,
    submission_details_visible,
    submission_scores_visible,
)

# --- accounts ---------------------------------------------------------------------------


def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = services.user_signup(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                email=form.cleaned_data["email"],
            )
        except CompetitionError as exc:
            form.add_error(None, exc.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.username}.")
            target = request.GET.get("next", "")
            if not url_has_allowed_host_and_scheme(
                target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
            ):
                target = "competition:home"  # never an open redirect to another site
            return redirect(target)
    return render(request, "registration/signup.html", {"form": form})


# --- competitions -----------------------------------------------------------------------


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "competition/home.html",
        {"cards": selectors_home.competition_cards(user=request.user)},
    )


@require_GET
def competition_detail(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition_or_404(request, slug)
    is_organizer = selectors.user_is_organizer(competition=competition, user=request.user)
    # ?preview=participant: an organizer sees the page as a participant will (no controls)
    preview = is_organizer and request.GET.get("preview") == "participant"
    return render(
        request,
        "competition/competition_detail.html",
        {
            "competition": competition,
            "team": selectors.team_for_user(competition=competition, user=request.user),
            "is_organizer": is_organizer and not preview,
            "preview": preview,
            "now": timezone.now(),
        },
    )


# --- teams ------------------------------------------------------------------------------


@login_required
def team(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition_or_404(request, slug)
    create_form = TeamCreateForm(
        request.POST if request.POST.get("action") == "create" else None, prefix="create"
    )
    join_form = TeamJoinForm(
        request.POST if request.POST.get("action") == "join" else None, prefix="join"
    )
    if request.method == "POST":
        try:
            if request.POST.get("action") == "create" and create_form.is_valid():
                services.team_create(
                    competition=competition,
                    user=request.user,
                    name=create_form.cleaned_data["name"],
                )
                messages.success(request, "Your team was created.")
                return redirect("competition:team", slug=slug)
            if request.POST.get("action") == "join" and join_form.is_valid():
                joined = services.team_join(
                    competition=competition,
                    user=request.user,
                    invite_code=join_form.cleaned_data["invite_code"],
                )
                messages.success(request, f"You joined {joined.name}.")
                return redirect("competition:team", slug=slug)
        except CompetitionError as exc:
            messages.error(request, exc.message)
    current = selectors.team_for_user(competition=competition, user=request.user)
    captain = selectors.team_captain(team=current) if current else None
    return render(
        request,
        "competition/team.html",
        {
            "competition": competition,
            "team": current,
            "members": selectors.team_members(team=current) if current else [],
            "captain": captain,
            "may_remove": current is not None
            and (
                (captain is not None and captain.pk == request.user.pk)
                or selectors.user_is_organizer(competition=competition, user=request.user)
            ),
            "create_form": create_form,
            "join_form": join_form,
        },
    )


# --- submissions ------------------------------------------------------------------------


@login_required
def phase_submit(request: HttpRequest, slug: str, task: str, phase: str) -> HttpResponse:
    """The upload form of a phase, and its answer: the run's page (it shows "checking"
    until the worker has read the files against their keys), or the form again with the
    reason of a refusal."""
    phase_obj = _phase_or_404(request, slug, task, phase)
    competition = phase_obj.task.competition
    current = selectors.team_for_user(competition=competition, user=request.user)
    context = _submit_context(phase=phase_obj, team=current)
    if request.method == "POST" and (too_large := _oversized(request, phase_obj)) is not None:
        context.update(form=_submit_form(phase_obj), rejection=too_large)
        if current is not None:
            context["quota"] = services.submission_quota(team=current, phase=phase_obj)
        return render(request, "competition/submit.html", context, status=413)
    form = _submit_form(phase_obj, data=request.POST or None, files=request.FILES or None)
    context["form"] = form
    # One key per page shown: the form sent twice (a resend after a lost answer) is one run.
    context["idempotency_key"] = uuid.uuid4().hex
    if current is None:
        return render(request, "competition/submit.html", context)
    context["blocked"] = services.submission_precheck(
        team=current, phase=phase_obj, user=request.user
    )
    if request.method == "POST" and form.is_valid():
        try:
            submission = _submit_run(request, phase=phase_obj, team=current, form=form)
        except SubmissionRejected as exc:
            context["rejection"] = exc
            context["quota"] = services.submission_quota(team=current, phase=phase_obj)
            context["blocked"] = services.submission_precheck(
                team=current, phase=phase_obj, user=request.user
            )
            return render(request, "competition/submit.html", context, status=400)
        except CompetitionError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _received_message(submission))
            return redirect("competition:submission", pk=submission.pk)
    context["quota"] = services.submission_quota(team=current, phase=phase_obj)
    return render(request, "competition/submit.html", context)


def _submit_context(*, phase: Phase, team) -> dict:
    competition = phase.task.competition
    return {
        "competition": competition,
        "phase": phase,
        "team": team,
        "unavailable": phase.subcorpora.filter(available=False),
        "now": timezone.now(),
        "card_needed": card_required(phase=phase)
        and competition.card_questions.filter(required=True).exists(),
    }


def _submit_form(phase: Phase, *, data=None, files=None) -> SubmissionForm:
    return SubmissionForm(
        data,
        files,
        subcorpora=list(phase.subcorpora.filter(available=True)),
        tracks=list(phase.task.tracks.all()),
        card_questions=list(phase.task.competition.card_questions.all()),
        card_required=card_required(phase=phase),
    )


def _oversized(request: HttpRequest, phase: Phase) -> SubmissionRejected | None:
    """The refusal of a body larger than the phase can take, told before it is read: an
    oversized upload never reaches the disk."""
    length = request.META.get("CONTENT_LENGTH")
    try:
        services.upload_request_check(phase=phase, content_length=int(length) if length else None)
    except SubmissionRejected as exc:
        return exc
    return None


def _submit_run(request: HttpRequest, *, phase: Phase, team, form: SubmissionForm):
    manifest_check(data=request.POST, files=request.FILES)
    return services.submission_create(
        team=team,
        phase=phase,
        user=request.user,
        files=form.files_by_slug(),
        archive=form.cleaned_data.get("archive"),
        run_name=form.cleaned_data["run_name"],
        description=form.cleaned_data["description"],
        link=form.cleaned_data["link"],
        track=form.cleaned_data.get("track") or None,
        card=form.card_answers(),
        idempotency_key=request.POST.get("idempotency_key", ""),
    )


def _received_message(submission: Submission) -> str:
    """Neutral on purpose: the run may be checked and scored already when its page shows."""
    if submission.replayed:
        return (
            f"This upload had arrived already: it is submission #{submission.pk}; its "
            "status is below."
        )
    return (
        f"Submission #{submission.pk} was received: each file is checked against its gold "
        "key, then scored. Its status is below."
    )


@login_required
@require_GET
def phase_submissions(request: HttpRequest, slug: str, task: str, phase: str) -> HttpResponse:
    phase_obj = _phase_or_404(request, slug, task, phase)
    competition = phase_obj.task.competition
    current = selectors.team_for_user(competition=competition, user=request.user)
    runs = list(selectors.submissions_for_team(team=current, phase=phase_obj)) if current else []
    standings = run_standings(phase=phase_obj, viewer=request.user, submissions=runs)
    return render(
        request,
        "competition/submissions.html",
        {
            "competition": competition,
            "phase": phase_obj,
            "team": current,
            "rows": [
                (run, standings.get(run.pk), selectors.submission_status_label(submission=run))
                for run in runs
            ],
            "scores_visible": phase_visibility(phase=phase_obj, user=request.user)
            is not Visibility.NONE,
            "quota": (
                services.submission_quota(team=current, phase=phase_obj) if current else None
            ),
        },
    )


@require_GET
def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = selectors.submission_for_viewer(submission_id=pk, user=request.user)
    if submission is None:
        # Not the run's team: its public page is its analysis, if the phase shows it (a
        # public baseline's to anybody, logged in or not).
        other = selectors.submission_get(submission_id=pk, user=request.user)
        if other is not None and submission_details_visible(submission=other, user=request.user):
            return redirect("leaderboard:analysis", submission_id=pk)
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())  # it may be their team's
        raise Http404("No such submission.")
    visible = submission_scores_visible(submission=submission, user=request.user)
    return render(
        request,
        "competition/submission_detail.html",
        {
            "submission": submission,
            "phase": submission.phase,
            "competition": submission.phase.task.competition,
            "files": submission.files.select_related("subcorpus"),
            "scores_visible": visible,
            "tables": (
                selectors.submission_score_tables(submission=submission)
                if visible and submission.status == Submission.Status.SCORED
                else []
            ),
            "is_member": services.submission_member_check(submission=submission, user=request.user),
            "status_label": selectors.submission_status_label(submission=submission),
            "standing": (
                run_standings(
                    phase=submission.phase, viewer=request.user, submissions=[submission]
                ).get(submission.pk)
                if visible and submission.status == Submission.Status.SCORED
                else None
            ),
            "queue_position": selectors.submission_queue_position(submission=submission),
            "describe_form": RunDetailsForm(
                initial={
                    "run_name": submission.run_name,
                    "description": submission.description,
                    "link": submission.link,
                }
            ),
        },
    )


@login_required
@require_GET
def submission_status(request: HttpRequest, pk: int) -> JsonResponse:
    """The small JSON the submission page polls while a submission is queued or scoring.
    It carries the status only, never scores."""
    submission = _submission_or_404(request, pk)
    return JsonResponse(
        {
            "id": submission.pk,
            "status": submission.shown_status,
            "status_display": selectors.submission_status_label(submission=submission),
            "final": submission.is_final,
            "error": submission.error
            if submission.status in (Submission.Status.FAILED, Submission.Status.SET_ASIDE)
            else "",
            "attempts": submission.attempts,
            "queue_position": selectors.submission_queue_position(submission=submission),
            "log": submission.scoring_log,
            "updated_at": submission.updated_at.isoformat(),
        }
    )


@login_required
@require_POST
def submission_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _submission_or_404(request, pk)
    try:
        services.submission_cancel(submission=submission, user=request.user)
        messages.success(request, f"Submission #{pk} was cancelled; it does not count.")
    except CompetitionError as exc:
        messages.error(request, exc.message)
    return redirect("competition:submission", pk=pk)


@login_required
@require_POST
def submission_choose(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _submission_or_404(request, pk)
    if not services.submission_member_check(submission=submission, user=request.user):
        raise Http404("No such submission.")
    try:
        services.submission_choose(submission=submission, user=request.user)
        messages.success(request, f"Submission #{pk} now represents your team.")
    except CompetitionError as exc:
        messages.error(request, exc.message)
    return redirect(reverse("competition:submission", kwargs={"pk": pk}))
