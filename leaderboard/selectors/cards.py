"""System cards on a board: the questions the organizers put on boards (``on_board``) as
columns, each shown row's answers, and the filter by answers (``?card.llm=yes``).

Only the rows the board already shows to its viewer get their answers read, so a hidden or
disqualified run's card never reaches a page, the API or an export. A filter keeps each row's
rank on the whole board: it hides rows, it does not rank again (the page says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from competition.models import Phase, SystemCardQuestion
from competition.services.cards import card_columns
from leaderboard.ranking import Row
from leaderboard.selectors.record import FrozenRecord, StoredQuestion

CARD_PREFIX = "card."
"""A board's filter by a question's answer: the query parameter ``card.<question slug>``."""
MAX_VALUES = 40
"""Distinct text answers offered in a filter's list (the rest can still be typed in the URL)."""


class CardFilterError(ValueError):
    """A filter names a question the board does not show."""


@dataclass(frozen=True)
class CardColumn:
    slug: str
    text: str
    values: tuple[str, ...]
    """The answers one may filter by: yes and no, the question's choices, or the distinct
    answers of the board's rows (a text question)."""


@dataclass(frozen=True)
class BoardCards:
    """The card part of a board: its columns, the shown rows' answers by submission id, the
    filter applied (question slug, answer) and how many rows the board has without it."""

    columns: tuple[CardColumn, ...] = ()
    answers: dict[int, dict[str, str]] = field(default_factory=dict)
    filter: tuple[tuple[str, str], ...] = ()
    total: int = 0

    def of(self, submission_id: int) -> dict[str, str]:
        return self.answers.get(submission_id, {})


def card_filter_parse(query) -> tuple[tuple[str, str], ...]:
    """The ``card.<slug>=<answer>`` parameters of a query (blank ones ignored), in order."""
    return tuple(
        (name.removeprefix(CARD_PREFIX), value.strip())
        for name, value in query.items()
        if name.startswith(CARD_PREFIX) and value and value.strip()
    )


def board_cards(
    *,
    phase: Phase,
    rows: Sequence[Row],
    card: Sequence[tuple[str, str]] = (),
    record: FrozenRecord | None = None,
) -> tuple[list[Row], BoardCards]:
    """The rows left by the filter ``card`` (each keeps its rank) and the board's cards;
    with ``record`` (a frozen board's) the questions and answers as they stood at the
    freeze. Raises `CardFilterError` when the filter names a question the board does not
    show."""
    questions: Sequence[SystemCardQuestion | StoredQuestion]
    if record is not None:
        shown_ids = {r.entry.submission_id for r in rows}
        questions = record.board_questions
        slugs = {q.slug for q in questions}
        answers = {
            sid: {slug: v for slug, v in given.items() if slug in slugs}
            for sid, given in record.answers.items()
            if sid in shown_ids
        }
    else:
        questions, answers = card_columns(
            competition=phase.task.competition,
            submissions=[r.entry.submission_id for r in rows],
            phase=phase,
        )
    known = {q.slug for q in questions}
    for slug, _ in card:
        if slug not in known:
            listing = ", ".join(sorted(known)) or "none: this board shows no system-card answers"
            raise CardFilterError(f"unknown system-card question {slug!r}: expected {listing}")
    columns = tuple(
        CardColumn(slug=q.slug, text=q.text, values=_values(q, answers)) for q in questions
    )
    wanted = [(slug, value.casefold()) for slug, value in card]
    shown = [
        row
        for row in rows
        if all(
            answers.get(row.entry.submission_id, {}).get(slug, "").casefold() == value
            for slug, value in wanted
        )
    ]
    return shown, BoardCards(
        columns=columns,
        answers={
            r.entry.submission_id: answers[r.entry.submission_id]
            for r in shown
            if r.entry.submission_id in answers
        },
        filter=tuple(card),
        total=len(rows),
    )


def _values(
    question: SystemCardQuestion | StoredQuestion, answers: dict[int, dict[str, str]]
) -> tuple[str, ...]:
    if question.kind == SystemCardQuestion.Kind.YES_NO:
        return ("yes", "no")
    if question.kind == SystemCardQuestion.Kind.CHOICE:
        return tuple(question.choices)
    given = sorted(
        {a[question.slug] for a in answers.values() if question.slug in a}, key=str.casefold
    )
    return tuple(given[:MAX_VALUES])
