"""System cards: what a team says of the system behind a run (LLM-based or not, base model,
parameters, how it was adapted, external data, the licence of its weights, its code).

Organizers set a competition's questions (`card_defaults_set` gives the CRAC ones); a team
answers per run (`card_answers_save`, from the run's page or the API). A question marked
``required`` must be answered for a final run (a run of a test phase): `card_missing` names
what such a run still lacks. Answers are checked against the question's kind; text is
stored as given and rendered escaped. The answers' side lives in
`competition.services.card_answers` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from competition.definition import apply
from competition.definition.spec import CardQuestionSpec, CompetitionSpec, SpecError
from competition.models import (
    Competition,
    Phase,
    Submission,
    SystemCardAnswer,
    SystemCardQuestion,
)
from competition.services.card_answers import (
    ANSWER_CODES,
    FINAL_KINDS,
    LOCK_CODES,
    MAX_ANSWER,
    MAX_REASON,
    YES_NO,
    CardError,
    card_answers_check,
    card_answers_create,
    card_answers_save,
    card_check,
    card_lock,
    card_missing,
    card_of,
    card_required,
)

__all__ = [
    "ANSWER_CODES",
    "CRAC_QUESTIONS",
    "FINAL_KINDS",
    "MAX_ANSWER",
    "LOCK_CODES",
    "MAX_REASON",
    "YES_NO",
    "CardError",
    "card_answers_check",
    "card_answers_create",
    "card_answers_save",
    "card_lock",
    "card_check",
    "card_columns",
    "card_defaults_set",
    "card_missing",
    "card_of",
    "card_question_save",
    "card_questions_set",
    "card_required",
]

LLM_ONLY = {"llm": "yes"}
CRAC_QUESTIONS: tuple[dict[str, Any], ...] = (
    {"slug": "llm", "text": "Is the system LLM-based?", "kind": "yes_no", "on_board": True},
    {
        "slug": "base-model",
        "text": "Base model (name and version)",
        "kind": "text",
        "on_board": True,
        "when": LLM_ONLY,
    },
    {
        "slug": "parameters",
        "text": "Number of parameters (e.g. 7B)",
        "kind": "text",
        "when": LLM_ONLY,
    },
    {
        "slug": "adaptation",
        "text": "How was the model adapted to the task?",
        "kind": "choice",
        "choices": ["fine-tuned", "few-shot", "zero-shot", "not applicable"],
        "on_board": True,
        "when": LLM_ONLY,
    },
    {
        "slug": "external-data",
        "text": "External data used (beyond the task's training data)",
        "kind": "text",
    },
    {
        "slug": "weights-licence",
        "text": "Licence of the model weights",
        "kind": "text",
        "when": LLM_ONLY,
    },
    {"slug": "code", "text": "Link to the code", "kind": "url"},
)
"""The questions the CRAC 2025 and 2026 overview papers asked of every system; those on the
model are asked of LLM-based systems only (``when``)."""


def card_questions_set(
    *, competition: Competition, questions: list[CardQuestionSpec]
) -> list[SystemCardQuestion]:
    """The competition's questions, in order, written by the one writer of a competition
    (`competition.definition.apply`); a question runs answered is never removed."""
    try:
        spec = CompetitionSpec.checked(
            slug=competition.slug,
            title=competition.title,
            description=competition.description,
            website=competition.website,
            card_questions=tuple(questions),
        )
        apply.competition_head_apply(spec=spec)
    except SpecError as exc:
        raise CardError(exc.code, field=exc.field, reason=exc.message) from None
    return list(competition.card_questions.all())


def _current(competition: Competition) -> dict[str, CardQuestionSpec]:
    return {
        q.slug: CardQuestionSpec.checked(
            slug=q.slug,
            text=q.text,
            kind=q.kind,
            choices=tuple(q.choices),
            required=q.required,
            on_board=q.on_board,
            when=tuple(q.when.items()),
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
    when: Mapping[str, str] | None = None,
) -> SystemCardQuestion:
    """Add or change (by slug) one question of the competition's system card; ``when``
    ({question slug: answer}): asked only when an earlier question is so answered."""
    try:
        question = CardQuestionSpec.checked(
            slug=slug,
            text=text,
            kind=kind,
            choices=tuple(choices),
            required=required,
            on_board=on_board,
            when=tuple((when or {}).items()),
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
        questions[q["slug"]] = CardQuestionSpec.checked(
            slug=q["slug"],
            text=q["text"],
            kind=q["kind"],
            choices=tuple(q.get("choices", ())),
            required=required,
            on_board=q.get("on_board", False),
            when=tuple(q.get("when", {}).items()),
        )
    return card_questions_set(competition=competition, questions=list(questions.values()))


def card_columns(
    *,
    competition: Competition,
    submissions: Sequence[Submission | int],
    phase: Phase | None = None,
) -> tuple[list[SystemCardQuestion], dict[int, dict[str, str]]]:
    """The questions a board shows as columns and each run's answers to them
    ({submission id: {slug: answer}}); ``submissions``: runs or their ids. With ``phase``
    (the runs' phase) the answers are read by phase, which a board of a thousand runs reads
    in half the time of a list of ids, and kept for ``submissions`` only."""
    questions = list(SystemCardQuestion.objects.filter(competition=competition, on_board=True))
    answers: dict[int, dict[str, str]] = {}
    if not questions or not submissions:
        return questions, answers
    slugs = {q.pk: q.slug for q in questions}
    wanted = {s if isinstance(s, int) else s.pk for s in submissions}
    found = SystemCardAnswer.objects.filter(question_id__in=slugs)
    found = found.filter(submission__phase=phase) if phase else found.filter(submission__in=wanted)
    for sub_id, question_id, value in found.values_list("submission_id", "question_id", "value"):
        if sub_id in wanted:
            answers.setdefault(sub_id, {})[slugs[question_id]] = value
    return questions, answers
