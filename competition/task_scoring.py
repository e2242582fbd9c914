"""How a task is scored: its kind's default scorer options and primary metric, the modes a
submission is scored in, and the check a definition's options pass when it is loaded.

This is the one place where the competition app turns a task into the scorer's
`ScoringOptions`. A task stores its options as scorer option words (``scorer_options``, the
words of the UA scorer's command line, v1 bare words or v2 dash options); they are parsed
here, by the scorer's own parser, when a definition is loaded (`task_scoring_check`, so a bad
word is the organizer's error at load time, never a team's at upload) and when a submission
is scored (`task_modes`).

A task that names a scoring procedure (``procedure``, one of `scoring.procedures`: an
edition's official, versioned scoring, e.g. ``crac-2024``) is scored in the procedure's modes:
its own mode (``task``, with per-document rows, the primary metric's) and the edition's variant
columns (e.g. partial and exact match, with singletons), in the same job. Otherwise it is
scored in its own mode, from ``scorer_options``, and, for identity tasks, in two analysis modes
(no singletons and no split antecedents; split antecedents only), whose rows the analysis
pages show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from competition.models import Score, Task
from scoring import ScoringOptions, UsageError, parse_options
from scoring.procedures import PROCEDURES, Procedure
from scoring.vocabulary import (
    BRIDGING_LEVELS,
    BRIDGING_METRICS,
    CONLL,
    EMPTY_NODE_MEASURES,
    EMPTY_NODES,
    NON_REFERRING,
)

TASK_MODE = Score.TASK_MODE

KIND_PROCEDURE: dict[str, str] = {
    Task.Kind.IDENTITY: "codi-crac-2021-identity",
    Task.Kind.BRIDGING: "codi-crac-2021-bridging",
    Task.Kind.DISCOURSE_DEIXIS: "codi-crac-2021-discourse-deixis",
    Task.Kind.COREFUD: "crac-2025",
}
"""A task kind's scoring when its definition names none: a procedure of the scorer. The
kind's default options, primary metric and analysis modes are the procedure's, said once."""

NAMED_BY_DEFAULT = frozenset({Task.Kind.COREFUD})
"""Kinds whose tasks record their default procedure by name; the others record its words
(``scorer_options``) and are scored from them (the CODI-CRAC tasks, as they always were)."""

DEFAULT_OPTIONS: dict[str, list[str]] = {
    kind: [] if kind in NAMED_BY_DEFAULT else list(PROCEDURES[name].modes[TASK_MODE])
    for kind, name in KIND_PROCEDURE.items()
}
"""A task kind's scorer words when its definition names none (its procedure's)."""

DEFAULT_PRIMARY_METRIC: dict[str, str] = {
    kind: PROCEDURES[name].primary_metric for kind, name in KIND_PROCEDURE.items()
}
"""The metric a task kind ranks by when its definition names none (its procedure's)."""

DEFAULT_PROCEDURE: dict[str, str] = {kind: KIND_PROCEDURE[kind] for kind in NAMED_BY_DEFAULT}
"""A task kind's procedure, recorded by name, when its definition names none."""

ANALYSIS_MODES: dict[str, tuple[tuple[str, ...], ...]] = {
    kind: tuple(words for mode, words in PROCEDURES[name].modes.items() if mode != TASK_MODE)
    for kind, name in KIND_PROCEDURE.items()
    if kind not in NAMED_BY_DEFAULT
}
"""Modes scored besides the task's own, by kind (their names are their words): the other
modes of the kind's procedure, for a task scored from its options."""


@dataclass(frozen=True, slots=True)
class ScoringMode:
    """One scoring of each sub-corpus of a submission."""

    name: str  # "task", or the analysis mode's words
    words: tuple[str, ...]  # as stored on the scoring run
    options: ScoringOptions
    per_doc: bool  # per-document rows are stored (the task's own mode)
    notes: tuple[str, ...] = ()  # what the parser said of the words (v2 "Auto reset")


def task_procedure(task: Task) -> Procedure | None:
    """The task's scoring procedure, or None when it is scored from its options."""
    return PROCEDURES[task.procedure] if task.procedure else None


def evaluates_empty_nodes(task: Task) -> bool:
    """Whether the task's procedure scores empty nodes (CRAC 2026's ``empty-nodes`` mode)."""
    procedure = task_procedure(task)
    return procedure is not None and EMPTY_NODES in procedure.modes


def mode_label(task: Task, mode: str) -> str:
    """How a page names one of the task's modes (a procedure's column label)."""
    procedure = task_procedure(task)
    return procedure.label(mode) if procedure is not None else mode


def scoring_modes(task: Task) -> dict[str, list[str]]:
    """{mode name: scorer option words} of a task: what a scoring run records, and what a
    run is compared with to tell that the task's options changed since."""
    procedure = task_procedure(task)
    if procedure is not None:
        modes = {name: list(words) for name, words in procedure.modes.items()}
        modes[TASK_MODE] = [*modes[TASK_MODE], "--per-doc"]
        return modes
    base = [str(word) for word in task.scorer_options]
    modes = {TASK_MODE: [*base, "--per-doc"]}
    for words in ANALYSIS_MODES.get(task.kind, ()):
        modes[" ".join(words)] = [*words]
    return modes


def task_modes(task: Task) -> list[ScoringMode]:
    """The modes a submission of ``task`` is scored in, parsed. Raises `UsageError` for
    options the scorer refuses (a definition loaded before they were checked)."""
    modes = []
    for name, words in scoring_modes(task).items():
        invocation = parse_options(words)
        modes.append(
            ScoringMode(
                name=name,
                words=tuple(words),
                options=invocation.options,
                per_doc=invocation.per_doc,
                notes=tuple(invocation.notes),
            )
        )
    return modes


def produced_metrics(options: ScoringOptions) -> set[str]:
    """The score-row metrics a scoring with ``options`` writes (bridging relations aside)."""
    metrics = {*options.metrics, *options.extra_metrics}
    if options.empty_nodes:
        metrics.update(EMPTY_NODE_MEASURES)
    if options.conll:
        metrics.add(CONLL)
    if options.keep_non_referring:
        metrics.add(NON_REFERRING)
    if options.keep_bridging:
        metrics.update(BRIDGING_METRICS[level] for level in BRIDGING_LEVELS)
    return metrics


def validation_options(task: Task) -> ScoringOptions:
    """The options an upload to ``task`` is validated with: those of its own mode."""
    return parse_options(scoring_modes(task)[TASK_MODE]).options


def procedure_kind(name: str) -> str | None:
    """The task kind a procedure scores: the kind whose default it is, or multilingual
    coreference for a procedure that reads CorefUD files; None for an unknown name."""
    found = PROCEDURES.get(name)
    if found is None:
        return None
    for kind, default in KIND_PROCEDURE.items():
        if default == name:
            return kind
    words = found.modes[TASK_MODE]
    reads_corefud = any(
        words[i] in ("-f", "--format") and words[i + 1] == "corefud" for i in range(len(words) - 1)
    )
    return str(Task.Kind.COREFUD) if reads_corefud else None


def procedure_kind_check(*, procedure: str, kind: str) -> str | None:
    """Why a task of ``kind`` may not be scored by ``procedure``, or None when it may (or
    the procedure is unknown, which `task_scoring_check` says)."""
    wanted = procedure_kind(procedure)
    if wanted is None or wanted == kind:
        return None
    fitting = [name for name in PROCEDURES if procedure_kind(name) == kind]
    return (
        f"procedure {procedure!r} scores {Task.Kind(wanted).label} tasks, not "
        f"{Task.Kind(kind).label}: choose the kind {Task.Kind(wanted).label}"
        + (f", or a procedure of {Task.Kind(kind).label} ({', '.join(fitting)})" if fitting else "")
    )


def task_scoring_check(
    *, words: Sequence[str], primary_metric: str, procedure: str = ""
) -> str | None:
    """What is wrong with a task's scoring, or None: an unknown procedure, options the scorer
    refuses, or a primary metric the options do not produce."""
    if procedure:
        if procedure not in PROCEDURES:
            return f"procedure {procedure!r} is unknown (expected one of {', '.join(PROCEDURES)})"
        words = PROCEDURES[procedure].modes[TASK_MODE]
    try:
        options = parse_options([*words]).options
    except UsageError as exc:
        return f"the scorer refuses scorer_options {list(words)!r}: {exc}"
    produced = produced_metrics(options)
    if primary_metric not in produced:
        return (
            f"primary_metric {primary_metric!r} is not produced by scorer_options "
            f"{list(words)!r} (they produce {', '.join(sorted(produced))})"
        )
    return None
