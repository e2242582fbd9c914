"""The system card of a run, as its page shows it (``{% system_card submission %}``)."""

from __future__ import annotations

import json

from django import template

from competition.forms import card_condition
from competition.models import SystemCardQuestion
from competition.services.cards import card_missing, card_of

register = template.Library()


@register.inclusion_tag("competition/_system_card.html")
def system_card(submission):
    questions = list(
        SystemCardQuestion.objects.filter(competition=submission.phase.task.competition)
    )
    answers = card_of(submission=submission) if questions else {}
    return {
        "submission": submission,
        "missing": card_missing(submission=submission),
        "rows": [
            (q, answers.get(q.slug, ""), card_condition(q), json.dumps(q.when) if q.when else "")
            for q in questions
        ],
    }
