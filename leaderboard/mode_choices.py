"""The board's Mode select: each scoring mode named in words (its procedure's own column
label), the task's own mode first, the others grouped by what they vary (mention matching,
singletons, split antecedents, empty nodes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from competition.models import Task
from competition.task_scoring import KIND_PROCEDURE, TASK_MODE, task_procedure
from scoring.procedures import PROCEDURES, Procedure
from scoring.vocabulary import EMPTY_NODES

# Group titles, in the order the select shows them.
PRIMARY = "Primary"
MATCHING = "Other mention matching"
SINGLETONS = "Singletons"
SPLIT = "Split antecedents"
EMPTY = "Empty nodes"
OTHER = "Other modes"
GROUP_ORDER = (PRIMARY, MATCHING, SINGLETONS, SPLIT, EMPTY, OTHER)


@dataclass(frozen=True)
class ModeChoice:
    value: str
    label: str


@dataclass(frozen=True)
class ModeGroup:
    label: str
    choices: tuple[ModeChoice, ...]


def _named(task: Task, procedure: str | None) -> Procedure | None:
    """The procedure named (a frozen board's, as it was at the freeze), else the task's."""
    if procedure is None:
        return task_procedure(task)
    return PROCEDURES.get(procedure) if procedure else None


def mode_words(task: Task, mode: str, *, procedure: str | None = None) -> str:
    """A mode in words: the procedure's label ("head match"), else its name without the
    scorer's underscores ("remove singletons remove split antecedent"). ``procedure``: the
    name a board was scored under (a frozen board's record), default the task's now."""
    named = _named(task, procedure)
    if mode == TASK_MODE and named is None:
        return "the task's setting"  # its own option words, whatever they are
    # a task scored from its options shares its kind's procedure's modes and labels
    labelled = named or PROCEDURES.get(KIND_PROCEDURE.get(task.kind, ""))
    label = labelled.labels.get(mode) if labelled is not None else None
    return label or mode.replace("_", " ")


def mode_group(mode: str, label: str) -> str:
    """Which group of the select a mode goes in."""
    if mode == TASK_MODE:
        return PRIMARY
    if mode == EMPTY_NODES:
        return EMPTY
    if "singleton" in mode:
        return SINGLETONS
    if "split_antecedent" in mode:
        return SPLIT
    if label.endswith(" match"):
        return MATCHING
    return OTHER


def mode_groups(
    *, task: Task, modes: Iterable[str], procedure: str | None = None
) -> list[ModeGroup]:
    """The select's groups, in `GROUP_ORDER`, each mode in the order given (``procedure``:
    as `mode_words`)."""
    grouped: dict[str, list[ModeChoice]] = {}
    for mode in modes:
        label = mode_words(task, mode, procedure=procedure)
        if mode == TASK_MODE:
            label = f"{label} (primary)"
        grouped.setdefault(mode_group(mode, label), []).append(ModeChoice(mode, label))
    return [ModeGroup(name, tuple(grouped[name])) for name in GROUP_ORDER if name in grouped]
