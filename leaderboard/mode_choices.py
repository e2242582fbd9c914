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


def _procedure(task: Task) -> Procedure | None:
    """The task's procedure, or its kind's (whose modes a task scored from options shares)."""
    return task_procedure(task) or PROCEDURES.get(KIND_PROCEDURE.get(task.kind, ""))


def mode_words(task: Task, mode: str) -> str:
    """A mode in words: the procedure's label ("head match"), else its name without the
    scorer's underscores ("remove singletons remove split antecedent")."""
    if mode == TASK_MODE and task_procedure(task) is None:
        return "the task's setting"  # its own option words, whatever they are
    procedure = _procedure(task)
    label = procedure.labels.get(mode) if procedure is not None else None
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


def mode_groups(*, task: Task, modes: Iterable[str]) -> list[ModeGroup]:
    """The select's groups, in `GROUP_ORDER`, each mode in the order given."""
    grouped: dict[str, list[ModeChoice]] = {}
    for mode in modes:
        label = mode_words(task, mode)
        if mode == TASK_MODE:
            label = f"{label} (primary)"
        grouped.setdefault(mode_group(mode, label), []).append(ModeChoice(mode, label))
    return [ModeGroup(name, tuple(grouped[name])) for name in GROUP_ORDER if name in grouped]
