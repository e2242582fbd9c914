"""The answers of a run's system card: checked by the question's kind, saved, read, and
required of a final run (a run of a test phase) where the organizers mark a question so.

Kept apart from `competition.services.cards` (which sets the questions through the
competition's one writer) so that an upload (`submission_create`) can check and save a run's
answers without importing the definition writer, which itself creates runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction

from competition.errors import CompetitionError
from competition.models import Competition, Phase, Submission, SystemCardAnswer, SystemCardQuestion

FINAL_KINDS = (Phase.Kind.TEST_PREDICTED, Phase.Kind.TEST_GOLD)
YES_NO = ("yes", "no")
MAX_ANSWER = 500
ANSWER_CODES = ("card_incomplete", "bad_answer", "unknown_question")
"""The codes of a refused answer (``CardError``; ``SubmissionRejected`` at an upload)."""


class CardError(CompetitionError):
    """A system card or its questions were refused; ``field`` names the question at fault."""

    def __init__(
        self, code: str, *, reason: str, field: str | None = None, missing: Sequence[str] = ()
    ) -> None:
        self.field = field
        self.missing = list(missing)  # "card_incomplete": the slugs still to answer
        super().__init__(code, reason=reason)

    @property
    def message(self) -> str:
        return str(self.params["reason"])


def card_question_applies(question: SystemCardQuestion, answers: Mapping[str, str]) -> bool:
    """Whether ``question`` is asked of a run whose card says ``answers``: always, or when
    each question its ``when`` names was answered so ({"llm": "yes"})."""
    return all(
        str(answers.get(slug, "")).strip().lower() == str(answer).lower()
        for slug, answer in (question.when or {}).items()
    )


def _answer_check(question: SystemCardQuestion, raw: Any) -> str:
    value = "" if raw is None else str(raw).strip()
    if isinstance(raw, bool):
        value = "yes" if raw else "no"
    if not value:
        return ""
    if "\x00" in value or len(value) > MAX_ANSWER:
        raise CardError(
            "bad_answer",
            field=question.slug,
            reason=(f"{question.text}: at most {MAX_ANSWER} characters of text"),
        )
    if question.kind == SystemCardQuestion.Kind.YES_NO:
        value = value.lower()
        if value not in YES_NO:
            raise CardError(
                "bad_answer",
                field=question.slug,
                reason=(f"{question.text}: answer yes or no, not {value!r}"),
            )
    elif question.kind == SystemCardQuestion.Kind.CHOICE and value not in question.choices:
        raise CardError(
            "bad_answer",
            field=question.slug,
            reason=(f"{question.text}: {value!r} is not one of {', '.join(question.choices)}"),
        )
    elif question.kind == SystemCardQuestion.Kind.URL:
        try:
            URLValidator(schemes=["http", "https"])(value)
        except ValidationError:
            raise CardError(
                "bad_answer",
                field=question.slug,
                reason=(f"{question.text}: expected a link starting with https://, not {value!r}"),
            ) from None
    return value


def card_answers_check(*, competition: Competition, answers: Mapping[str, Any]) -> dict[str, str]:
    """A run's answers as they would be saved (question slug → answer, "" for a blank one),
    checked against the competition's questions; nothing is written. Raises ``CardError``
    for an unknown question or an answer of the wrong kind."""
    questions = {q.slug: q for q in SystemCardQuestion.objects.filter(competition=competition)}
    if unknown := sorted(set(answers) - set(questions)):
        raise CardError(
            "unknown_question",
            field=unknown[0],
            reason=(
                f"the system card has no question {unknown[0]!r} (expected one of "
                f"{', '.join(questions) or 'none: the organizers set no questions'})"
            ),
        )
    return {slug: _answer_check(questions[slug], raw) for slug, raw in answers.items()}


@transaction.atomic
def card_answers_save(
    *, submission: Submission, answers: Mapping[str, Any], user=None
) -> dict[str, str]:
    """Save a run's answers (question slug → answer; blank clears one). Every answer is
    checked before any is written; an unknown question is refused. Returns the run's card."""
    del user  # who may answer is the caller's check (the run's team, its organizers)
    competition = submission.phase.task.competition
    checked = card_answers_check(competition=competition, answers=answers)
    questions = {
        q.slug: q
        for q in SystemCardQuestion.objects.filter(competition=competition, slug__in=checked)
    }
    for slug, value in checked.items():
        if value:
            SystemCardAnswer.objects.update_or_create(
                submission=submission, question=questions[slug], defaults={"value": value}
            )
        else:
            SystemCardAnswer.objects.filter(
                submission=submission, question=questions[slug]
            ).delete()
    return card_of(submission=submission)


def card_of(*, submission: Submission) -> dict[str, str]:
    """A run's answers by question slug."""
    return dict(
        SystemCardAnswer.objects.filter(submission=submission).values_list(
            "question__slug", "value"
        )
    )


def card_missing(*, submission: Submission) -> list[str]:
    """The required questions a final run (of a test phase) has not answered; [] for a run
    of another phase."""
    if submission.phase.kind not in FINAL_KINDS:
        return []
    answered = card_of(submission=submission)
    return [
        q.text
        for q in SystemCardQuestion.objects.filter(
            competition=submission.phase.task.competition, required=True
        )
        if q.slug not in answered and card_question_applies(q, answered)
    ]


def card_required(*, phase: Phase) -> bool:
    """Whether a run of ``phase`` is a final run, whose required questions must be answered."""
    return phase.kind in FINAL_KINDS


def card_check(*, phase: Phase, answers: Mapping[str, Any]) -> None:
    """Before a final run is accepted: refuse when a required question is unanswered
    (``CardError`` "card_incomplete"; ``field`` is the first question missing)."""
    if not card_required(phase=phase):
        return
    given = {slug: str(value or "") for slug, value in answers.items()}
    missing = [
        q
        for q in SystemCardQuestion.objects.filter(
            competition=phase.task.competition, required=True
        )
        if not given.get(q.slug, "").strip() and card_question_applies(q, given)
    ]
    if missing:
        raise CardError(
            "card_incomplete",
            field=missing[0].slug,
            missing=[q.slug for q in missing],
            reason=(
                "a final run needs answers to " + "; ".join(f"{q.text} ({q.slug})" for q in missing)
            ),
        )
