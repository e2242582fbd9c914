"""Forms of the competition pages. They parse input only; services hold the rules."""

from __future__ import annotations

import json
from collections.abc import Sequence

from django import forms

from competition.models import SubCorpus, SystemCardQuestion, Task, Track


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150)
    email = forms.EmailField(
        required=False, help_text="Optional: to be told by e-mail when your runs end."
    )
    password1 = forms.CharField(label="Password", widget=forms.PasswordInput)
    password2 = forms.CharField(label="Password (again)", widget=forms.PasswordInput)

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("password1") != cleaned.get("password2"):
            raise forms.ValidationError("The two passwords differ.", code="password_mismatch")
        return cleaned


class TeamCreateForm(forms.Form):
    name = forms.CharField(max_length=100, label="Team name")


class TeamJoinForm(forms.Form):
    invite_code = forms.CharField(max_length=32, label="Invite code")


def file_field_name(subcorpus: SubCorpus) -> str:
    return f"file_{subcorpus.slug}"


CARD_PREFIX = "card."
"""System-card answers travel as ``card.<question slug>`` fields (the web form and the API)."""


def card_condition(question: SystemCardQuestion) -> str:
    """When a question applies, in words: "only if llm: yes" ("" for always)."""
    said = " and ".join(f"{slug}: {answer}" for slug, answer in (question.when or {}).items())
    return f"only if {said}" if said else ""


def card_field(question: SystemCardQuestion, *, required: bool) -> forms.Field:
    """The form field of one system-card question: a select for yes/no and choices. A
    question asked only when another answer says so (``when``) is never required by the
    browser (the service decides, from the whole card) and is shown only while it applies."""
    label = question.text
    field: forms.Field
    if question.when:
        required = False
    if question.kind in (SystemCardQuestion.Kind.YES_NO, SystemCardQuestion.Kind.CHOICE):
        options = ["yes", "no"] if question.kind == SystemCardQuestion.Kind.YES_NO else []
        options = options or list(question.choices)
        field = forms.ChoiceField(
            label=label, required=required, choices=[("", "–")] + [(c, c) for c in options]
        )
    elif question.kind == SystemCardQuestion.Kind.URL:
        field = forms.URLField(
            label=label, required=required, max_length=500, assume_scheme="https"
        )
    else:
        field = forms.CharField(label=label, required=required, max_length=500)
    if question.when:
        field.widget.attrs["data-when"] = json.dumps(question.when)
        field.help_text = card_condition(question)
    return field


def archive_hint(subcorpus: SubCorpus) -> str:
    """How a zip's members are named, with one of the phase's sub-corpora as the example."""
    if subcorpus.phase.task.kind == Task.Kind.COREFUD:
        plain, distributed = f"{subcorpus.slug}.conllu", f"{subcorpus.slug}-corefud-test.conllu"
    else:
        plain, distributed = f"{subcorpus.name}.CONLLUA", f"{subcorpus.slug}_test.CONLLUA"
    return (
        f"Members named by sub-corpus ({plain}) or as the data were distributed "
        f"({distributed}); a top folder is fine."
    )


class SubmissionForm(forms.Form):
    """One optional file per available sub-corpus, or one zip; the service checks the set."""

    run_name = forms.CharField(
        max_length=100, required=False, help_text="A short name for this run, e.g. primary."
    )
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    link = forms.URLField(
        required=False,
        max_length=500,
        label="Paper or code link",
        assume_scheme="https",
        help_text="Optional: shown on the leaderboard with the run's name.",
    )
    archive = forms.FileField(
        required=False,
        label="Or one zip",
        help_text="Members named by sub-corpus (LIGHT.CONLLUA) or as "
        "the data were distributed (light_test.CONLLUA); a top folder "
        "is fine.",
    )

    def __init__(
        self,
        *args,
        subcorpora: list[SubCorpus],
        tracks: Sequence[Track] = (),
        card_questions: Sequence[SystemCardQuestion] = (),
        card_required: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.subcorpora = subcorpora
        self.card_questions = list(card_questions)
        for question in self.card_questions:  # the service checks the answers again
            self.fields[CARD_PREFIX + question.slug] = card_field(
                question, required=card_required and question.required
            )
        if any(sc.file_name for sc in subcorpora):
            example = next(sc.file_name for sc in subcorpora if sc.file_name)
            hint = f"Members named as the datasets' files, e.g. {example}; a top folder is fine."
            self.fields["archive"].help_text = hint
        elif subcorpora:  # the phase's own names, in its task's format
            self.fields["archive"].help_text = archive_hint(subcorpora[0])
        if tracks:  # each track ranks separately; the service checks the choice
            self.fields["track"] = forms.ChoiceField(
                choices=[("", "— choose —")] + [(t.slug, t.name) for t in tracks],
                help_text="Which board ranks this run.",
            )
        for subcorpus in subcorpora:
            self.fields[file_field_name(subcorpus)] = forms.FileField(
                required=False, label=f"{subcorpus.name} response file"
            )
        order = [file_field_name(sc) for sc in subcorpora] + [
            "archive",
            "run_name",
            "description",
            "link",
        ]
        self.order_fields(order)

    def file_fields(self):
        return [self[file_field_name(sc)] for sc in self.subcorpora]

    def card_fields(self):
        return [self[CARD_PREFIX + q.slug] for q in self.card_questions]

    def card_answers(self) -> dict[str, str]:
        """The answers given (question slug → answer); blank ones left out."""
        return {
            q.slug: self.cleaned_data[CARD_PREFIX + q.slug]
            for q in self.card_questions
            if self.cleaned_data.get(CARD_PREFIX + q.slug)
        }

    def files_by_slug(self) -> dict:
        return {
            sc.slug: self.cleaned_data[file_field_name(sc)]
            for sc in self.subcorpora
            if self.cleaned_data.get(file_field_name(sc))
        }


class RunDetailsForm(forms.Form):
    """A run's name, description and paper/code link, edited after the upload."""

    run_name = forms.CharField(max_length=100, required=False, label="Run name")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    link = forms.URLField(
        required=False, max_length=500, label="Paper or code link", assume_scheme="https"
    )
