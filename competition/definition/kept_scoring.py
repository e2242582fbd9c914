"""A task's scoring that a definition leaves out, taken from the stored task it updates.

A definition that omits ``procedure``, ``scorer_options`` or ``primary_metric`` keeps what the
task has, as every other field it omits does: a reload never resets an organizer's scoring to
its kind's default (which would re-score the phases). What cannot be kept is left blank here,
so that `competition.definition.spec.TaskSpec` gives the kind's default, the one place that
says it, and checks the values as it checks values given.
"""

from __future__ import annotations

from typing import Any

from competition.definition.rules import UNSET
from competition.definition.spec import TaskSpec, checked_replace
from competition.models import Task
from competition.task_scoring import procedure_kind_check


def scoring_kept(spec: TaskSpec, stored: Task | None) -> TaskSpec:
    """``spec`` with its scoring left out (UNSET) taken from ``stored``, the task it updates
    (None: a new task), and checked in full. A procedure or options left out keep the stored
    ones (a changed kind keeps only a stored procedure that fits it); a primary metric left
    out keeps the stored one while the scoring stays the stored one. Anything not kept is
    left blank: the kind's default."""
    procedure, options, primary = spec.procedure, spec.scorer_options, spec.primary_metric
    if UNSET not in (procedure, options, primary):
        return spec
    if procedure is UNSET and options is UNSET:
        procedure, options = _stored_scoring(stored, kind=spec.kind)
    procedure = "" if procedure is UNSET else procedure
    options = None if options is UNSET else options
    if primary is UNSET:
        same = stored is not None and _same_scoring(stored, spec.kind, procedure, options)
        primary = stored.primary_metric if same and stored is not None else ""
    return checked_replace(
        spec, procedure=procedure, scorer_options=options, primary_metric=primary
    )


def _stored_scoring(stored: Task | None, *, kind: str) -> tuple[str, tuple[str, ...] | None]:
    """The stored task's procedure or scorer options as a spec gives them, when they fit
    ``kind``; else neither."""
    if stored is None:
        return "", None
    if stored.procedure:
        fits = procedure_kind_check(procedure=stored.procedure, kind=kind) is None
        return (stored.procedure, None) if fits else ("", None)
    return ("", tuple(stored.scorer_options)) if stored.kind == kind else ("", None)


def _same_scoring(stored: Task, kind: str, procedure: str, options: Any) -> bool:
    """Whether the scoring is the stored task's (its primary metric then still fits)."""
    if (stored.kind, stored.procedure) != (kind, procedure):
        return False
    return bool(procedure) or list(options or ()) == list(stored.scorer_options)
