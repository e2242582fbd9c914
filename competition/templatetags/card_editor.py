"""``{% card_questions_editor competition %}``: the editor's list of the system card's
questions and the form that adds or changes one (posted to ``competition:card_question``)."""

from __future__ import annotations

from django import template

from competition.forms import card_condition
from competition.forms_cards import CardQuestionForm

register = template.Library()


@register.inclusion_tag("competition/editor/_card_questions.html")
def card_questions_editor(competition) -> dict:
    questions = list(competition.card_questions.all())
    return {
        "competition": competition,
        "questions": [(q, card_condition(q)) for q in questions],
        "form": CardQuestionForm(prefix="cq", initial={"on_board": False}),
    }
