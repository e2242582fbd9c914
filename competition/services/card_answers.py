"""The answers of a run's system card: checked by the question's kind, saved, read, and
required of a final run (a run of a test phase) where the organizers mark a question so.

A run's card is locked once its phase has ended (`card_lock`): its team can no longer change
it, so what the overview paper splits by ("LLM-based or not") is what teams said while the
phase ran. The competition's organizers (and staff) may still correct a locked card, giving a
reason; such a change is written to the audit log, as is every card change they make.

Kept apart from `competition.services.cards` (which sets the questions through the
competition's one writer) so that an upload (`submission_create`) can check and save a run's
answers without importing the definition writer, which itself creates runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.utils import timezone

from competition.errors import CompetitionError
from competition.models import (
    AuditEntry,
    Competition,
    Phase,
    Submission,
    SystemCardAnswer,
    SystemCardQuestion,
)
from competition.services.audit import audit_record
from competition.timezones import zone_display
from competition.visibility import user_is_organizer

FINAL_KINDS = (Phase.Kind.TEST_PREDICTED, Phase.Kind.TEST_GOLD)
YES_NO = ("yes", "no")
MAX_ANSWER = 500
ANSWER_CODES = ("card_incomplete", "bad_answer", "unknown_question")
"""The codes of a refused answer (``CardError``; ``SubmissionRejected`` at an upload)."""
LOCK_CODES = ("cards_locked", "override_reason")
"""The codes of a refused change to a locked card (its phase has ended)."""
MAX_REASON = 300


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


def card_lock(*, submission: Submission, at: datetime | None = None) -> str:
    """Why the run's card can no longer be changed by its team ("" while it can): its phase
    has ended. A phase without an end never locks its cards."""
    phase = submission.phase
    at = at or timezone.now()
    if phase.end is None or at <= phase.end:
        return ""
    return (
        f"the phase {phase.title} ended on {zone_display(phase.end, phase.time_zone)}: "
        "its system cards are locked"
    )


@transaction.atomic
def card_answers_save(
    *, submission: Submission, answers: Mapping[str, Any], user=None, reason: str = ""
) -> dict[str, str]:
    """Save a run's answers (question slug → answer; blank clears one). Every answer is
    checked before any is written; an unknown question is refused. Returns the run's card.

    Who may answer is the caller's check (the run's team, its organizers). Once the phase
    has ended the card is locked (``CardError`` "cards_locked"); an organizer of the
    competition (or staff) may still change it with a ``reason`` ("override_reason" without
    one), which the audit log keeps with the change. Any change an organizer makes to a
    team's card is logged; ``user`` None (a command, a test) is taken as the operator."""
    competition = submission.phase.task.competition
    organizer = user is None or user_is_organizer(competition=competition, user=user)
    reason = " ".join(reason.split())
    locked = card_lock(submission=submission)
    if locked:
        _override_check(organizer=organizer, reason=reason, locked=locked)
    checked = card_answers_check(competition=competition, answers=answers)
    before = card_of(submission=submission)
    _answers_write(submission=submission, competition=competition, checked=checked)
    after = card_of(submission=submission)
    if after != before and (locked or (organizer and not _in_team(submission, user))):
        _card_audit(
            submission=submission, user=user, before=before, after=after, locked=locked, why=reason
        )
    return after


def card_answers_create(*, submission: Submission, answers: Mapping[str, Any]) -> None:
    """A new run's answers, as its upload gave them (in the upload's transaction): checked,
    written, neither locked nor logged, since nothing stood before them."""
    competition = submission.phase.task.competition
    checked = card_answers_check(competition=competition, answers=answers)
    _answers_write(submission=submission, competition=competition, checked=checked)


def _override_check(*, organizer: bool, reason: str, locked: str) -> None:
    if not organizer:
        raise CardError(
            "cards_locked",
            reason=f"{locked}; only the organizers can change a card now, giving a reason",
        )
    if not reason:
        raise CardError(
            "override_reason",
            field="reason",
            reason=f"{locked}; to change this card, say why (the reason goes to the audit log)",
        )
    if len(reason) > MAX_REASON:
        raise CardError(
            "override_reason", field="reason", reason=f"a reason of at most {MAX_REASON} characters"
        )


def _answers_write(
    *, submission: Submission, competition: Competition, checked: Mapping[str, str]
) -> None:
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


def _in_team(submission: Submission, user) -> bool:
    return user is not None and submission.team.members.filter(pk=user.pk).exists()


def _card_audit(
    *,
    submission: Submission,
    user,
    before: Mapping[str, str],
    after: Mapping[str, str],
    locked: str,
    why: str,
) -> None:
    changes = "; ".join(
        f"{slug}: {before.get(slug) or '–'} → {after.get(slug) or '–'}"
        for slug in sorted(set(before) | set(after))
        if before.get(slug) != after.get(slug)
    )
    phase = submission.phase
    detail = f"{phase.task.title} › {phase.title}: run #{submission.pk} of {submission.team.name}"
    if locked:
        detail += f", after the phase ended (reason: {why})"
    action = str(AuditEntry.Action.CARD_OVERRIDE if locked else AuditEntry.Action.CARD_CHANGED)
    audit_record(
        competition=phase.task.competition,
        actor=user,
        action=action,
        detail=f"{detail}; changed {changes}",
    )


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
