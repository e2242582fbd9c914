"""System cards: what a team says of the system behind a run (LLM-based or not, base model,
parameters, how it was adapted, external data, the licence of its weights, its code).

Organizers set a competition's questions (`card_defaults_set` gives the CRAC ones); a team
answers per run (`card_answers_save`, from the run's page or the API). A question marked
``required`` must be answered for a final run (a run of a test phase): `card_missing` names
what such a run still lacks. Answers are checked against the question's kind; text is
stored as given and rendered escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.utils.text import slugify

from competition.errors import CompetitionError
from competition.models import Competition, Phase, Submission, SystemCardAnswer, \
    SystemCardQuestion

FINAL_KINDS = (Phase.Kind.TEST_PREDICTED, Phase.Kind.TEST_GOLD)
YES_NO = ("yes", "no")
MAX_ANSWER = 500

CRAC_QUESTIONS: tuple[dict[str, Any], ...] = (
    {"slug": "llm", "text": "Is the system LLM-based?", "kind": "yes_no", "on_board": True},
    {"slug": "base-model", "text": "Base model (name and version)", "kind": "text",
     "on_board": True},
    {"slug": "parameters", "text": "Number of parameters (e.g. 7B)", "kind": "text"},
    {"slug": "adaptation", "text": "How was the model adapted to the task?",
     "kind": "choice", "choices": ["fine-tuned", "few-shot", "zero-shot", "not applicable"],
     "on_board": True},
    {"slug": "external-data", "text": "External data used (beyond the task's training data)",
     "kind": "text"},
    {"slug": "weights-licence", "text": "Licence of the model weights", "kind": "text"},
    {"slug": "code", "text": "Link to the code", "kind": "url"},
)
"""The questions the CRAC 2025 and 2026 overview papers asked of every system."""


class CardError(CompetitionError):
    """A system card or its questions were refused; ``field`` names the question at fault."""

    def __init__(self, code: str, *, reason: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(code, reason=reason)

    @property
    def message(self) -> str:
        return str(self.params["reason"])


def card_question_save(*, competition: Competition, slug: str, text: str, kind: str,
                       choices: list[str] | tuple[str, ...] = (), required: bool = False,
                       on_board: bool = False) -> SystemCardQuestion:
    """Create or update (by slug) a question of the competition's system card."""
    slug = slug.strip()
    if not slug or slugify(slug) != slug:
        raise CardError("bad_slug", field="slug",
                        reason=f"the question's slug must be a URL slug, not {slug!r}")
    text = text.strip()
    if not text or len(text) > 300:
        raise CardError("bad_text", field="text",
                        reason="the question needs a text of at most 300 characters")
    if kind not in SystemCardQuestion.Kind.values:
        raise CardError("bad_kind", field="kind", reason=f"the kind {kind!r} is not one of "
                        f"{', '.join(SystemCardQuestion.Kind.values)}")
    clean = [str(choice).strip() for choice in choices if str(choice).strip()]
    if kind == SystemCardQuestion.Kind.CHOICE and len(clean) < 2:
        raise CardError("bad_choices", field="choices",
                        reason="a question with choices needs at least two")
    order = SystemCardQuestion.objects.filter(competition=competition).count()
    question, created = SystemCardQuestion.objects.update_or_create(
        competition=competition, slug=slug, defaults={
            "text": text, "kind": kind, "required": required, "on_board": on_board,
            "choices": clean if kind == SystemCardQuestion.Kind.CHOICE else []})
    if created:
        question.order = order
        question.save(update_fields=["order"])
    return question


@transaction.atomic
def card_defaults_set(*, competition: Competition, required: bool = True) -> list:
    """The CRAC questions (those already set are updated, others kept)."""
    return [card_question_save(competition=competition, required=required,
                               choices=q.get("choices", ()), on_board=q.get("on_board", False),
                               slug=q["slug"], text=q["text"], kind=q["kind"])
            for q in CRAC_QUESTIONS]


