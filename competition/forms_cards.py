"""The organizers' form for one system-card question (the editor's System card box). It
parses input only; `competition.services.cards.card_question_save` holds the rules."""

from __future__ import annotations

from django import forms

from competition.models import SystemCardQuestion


class CardQuestionForm(forms.Form):
    slug = forms.SlugField(
        max_length=64, help_text="Its name in card files and the API, e.g. training-data."
    )
    text = forms.CharField(max_length=300, label="Question")
    kind = forms.ChoiceField(choices=SystemCardQuestion.Kind.choices, label="Answer")
    choices = forms.CharField(
        required=False, max_length=1000, help_text="For a choice: the answers, comma-separated."
    )
    when = forms.CharField(
        required=False,
        max_length=200,
        label="Only when",
        help_text="e.g. llm=yes: asked only of runs whose card answers llm with yes.",
    )
    required = forms.BooleanField(required=False, label="Required for the final runs")
    on_board = forms.BooleanField(required=False, label="Show on the board")

    def clean_choices(self) -> list[str]:
        return [c.strip() for c in self.cleaned_data["choices"].split(",") if c.strip()]

    def clean_when(self) -> dict[str, str]:
        when: dict[str, str] = {}
        for part in self.cleaned_data["when"].replace(",", " ").split():
            slug, equals, answer = part.partition("=")
            if not equals or not slug or not answer:
                raise forms.ValidationError(
                    f"{part!r}: write question=answer, e.g. llm=yes", code="bad_condition"
                )
            when[slug] = answer
        return when
