"""The spec of a competition: what a definition says, typed, with its defaults and every rule.

Every writer of a competition builds these objects (the YAML loader from the file, the
definition upload from the file in the zip, the editor's forms from their fields) and hands
them to `competition.definition.apply`. A part read from input is built by its named
constructor, ``checked`` (``PhaseSpec.checked(...)``; `checked_replace` for a changed copy),
which holds it to its rules: a value that breaks one raises `SpecError` naming the
definition's key at fault (``field``) and what was expected; the writer adds where it was
(``tasks[0].phases[1]``, a form field). A part built plainly (``PhaseSpec(...)``) is taken as
it is: what the database holds (`competition.definition.current`), checked when written.

Nothing here touches the database or a file; the rules that need them (a gold key's content,
a slug already used) live in `competition.definition.keys` and `competition.definition.apply`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Self, TypeVar

from django.utils.text import slugify

from competition.definition.rules import (
    UNSET,
    Limits,
    SpecError,
    choice_check,
    count_check,
    kept_or_text,
    slug_check,
    text_check,
)
from competition.models import CompetitionPage, Phase, Task
from competition.task_scoring import (
    DEFAULT_OPTIONS,
    KIND_PROCEDURE,
    NAMED_BY_DEFAULT,
    procedure_kind_check,
    task_scoring_check,
)
from competition.timezones import AOE, AOE_OFFSET, UTC, zone_get
from scoring.procedures import PROCEDURES

# --- the parts of a competition -----------------------------------------------------------


class Checked:
    """A part with rules: built from input by `checked`, plainly from what is stored."""

    __slots__ = ()

    @classmethod
    def checked(cls, *args: Any, **values: Any) -> Self:
        """The part as input gives it, held to its rules (`SpecError` names the breach) and
        its values normalised (a sub-corpus's slug, a task's scoring, a phase's zone)."""
        part = cls(*args, **values)
        part._check()
        return part

    def _check(self) -> None:
        raise NotImplementedError


P = TypeVar("P", bound=Checked)


def checked_replace(part: P, /, **changes: Any) -> P:
    """A copy of ``part`` with ``changes``, held to its rules as input is."""
    copy = replace(part, **changes)  # type: ignore[type-var]
    copy._check()
    return copy


@dataclass(frozen=True, slots=True)
class KeyFile:
    """A gold key to read, check and store: ``path`` on this machine (inside the definition's
    folder or upload), ``label`` as the definition names it; ``sha256`` when the reader of the
    definition hashed it already (while extracting a zip)."""

    path: Path
    label: str
    sha256: str = ""


@dataclass(frozen=True, slots=True)
class StoredKey:
    """A gold key already on the platform (``key_file`` under PRIVATE_ROOT)."""

    key_file: str
    sha256: str
    documents: tuple = ()
    content_sha256: str = ""


@dataclass(slots=True)
class TrackSpec(Checked):
    slug: str
    name: str
    description: str = ""

    def _check(self) -> None:
        limits = Limits.current()
        self.slug = slug_check(self.slug)
        self.name = text_check(self.name, key="name", limit=100, required=True)
        self.description = kept_or_text(
            self.description, key="description", limit=limits.description_chars
        )


@dataclass(slots=True)
class SubCorpusSpec(Checked):
    """A dataset of a phase. ``key``: the gold key (a file to store, one stored already);
    None with ``available`` keeps the key the sub-corpus has (the editor's forms).
    ``language`` and ``file_name`` UNSET keep what the sub-corpus has."""

    name: str
    available: bool = True
    language: str = ""
    file_name: str = ""
    key: KeyFile | StoredKey | None = None
    slug: str = ""

    def _check(self) -> None:
        self.name = " ".join(text_check(self.name, key="name", limit=100, required=True).split())
        self.slug = slugify(self.name)
        if not self.slug:
            raise SpecError(
                "bad_name",
                field="name",
                reason=f"sub-corpus name {self.name!r} has no letter or digit",
            )
        if not isinstance(self.available, bool):
            raise SpecError(
                "bad_bool",
                field="available",
                reason=f"'available' must be true or false, not {self.available!r}",
            )
        self.language = kept_or_text(self.language, key="language", limit=64)
        self.file_name = kept_or_text(self.file_name, key="file", limit=255)
        if not self.available:
            self.key = None


@dataclass(slots=True)
class PhaseSpec(Checked):
    """A phase. A field left UNSET (a definition that does not give it) keeps what the
    phase has, or takes the model's default in a new phase (open-ended, a public board,
    5 runs a day, 100 in all, ...): reloading a definition that leaves out ``leaderboard:``
    never makes a hidden board public. ``time_zone`` UNSET is AoE when ``start`` is written
    at UTC−12 (as "" is; "" is otherwise UTC). ``subcorpora`` None keeps the phase's
    sub-corpora (the editor's phase form)."""

    slug: str
    kind: str
    title: str
    start: datetime
    end: datetime | None = UNSET
    time_zone: str = UNSET
    leaderboard_visibility: str = UNSET
    revealed_at: datetime | None = UNSET
    show_own_scores_when_hidden: bool = UNSET
    run_details: str = UNSET
    daily_limit: int = UNSET
    total_limit: int = UNSET
    counts: str = UNSET
    missing: str = UNSET
    subcorpora: tuple[SubCorpusSpec, ...] | None = None

    def _check(self) -> None:
        self.slug = slug_check(self.slug)
        self.kind = choice_check(str(self.kind), list(Phase.Kind.values), key="kind")
        self.title = text_check(self.title, key="title", limit=300, required=True)
        self._dates_check()
        self._zone_check()
        self._settings_check()
        self._subcorpora_once_check()

    def _dates_check(self) -> None:
        """A start, and each date given aware; an end not before the start."""
        for key in ("start", "end", "revealed_at"):
            value = getattr(self, key)
            if value is None or value is UNSET:
                if key == "start":
                    raise SpecError("required", field=key, reason="'start' is required")
                continue
            if not isinstance(value, datetime) or value.tzinfo is None:
                raise SpecError(
                    "bad_date",
                    field=key,
                    reason=f"'{key}' must be a date and "
                    "time with a time zone, like 2021-04-01T00:00:00Z",
                )
        if self.end is not None and self.end is not UNSET and self.end < self.start:
            raise SpecError(
                "end_before_start",
                field="end",
                reason="'end' is before 'start' "
                f"({self.end.isoformat()} < {self.start.isoformat()})",
            )

    def _settings_check(self) -> None:
        """The board's, the runs' and the limits' settings given: each one of its choices."""
        for name, choices, key in (
            ("leaderboard_visibility", Phase.Visibility.values, "leaderboard"),
            ("run_details", Phase.RunDetails.values, "run_details"),
            ("counts", Phase.Counts.values, "counts"),
            ("missing", Phase.Missing.values, "missing"),
        ):
            if getattr(self, name) is not UNSET:
                setattr(self, name, choice_check(str(getattr(self, name)), list(choices), key=key))
        if self.show_own_scores_when_hidden is not UNSET and not isinstance(
            self.show_own_scores_when_hidden, bool
        ):
            raise SpecError(
                "bad_bool",
                field="show_own_scores_when_hidden",
                reason="'show_own_scores_when_hidden' must be true or false",
            )
        for key in ("daily_limit", "total_limit"):
            if getattr(self, key) is not UNSET:
                setattr(self, key, count_check(getattr(self, key), key=key))

    def _subcorpora_once_check(self) -> None:
        if self.subcorpora is None:
            return
        seen: set[str] = set()
        for subcorpus in self.subcorpora:
            if subcorpus.slug in seen:
                raise SpecError(
                    "name_taken",
                    field="name",
                    reason=f"sub-corpus name {subcorpus.name!r} is used twice in the phase",
                )
            seen.add(subcorpus.slug)

    def _zone_check(self) -> None:
        """A start written at UTC−12 says AoE when no zone is given; "" is UTC otherwise,
        UNSET keeps the phase's zone."""
        if not self.time_zone:  # "" or UNSET
            if self.start.utcoffset() == AOE_OFFSET:
                self.time_zone = AOE
            elif self.time_zone is not UNSET:
                self.time_zone = UTC
        if self.time_zone is UNSET:
            return
        try:
            zone_get(self.time_zone)
        except ValueError as exc:
            raise SpecError("bad_time_zone", field="time_zone", reason=str(exc)) from None

    def values(self) -> dict[str, Any]:
        """The phase's model fields this spec sets (UNSET ones left out)."""
        return {
            name: getattr(self, name) for name in PHASE_FIELDS if getattr(self, name) is not UNSET
        }


PHASE_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(PhaseSpec) if f.name not in ("slug", "subcorpora")
)
"""The fields of a phase a definition sets, by their model names: the one list."""