def _answer_check(question: SystemCardQuestion, raw: Any) -> str:
    value = "" if raw is None else str(raw).strip()
    if isinstance(raw, bool):
        value = "yes" if raw else "no"
    if not value:
        return ""
    if "\x00" in value or len(value) > MAX_ANSWER:
        raise CardError("bad_answer", field=question.slug, reason=(
            f"{question.text}: at most {MAX_ANSWER} characters of text"))
    if question.kind == SystemCardQuestion.Kind.YES_NO:
        value = value.lower()
        if value not in YES_NO:
            raise CardError("bad_answer", field=question.slug, reason=(
                f"{question.text}: answer yes or no, not {value!r}"))
    elif question.kind == SystemCardQuestion.Kind.CHOICE and value not in question.choices:
        raise CardError("bad_answer", field=question.slug, reason=(
            f"{question.text}: {value!r} is not one of {', '.join(question.choices)}"))
    elif question.kind == SystemCardQuestion.Kind.URL:
        try:
            URLValidator(schemes=["http", "https"])(value)
        except ValidationError:
            raise CardError("bad_answer", field=question.slug, reason=(
                f"{question.text}: expected a link starting with https://, "
                f"not {value!r}")) from None
    return value


@transaction.atomic
def card_answers_save(*, submission: Submission, answers: Mapping[str, Any],
                      user=None) -> dict[str, str]:
    """Save a run's answers (question slug → answer; blank clears one). Every answer is
    checked before any is written; an unknown question is refused. Returns the run's card."""
    del user  # who may answer is the caller's check (the run's team, its organizers)
    questions = {q.slug: q for q in SystemCardQuestion.objects.filter(
        competition=submission.phase.task.competition)}
    if unknown := sorted(set(answers) - set(questions)):
        raise CardError("unknown_question", field=unknown[0], reason=(
            f"the system card has no question {unknown[0]!r} (expected one of "
            f"{', '.join(questions) or 'none: the organizers set no questions'})"))
    checked = {slug: _answer_check(questions[slug], raw) for slug, raw in answers.items()}
    for slug, value in checked.items():
        if value:
            SystemCardAnswer.objects.update_or_create(
                submission=submission, question=questions[slug], defaults={"value": value})
        else:
            SystemCardAnswer.objects.filter(submission=submission,
                                            question=questions[slug]).delete()
    return card_of(submission=submission)


def card_of(*, submission: Submission) -> dict[str, str]:
    """A run's answers by question slug."""
    return dict(SystemCardAnswer.objects.filter(submission=submission)
                .values_list("question__slug", "value"))


def card_missing(*, submission: Submission) -> list[str]:
    """The required questions a final run (of a test phase) has not answered; [] for a run
    of another phase."""
    if submission.phase.kind not in FINAL_KINDS:
        return []
    answered = set(card_of(submission=submission))
    return [q.text for q in SystemCardQuestion.objects.filter(
        competition=submission.phase.task.competition, required=True)
        if q.slug not in answered]


def card_check(*, phase: Phase, answers: Mapping[str, Any]) -> None:
    """Before a final run is accepted: refuse when a required question is unanswered."""
    if phase.kind not in FINAL_KINDS:
        return
    missing = [q.text for q in SystemCardQuestion.objects.filter(
        competition=phase.task.competition, required=True)
        if not str(answers.get(q.slug, "") or "").strip()]
    if missing:
        raise CardError("card_incomplete", reason=(
            "a final run needs its system card: answer " + "; ".join(missing)))


def card_columns(*, competition: Competition,
                 submissions: list[Submission]) -> tuple[list[SystemCardQuestion], dict]:
    """The questions a board shows as columns and each run's answers to them
    ({submission id: {slug: answer}})."""
    questions = list(SystemCardQuestion.objects.filter(competition=competition,
                                                       on_board=True))
    answers: dict[int, dict[str, str]] = {}
    for sub_id, slug, value in SystemCardAnswer.objects.filter(
            submission__in=submissions, question__in=questions).values_list(
            "submission_id", "question__slug", "value"):
        answers.setdefault(sub_id, {})[slug] = value
    return questions, answers
