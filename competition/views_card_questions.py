"""The editor's own system-card questions: an organizer adds or changes one question (its
kind, choices, condition, whether final runs need it and whether boards show it)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from competition import selectors_editor
from competition.forms_cards import CardQuestionForm
from competition.services import cards


@login_required
@require_POST
def card_question(request: HttpRequest, slug: str) -> HttpResponse:
    competition = selectors_editor.competition_for_organizer(slug=slug, user=request.user)
    if competition is None:
        raise Http404("No such page.")
    form = CardQuestionForm(request.POST, prefix="cq")
    if not form.is_valid():
        for field, errors in form.errors.items():
            label = form.fields[field].label or field if field in form.fields else ""
            messages.error(request, f"{label}: {errors[0]}" if label else str(errors[0]))
    else:
        try:
            saved = cards.card_question_save(competition=competition, **form.cleaned_data)
        except cards.CardError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"The system card asks {saved.text!r} ({saved.slug}).")
    return redirect(reverse("competition:edit", args=[slug]) + "#system-card")
