"""Pages of a competition (overview, evaluation, data, terms), accepting its terms, the
organizers' team approval and announcements, and the no-login unsubscribe link.

Organizer pages answer 404 to everyone else, as the leaderboard's organizer pages do.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from competition import selectors, selectors_pages
from competition.errors import CompetitionError
from competition.lookups import competition_or_404 as _competition_or_404
from competition.lookups import organized_or_404 as _organized_or_404
from competition.markdown import render_markdown
from competition.models import CompetitionPage, Team
from competition.services import pages as page_services
from competition.visibility import user_is_organizer

KIND_LABELS = dict(CompetitionPage.Kind.choices)


def _kind_or_404(kind: str) -> str:
    if kind not in KIND_LABELS:
        raise Http404("No such page.")
    return kind


def _safe_next(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


def page(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    competition = _competition_or_404(request, slug)
    kind = _kind_or_404(kind)
    body = selectors_pages.page_body(competition=competition, kind=kind)
    is_organizer = user_is_organizer(competition=competition, user=request.user)
    if not body.strip() and not is_organizer:
        raise Http404("No such page.")
    return render(
        request,
        "competition/pages/page.html",
        {
            "competition": competition,
            "kind": kind,
            "label": KIND_LABELS[kind],
            "html": render_markdown(body),
            "is_organizer": is_organizer,
            "team": selectors.team_for_user(competition=competition, user=request.user),
            "accepted_at": (
                selectors_pages.terms_accepted_at(competition=competition, user=request.user)
                if kind == CompetitionPage.Kind.TERMS
                else None
            ),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def page_edit(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    competition = _organized_or_404(request, slug)
    kind = _kind_or_404(kind)
    body = selectors_pages.page_body(competition=competition, kind=kind)
    if request.method == "POST":
        body = request.POST.get("body", "")
        if request.POST.get("action") == "save":
            try:
                page_services.page_save(
                    competition=competition, kind=kind, body=body, user=request.user
                )
            except CompetitionError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, f"The {KIND_LABELS[kind].lower()} page was saved.")
                return redirect("competition:page", slug=slug, kind=kind)
    return render(
        request,
        "competition/pages/page_edit.html",
        {
            "competition": competition,
            "kind": kind,
            "label": KIND_LABELS[kind],
            "body": body,
            "preview": render_markdown(body),
            "kinds": KIND_LABELS,
        },
    )


@login_required
@require_POST
def terms_accept(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition_or_404(request, slug)
    if page_services.terms_accept(competition=competition, user=request.user):
        messages.success(request, f"You accepted the terms of {competition.title}.")
    return redirect(_safe_next(request, reverse("competition:competition", args=[slug])))


@login_required
@require_http_methods(["GET", "POST"])
def organize_teams(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the competition's teams and whether each may submit. POST ``action``: require,
    unrequire (approval of teams), reminders_on, reminders_off (deadline reminders), approve,
    reject (``team``, ``reason``)."""
    competition = _organized_or_404(request, slug)
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action in ("require", "unrequire"):
                page_services.team_approval_require(
                    competition=competition, required=action == "require"
                )
                messages.success(
                    request,
                    "Teams now need your approval before they submit."
                    if action == "require"
                    else "Teams no longer need approval.",
                )
            elif action in ("reminders_on", "reminders_off"):
                page_services.deadline_reminders_set(
                    competition=competition, enabled=action == "reminders_on"
                )
                messages.success(
                    request,
                    "Deadline reminders are on."
                    if action == "reminders_on"
                    else "Deadline reminders are off.",
                )
            elif action in ("approve", "reject"):
                team = Team.objects.filter(
                    competition=competition, pk=request.POST.get("team") or 0
                ).first()
                if team is None:
                    raise Http404("No such team.")
                page_services.team_decide(
                    team=team,
                    approve=action == "approve",
                    reason=request.POST.get("reason", ""),
                    user=request.user,
                )
                messages.success(
                    request,
                    f"Team {team.name} {'approved' if action == 'approve' else 'rejected'}.",
                )
            else:
                messages.error(request, f"Unknown action {action!r}.")
        except CompetitionError as exc:
            messages.error(request, exc.message)
        return redirect("competition:organize_teams", slug=slug)
    return render(
        request,
        "competition/pages/organize_teams.html",
        {
            "competition": competition,
            "required": selectors_pages.team_approval_required(competition=competition),
            "reminders": selectors_pages.deadline_reminders_on(competition=competition),
            "rows": selectors_pages.teams_for_approval(competition=competition),
        },
    )


@require_http_methods(["GET", "POST"])
def announcements(request: HttpRequest, slug: str) -> HttpResponse:
    """Every announcement, newest first; organizers post new ones here (POST)."""
    competition = _competition_or_404(request, slug)
    is_organizer = user_is_organizer(competition=competition, user=request.user)
    if request.method == "POST":
        if not is_organizer:
            raise Http404("No such page.")
        try:
            announcement = page_services.announcement_post(
                competition=competition,
                title=request.POST.get("title", ""),
                body=request.POST.get("body", ""),
                user=request.user,
            )
        except CompetitionError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                f"“{announcement.title}” is published and e-mailed to "
                "the participants who receive announcements.",
            )
        return redirect("competition:announcements", slug=slug)
    return render(
        request,
        "competition/pages/announcements.html",
        {
            "competition": competition,
            "is_organizer": is_organizer,
            "announcements": selectors_pages.announcements_of(competition=competition),
        },
    )


@login_required
@require_POST
def announcement_emails(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition_or_404(request, slug)
    wanted = request.POST.get("wanted") == "1"
    page_services.announcement_emails_set(competition=competition, user=request.user, wanted=wanted)
    messages.success(
        request,
        "You receive this competition's announcements by e-mail."
        if wanted
        else "You no longer receive announcements by e-mail.",
    )
    return redirect(_safe_next(request, reverse("competition:competition", args=[slug])))


@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, slug: str, token: str) -> HttpResponse:
    """The e-mail's link: GET asks (mail scanners open links), POST opts out. No login."""
    competition = _competition_or_404(request, slug)
    done, error = False, None
    if request.method == "POST":
        try:
            page_services.announcement_unsubscribe(competition=competition, token=token)
            done = True
        except CompetitionError as exc:
            error = exc.message
    return render(
        request,
        "competition/pages/unsubscribe.html",
        {
            "competition": competition,
            "done": done,
            "error": error,
        },
        status=400 if error else 200,
    )