@dataclass(slots=True)
class TaskSpec(Checked):
    """A task. Its scoring: a named ``procedure``, or ``scorer_options`` (words of the
    scorer), never both; neither: its kind's procedure (named for the kinds in
    `NAMED_BY_DEFAULT`, else by its words). ``tracks``/``phases`` None and ``description``
    UNSET keep what the task has (the editor's task form, a definition that leaves them out).
    ``procedure``, ``scorer_options`` and ``primary_metric`` UNSET (a definition that leaves
    one out) are resolved against the stored task when applied
    (`competition.definition.kept_scoring`)."""

    slug: str
    kind: str
    title: str
    description: str = ""
    procedure: str = ""
    scorer_options: tuple[str, ...] | None = None
    primary_metric: str = ""
    tracks: tuple[TrackSpec, ...] | None = None
    phases: tuple[PhaseSpec, ...] | None = None

    def _check(self) -> None:
        self.slug = slug_check(self.slug)
        if self.slug in Task.RESERVED_SLUGS:
            raise SpecError(
                "slug_reserved",
                field="slug",
                reason=(
                    f"the task slug {self.slug!r} is a word of the site's addresses (not one of "
                    f"{', '.join(sorted(Task.RESERVED_SLUGS))})"
                ),
            )
        self.kind = choice_check(str(self.kind), list(Task.Kind.values), key="kind")
        self.title = text_check(self.title, key="title", limit=300, required=True)
        self.description = kept_or_text(
            self.description, key="description", limit=Limits.current().description_chars
        )
        self._scoring_check()
        self._once_each_check()

    def _scoring_check(self) -> None:
        """A procedure or scorer options (the kind's when neither), and a primary metric;
        with one of them UNSET, only what can be checked before the stored task is known."""
        self._scoring_given_check()
        if UNSET in (self.procedure, self.scorer_options, self.primary_metric):
            return  # resolved when applied (`kept_scoring`), then checked in full
        self._scoring_resolve()

    def _scoring_given_check(self) -> None:
        """The scoring values given, each on its own; and not both procedure and options."""
        if self.procedure is not UNSET:
            self.procedure = text_check(self.procedure, key="procedure", limit=64)
        if self.primary_metric is not UNSET:
            self.primary_metric = text_check(self.primary_metric, key="primary_metric", limit=64)
        if self.scorer_options is not None and self.scorer_options is not UNSET:
            if isinstance(self.scorer_options, str) or not all(
                isinstance(word, str) for word in self.scorer_options
            ):
                raise SpecError(
                    "bad_scoring",
                    field="scorer_options",
                    reason="'scorer_options' must be a list of scorer option words",
                )
            self.scorer_options = tuple(self.scorer_options)
        if self.procedure and self.scorer_options is not None and self.scorer_options is not UNSET:
            raise SpecError(
                "procedure_and_options",
                field="procedure",
                reason="give either 'procedure' or 'scorer_options', not both",
            )

    def _scoring_resolve(self) -> None:
        """The kind's scoring where neither procedure nor options are given, its primary
        metric where none is; the procedure fits the kind and the metric the words."""
        if not self.procedure and self.scorer_options is None:
            if self.kind in NAMED_BY_DEFAULT:
                self.procedure = KIND_PROCEDURE[self.kind]
            else:
                self.scorer_options = PROCEDURES[KIND_PROCEDURE[self.kind]].modes["task"]
        if self.procedure and (
            problem := procedure_kind_check(procedure=self.procedure, kind=self.kind)
        ):
            raise SpecError("kind_procedure", field="kind", reason=problem)
        if self.procedure:  # what a task with a procedure has always recorded
            self.scorer_options = tuple(DEFAULT_OPTIONS[self.kind])
        named = self.procedure or KIND_PROCEDURE[self.kind]
        default_primary = PROCEDURES[named].primary_metric if named in PROCEDURES else ""
        self.primary_metric = self.primary_metric or default_primary
        if problem := task_scoring_check(
            words=self.scorer_options or (),  # (set above)
            primary_metric=self.primary_metric,
            procedure=self.procedure,
        ):
            raise SpecError("bad_scoring", field="scorer_options", reason=problem)

    def _once_each_check(self) -> None:
        """Each track and each phase named once in the task."""
        for key, parts in (("tracks", self.tracks), ("phases", self.phases)):
            if parts is None:
                continue
            slugs = [part.slug for part in parts]
            if twice := sorted({slug for slug in slugs if slugs.count(slug) > 1}):
                raise SpecError(
                    "slug_taken",
                    field=key,
                    reason=f"{key[:-1]} slug {twice[0]!r} is used twice in the task",
                )


