"""Account, team and run pages: password change and reset (Django's own views, in the site's
look), the team actions (rename, leave, remove a member) and a run's public details. Views
parse and render; the rules live in `competition.services` (teams, runs)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from competition import selectors, services
from competition.errors import CompetitionError
from competition.forms import RunDetailsForm, TeamCreateForm
from competition.lookups import team_or_404 as _team_or_404
from competition.models import Competition


@login_required
@require_POST
def team_rename(request: HttpRequest, slug: str, team_id: int) -> HttpResponse:
    team = _team_or_404(slug, team_id, request.user)
    form = TeamCreateForm(request.POST, prefix="rename")
    if not form.is_valid():
        messages.error(request, "A team needs a name (at most 100 characters).")
    else:
        try:
            renamed = services.team_rename(
                team=team, user=request.user, name=form.cleaned_data["name"]
            )
            messages.success(request, f"Your team is now called {renamed.name}.")
        except CompetitionError as exc:
            messages.error(request, exc.message)
    return redirect("competition:team", slug=slug)


@login_required
@require_POST
def team_leave(request: HttpRequest, slug: str, team_id: int) -> HttpResponse:
    team = _team_or_404(slug, team_id, request.user)
    name = team.name
    try:
        removed = services.team_leave(team=team, user=request.user)
    except CompetitionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"You left {name}."
            + (" It had no other members and no runs, so it was removed." if removed else ""),
        )
    return redirect("competition:team", slug=slug)


@login_required
@require_POST
def team_member_remove(request: HttpRequest, slug: str, team_id: int, user_id: int) -> HttpResponse:
    team = _team_or_404(slug, team_id, request.user)
    member = get_user_model().objects.filter(pk=user_id).first()
    if member is None:
        raise Http404("No such member.")
    try:
        services.team_member_remove(team=team, user=request.user, member=member)
        messages.success(request, f"{member.username} is no longer in {team.name}.")
    except CompetitionError as exc:
        messages.error(request, exc.message)
    if selectors.team_for_user(competition=team.competition, user=request.user) == team:
        return redirect("competition:team", slug=slug)
    return redirect("competition:organize_teams", slug=slug)


@login_required
def teams_organize(request: HttpRequest, slug: str) -> HttpResponse:
    """The organizers' teams page is one: members, removal and approval together."""
    try:
        competition = selectors.competition_detail(slug=slug, user=request.user)
    except Competition.DoesNotExist:
        raise Http404("No such competition.") from None
    if not selectors.user_is_organizer(competition=competition, user=request.user):
        raise Http404("No such page.")
    return redirect("competition:organize_teams", slug=slug)


@login_required
@require_POST
def submission_describe(request: HttpRequest, pk: int) -> HttpResponse:
    """Set a run's name, description and paper/code link (its team, or organizers)."""
    submission = selectors.submission_for_viewer(submission_id=pk, user=request.user)
    if submission is None:
        raise Http404("No such submission.")
    form = RunDetailsForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
    else:
        try:
            services.submission_describe(
                submission=submission,
                user=request.user,
                run_name=form.cleaned_data["run_name"],
                description=form.cleaned_data["description"],
                link=form.cleaned_data["link"],
            )
            messages.success(request, "The run's details were saved.")
        except CompetitionError as exc:
            messages.error(request, exc.message)
    return redirect("competition:submission", pk=pk)
