"""The organizers' own pages of a competition: publishing (the checklist, publish, back to
draft), the organizers (the owner and staff add and remove them) and the audit log.

Each answers 404 to whoever does not organize the competition (staff included by the policy),
as the other organizer pages do.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from competition import selectors_publish
from competition.errors import CompetitionError
from competition.forms_editor import OrganizerAddForm
from competition.lookups import organized_or_404 as _organized_or_404
from competition.services import publish as publish_services


@login_required
@require_http_methods(["GET", "POST"])
def publish(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the checklist. POST ``action``: publish (with the ``waive`` boxes ticked), or
    unpublish (back to draft)."""
    competition = _organized_or_404(request, slug)
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "publish":
                publish_services.competition_publish(
                    competition=competition,
                    actor=request.user,
                    waived=request.POST.getlist("waive"),
                )
                messages.success(
                    request, f"{competition.title} is published: everyone sees it now."
                )
                return redirect("competition:competition", slug=slug)
            if action == "unpublish":
                publish_services.competition_unpublish(competition=competition, actor=request.user)
                messages.success(
                    request,
                    f"{competition.title} is a draft again: only its organizers and staff see it.",
                )
            else:
                messages.error(request, f"Unknown action {action!r}.")
        except CompetitionError as exc:
            messages.error(request, exc.message)
        return redirect("competition:publish", slug=slug)
    competition.refresh_from_db()
    items = selectors_publish.publish_checklist(competition=competition)
    return render(
        request,
        "competition/organize/publish.html",
        {
            "competition": competition,
            "items": items,
            "blocking": [item for item in items if not item.ok and not item.waiver],
            "joined": selectors_publish.competition_participants_joined(competition=competition),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def organizers(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: who organizes the competition. POST ``action`` (owner and staff): add
    (``username``), remove (``user``)."""
    competition = _organized_or_404(request, slug)
    manage = selectors_publish.competition_may_manage_organizers(
        competition=competition, user=request.user
    )
    form = OrganizerAddForm(request.POST if request.POST.get("action") == "add" else None)
    if request.method == "POST":
        if not manage:
            raise Http404("No such page.")
        action = request.POST.get("action", "")
        try:
            if action == "add" and form.is_valid():
                added = publish_services.competition_organizer_add(
                    competition=competition,
                    actor=request.user,
                    username=form.cleaned_data["username"],
                )
                messages.success(
                    request, f"{added.get_username()} now organizes {competition.title}."
                )
                return redirect("competition:organizers", slug=slug)
            if action == "remove":
                user = get_user_model().objects.filter(pk=request.POST.get("user") or 0).first()
                if user is None:
                    raise Http404("No such user.")
                publish_services.competition_organizer_remove(
                    competition=competition, actor=request.user, user=user
                )
                messages.success(
                    request, f"{user.get_username()} no longer organizes {competition.title}."
                )
                return redirect("competition:organizers", slug=slug)
        except CompetitionError as exc:
            if action == "add":
                form.add_error("username", exc.message)
            else:
                messages.error(request, exc.message)
    return render(
        request,
        "competition/organize/organizers.html",
        {
            "competition": competition,
            "form": form,
            "manage": manage,
            "organizers": competition.organizers.order_by("username"),
        },
    )


@login_required
@require_GET
def audit_log(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _organized_or_404(request, slug)
    return render(
        request,
        "competition/organize/audit_log.html",
        {
            "competition": competition,
            "entries": selectors_publish.audit_entries(competition=competition),
        },
    )