@dataclass(slots=True)
class BaselineSpec:
    """A run of the organizers scored when the definition is loaded: ``files`` maps a
    sub-corpus name to its response file (inside the definition's folder or upload)."""

    name: str
    phase: str  # "task/phase"
    files: tuple[tuple[str, Path], ...]
    description: str = ""


@dataclass(slots=True)
class CardQuestionSpec(Checked):
    """A question of the competition's system card (`competition.services.cards`)."""

    slug: str
    text: str
    kind: str = "text"
    choices: tuple[str, ...] = ()
    required: bool = False
    on_board: bool = False
    when: tuple[tuple[str, str], ...] = ()
    """(question slug, answer) pairs: asked only when each earlier question was so answered."""

    def _check(self) -> None:
        self.slug = slug_check(self.slug)
        self.text = text_check(self.text, key="text", limit=300, required=True)
        self.when = tuple(
            (slug_check(str(slug)), text_check(str(answer), key="when", limit=100, required=True))
            for slug, answer in self.when
        )
        self.kind = choice_check(str(self.kind), ["yes_no", "choice", "text", "url"], key="kind")
        self.choices = tuple(text_check(c, key="choices", limit=100) for c in self.choices)
        if self.kind == "choice" and len([c for c in self.choices if c]) < 2:
            raise SpecError(
                "bad_choices", field="choices", reason="a question with choices needs at least two"
            )


