"""System cards on the web: a run's team (or its organizers) answers its card; organizers
set the competition's questions from the editor."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from competition import selectors, selectors_editor
from competition.services import cards


@login_required
@require_POST
def submission_card(request: HttpRequest, pk: int) -> HttpResponse:
    submission = selectors.submission_for_viewer(submission_id=pk, user=request.user)
    if submission is None:
        raise Http404("No such submission.")
    slugs = set(submission.phase.task.competition.card_questions.values_list("slug", flat=True))
    try:
        cards.card_answers_save(
            submission=submission,
            user=request.user,
            answers={k: v for k, v in request.POST.items() if k in slugs},
            reason=request.POST.get("override_reason", ""),
        )
    except cards.CardError as exc:
        messages.error(request, f"The system card was not saved: {exc.message}.")
    else:
        messages.success(request, "The system card was saved.")
    return redirect("competition:submission", pk=pk)


@login_required
@require_POST
def card_defaults(request: HttpRequest, slug: str) -> HttpResponse:
    competition = selectors_editor.competition_for_organizer(slug=slug, user=request.user)
    if competition is None:
        raise Http404("No such page.")
    cards.card_defaults_set(competition=competition, required=request.POST.get("required") == "on")
    messages.success(request, "The system card asks the CRAC questions.")
    return redirect("competition:edit", slug=slug)
