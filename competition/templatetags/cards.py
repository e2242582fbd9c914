"""The system card of a run, as its page shows it (``{% system_card submission %}``)."""

from __future__ import annotations

import json

from django import template

from competition.forms import card_condition
from competition.models import SystemCardQuestion
from competition.services.cards import MAX_REASON, card_lock, card_missing, card_of
from competition.visibility import user_is_organizer

register = template.Library()


@register.inclusion_tag("competition/_system_card.html", takes_context=True)
def system_card(context, submission):
    """The card as a form; once the phase has ended, as the answers that stand with the
    reason they are locked, and for the organizers a form that asks why they change it."""
    competition = submission.phase.task.competition
    questions = list(SystemCardQuestion.objects.filter(competition=competition))
    answers = card_of(submission=submission) if questions else {}
    request = context.get("request")
    user = getattr(request, "user", None)
    return {
        "submission": submission,
        "csrf_token": context.get("csrf_token"),
        "missing": card_missing(submission=submission),
        "rows": [
            (q, answers.get(q.slug, ""), card_condition(q), json.dumps(q.when) if q.when else "")
            for q in questions
        ],
        "locked": card_lock(submission=submission),
        "may_override": user_is_organizer(competition=competition, user=user),
        "max_reason": MAX_REASON,
    }
