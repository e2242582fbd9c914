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

from competition.definition import apply
from competition.definition.spec import CardQuestionSpec, CompetitionSpec, SpecError
from competition.errors import CompetitionError
from competition.models import Competition, Phase, Submission, SystemCardAnswer, SystemCardQuestion

FINAL_KINDS = (Phase.Kind.TEST_PREDICTED, Phase.Kind.TEST_GOLD)
YES_NO = ("yes", "no")
MAX_ANSWER = 500

CRAC_QUESTIONS: tuple[dict[str, Any], ...] = (
    {"slug": "llm", "text": "Is the system LLM-based?", "kind": "yes_no", "on_board": True},
    {
        "slug": "base-model",
        "text": "Base model (name and version)",
        "kind": "text",
        "on_board": True,
    },
    {"slug": "parameters", "text": "Number of parameters (e.g. 7B)", "kind": "text"},
    {
        "slug": "adaptation",
        "text": "How was the model adapted to the task?",
        "kind": "choice",
        "choices": ["fine-tuned", "few-shot", "zero-shot", "not applicable"],
        "on_board": True,
    },
    {
        "slug": "external-data",
        "text": "External data used (beyond the task's training data)",
        "kind": "text",
    },
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


def card_questions_set(
    *, competition: Competition, questions: list[CardQuestionSpec]
) -> list[SystemCardQuestion]:
    """The competition's questions, in order, written by the one writer of a competition
    (`competition.definition.apply`); a question runs answered is never removed."""
    spec = CompetitionSpec(
        slug=competition.slug,
        title=competition.title,
        description=competition.description,
        website=competition.website,
        card_questions=tuple(questions),
    )
    try:
        apply.competition_head_apply(spec=spec)
    except SpecError as exc:
        raise CardError(exc.code, field=exc.field, reason=exc.message) from None
    return list(competition.card_questions.all())


def _current(competition: Competition) -> dict[str, CardQuestionSpec]:
    return {
        q.slug: CardQuestionSpec(
            slug=q.slug,
            text=q.text,
            kind=q.kind,
            choices=tuple(q.choices),
            required=q.required,
            on_board=q.on_board,
        )
        for q in competition.card_questions.all()
    }


def card_question_save(
    *,
    competition: Competition,
    slug: str,
    text: str,
    kind: str,
    choices: list[str] | tuple[str, ...] = (),
    required: bool = False,
    on_board: bool = False,
) -> SystemCardQuestion:
    """Add or change (by slug) one question of the competition's system card."""
    try:
        question = CardQuestionSpec(
            slug=slug,
            text=text,
            kind=kind,
            choices=tuple(choices),
            required=required,
            on_board=on_board,
        )
    except SpecError as exc:
        raise CardError(exc.code, field=exc.field, reason=exc.message) from None
    questions = _current(competition)
    questions[question.slug] = question
    card_questions_set(competition=competition, questions=list(questions.values()))
    return competition.card_questions.get(slug=question.slug)


def card_defaults_set(*, competition: Competition, required: bool = True) -> list:
    """The CRAC questions (those already set are updated, others kept)."""
    questions = _current(competition)
    for q in CRAC_QUESTIONS:
        questions[q["slug"]] = CardQuestionSpec(
            slug=q["slug"],
            text=q["text"],
            kind=q["kind"],
            choices=tuple(q.get("choices", ())),
            required=required,
            on_board=q.get("on_board", False),
        )
    return card_questions_set(competition=competition, questions=list(questions.values()))


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


@transaction.atomic
def card_answers_save(
    *, submission: Submission, answers: Mapping[str, Any], user=None
) -> dict[str, str]:
    """Save a run's answers (question slug → answer; blank clears one). Every answer is
    checked before any is written; an unknown question is refused. Returns the run's card."""
    del user  # who may answer is the caller's check (the run's team, its organizers)
    questions = {
        q.slug: q
        for q in SystemCardQuestion.objects.filter(competition=submission.phase.task.competition)
    }
    if unknown := sorted(set(answers) - set(questions)):
        raise CardError(
            "unknown_question",
            field=unknown[0],
            reason=(
                f"the system card has no question {unknown[0]!r} (expected one of "
                f"{', '.join(questions) or 'none: the organizers set no questions'})"
            ),
        )
    checked = {slug: _answer_check(questions[slug], raw) for slug, raw in answers.items()}
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
    answered = set(card_of(submission=submission))
    return [
        q.text
        for q in SystemCardQuestion.objects.filter(
            competition=submission.phase.task.competition, required=True
        )
        if q.slug not in answered
    ]


def card_check(*, phase: Phase, answers: Mapping[str, Any]) -> None:
    """Before a final run is accepted: refuse when a required question is unanswered."""
    if phase.kind not in FINAL_KINDS:
        return
    missing = [
        q.text
        for q in SystemCardQuestion.objects.filter(
            competition=phase.task.competition, required=True
        )
        if not str(answers.get(q.slug, "") or "").strip()
    ]
    if missing:
        raise CardError(
            "card_incomplete",
            reason=("a final run needs its system card: answer " + "; ".join(missing)),
        )


def card_columns(
    *, competition: Competition, submissions: list[Submission]
) -> tuple[list[SystemCardQuestion], dict]:
    """The questions a board shows as columns and each run's answers to them
    ({submission id: {slug: answer}})."""
    questions = list(SystemCardQuestion.objects.filter(competition=competition, on_board=True))
    answers: dict[int, dict[str, str]] = {}
    for sub_id, slug, value in SystemCardAnswer.objects.filter(
        submission__in=submissions, question__in=questions
    ).values_list("submission_id", "question__slug", "value"):
        answers.setdefault(sub_id, {})[slug] = value
    return questions, answers