def card_conditions_check(questions: Sequence[CardQuestionSpec]) -> None:
    """Each ``when`` names an earlier question with a fixed set of answers (yes/no or
    choices), and one of those answers."""
    earlier: dict[str, CardQuestionSpec] = {}
    for question in questions:
        for slug, answer in question.when:
            condition = earlier.get(slug)
            if condition is None or condition.kind not in ("yes_no", "choice"):
                raise SpecError(
                    "bad_condition",
                    field="when",
                    reason=(
                        f"the question {question.slug!r} is asked when {slug!r} is answered "
                        f"{answer!r}, but {slug!r} is not an earlier yes/no or choice question"
                    ),
                )
            answers = ("yes", "no") if condition.kind == "yes_no" else condition.choices
            if answer not in answers:
                raise SpecError(
                    "bad_condition",
                    field="when",
                    reason=(
                        f"the question {question.slug!r} is asked when {slug!r} is answered "
                        f"{answer!r}, which is not one of {', '.join(answers)}"
                    ),
                )
        earlier[question.slug] = question


@dataclass(slots=True)
class CompetitionSpec(Checked):
    """A whole competition as a definition gives it. ``team_approval`` and ``published``
    None, ``description`` and ``website`` UNSET keep what the competition has; ``pages``
    lists only the pages given (kind → text).
    Applying a spec never publishes a competition by itself: ``published`` is only ever
    carried to the one place in `apply` that records it."""

    slug: str
    title: str
    description: str = ""
    website: str = ""
    organizers: tuple[str, ...] = ()
    team_approval: bool | None = None
    published: bool | None = None
    pages: dict[str, str] = field(default_factory=dict)
    tasks: tuple[TaskSpec, ...] = ()
    baselines: tuple[BaselineSpec, ...] = ()
    card_questions: tuple[CardQuestionSpec, ...] | None = None  # None: keep what it has

    def _check(self) -> None:
        limits = Limits.current()
        self.slug = slug_check(self.slug)
        self.title = text_check(self.title, key="title", limit=limits.title_chars, required=True)
        self.description = kept_or_text(
            self.description, key="description", limit=limits.description_chars
        )
        self.website = kept_or_text(self.website, key="website", limit=200)
        kinds = [kind for kind, _ in CompetitionPage.Kind.choices]
        for kind, body in self.pages.items():
            if kind not in kinds:
                raise SpecError(
                    "unknown_page",
                    field="pages",
                    reason=(f"unknown page {kind!r}; expected one of {', '.join(kinds)}"),
                )
            if len(body.encode("utf-8", "surrogatepass")) > limits.page_bytes:
                raise SpecError(
                    "too_long",
                    field=f"pages.{kind}",
                    reason=f"the page {kind} is larger than the limit of {limits.page_bytes} bytes",
                )
            if "\x00" in body:
                raise SpecError(
                    "bad_text",
                    field=f"pages.{kind}",
                    reason=f"the page {kind} contains a NUL character",
                )
        slugs = [task.slug for task in self.tasks]
        if twice := sorted({slug for slug in slugs if slugs.count(slug) > 1}):
            raise SpecError(
                "slug_taken", field="tasks", reason=f"task slug {twice[0]!r} is used twice"
            )
        if self.card_questions is not None:
            card_conditions_check(self.card_questions)
