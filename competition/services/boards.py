"""What a board shows of each run, kept when the run's scores change (`BoardEntry`).

A board ranks the phase's runs by the task's primary metric in the task mode and, for a task
with a scoring procedure, prints each run's macro-averages in the procedure's variant columns.
Reading those numbers from the score rows costs every row of every run on each request; this
module keeps them in one `BoardEntry` per scored run instead, and `board_entries_write` is the
only function that writes one. It is called wherever a run's current scoring changes:

- ``submission_record`` (the worker, baselines and re-scores all record through it),
- ``reference_results_import`` (published results),
- ``competition_load`` (a definition may change a task's primary metric or procedure, or
  delete sub-corpora and their score rows),
- the data migration that fills the table for runs stored before it existed.

Once the writes are committed, `board_entries_written` is sent with the phases whose boards
changed (not from a data migration): the leaderboard app builds their public views once the
batch of changes is over (`leaderboard.jobs`), so that visitors read them ready-made.

What a run's row in a board says besides its scores (team, run name, status, baseline,
chosen, disqualified, track) is read from the submission itself in the same query, so
disqualifying, choosing, cancelling or revealing writes nothing here. A reader uses an entry
only while its ``run`` is the submission's current scoring and its ``pairs`` are what the task
shows (`board_pairs`); anything else is read from the score rows, so a missing or outdated
entry costs time, never a wrong number.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.dispatch import Signal

from competition.models import BoardEntry, Phase, Score, ScoringRun, Submission
from scoring.procedures import PROCEDURES
from scoring.vocabulary import CONLL, EMPTY_NODE_MEASURES, EMPTY_NODES, metric_label

TASK_MODE = Score.TASK_MODE
SUPPLEMENTARY = ("mor", "zero")
"""Metrics of the task's own mode shown as variant columns when the procedure scores them."""
CHUNK = 500

board_entries_written = Signal()
"""Sent once the board entries of some runs were rewritten and committed, with
``phase_ids``: the phases of those runs."""


@dataclass(frozen=True)
class VariantColumn:
    mode: str
    metric: str
    label: str


def variant_columns(*, procedure: str) -> list[VariantColumn]:
    """The variant columns of a task's board: the CoNLL score in each other mode of its
    procedure, the supplementary metrics of its own mode and, where the procedure evaluates
    empty nodes, their ten measures (none without a procedure)."""
    found = PROCEDURES.get(procedure) if procedure else None
    if found is None:
        return []
    columns = [
        VariantColumn(mode, CONLL, found.label(mode))
        for mode in found.modes
        if mode not in (TASK_MODE, EMPTY_NODES)
    ]
    own = found.options(TASK_MODE)
    columns += [
        VariantColumn(TASK_MODE, name, metric_label(name))
        for name in SUPPLEMENTARY
        if name in own.extra_metrics
    ]
    if EMPTY_NODES in found.modes:  # CRAC 2026: the empty-node measures, last
        columns += [
            VariantColumn(EMPTY_NODES, name, metric_label(name)) for name in EMPTY_NODE_MEASURES
        ]
    return columns


def board_pairs(*, primary_metric: str, procedure: str) -> tuple[tuple[str, str], ...]:
    """The (mode, metric) pairs a board shows by default: the primary metric in the task
    mode, then the variant columns."""
    pairs = [(TASK_MODE, primary_metric)]
    pairs += [
        (c.mode, c.metric)
        for c in variant_columns(procedure=procedure)
        if (c.mode, c.metric) not in pairs
    ]
    return tuple(pairs)


def pairs_text(pairs: Iterable[tuple[str, str]]) -> str:
    """How `BoardEntry.pairs` names a set of pairs (compared as text by readers)."""
    return json.dumps([list(pair) for pair in pairs], separators=(",", ":"))


def board_entries_write(*, submission_ids: Iterable[int], models=None) -> int:
    """Rebuild the board entries of these submissions from their current scoring; a
    submission that is not scored, or has no current scoring, keeps none. Returns the number
    of entries written.

    ``models``: the model classes (Submission, ScoringRun, Score, BoardEntry) to use, for a
    data migration's historical models; the current ones by default.
    """
    submission_model, run_model, score_model, entry_model = models or (
        Submission,
        ScoringRun,
        Score,
        BoardEntry,
    )
    ids = sorted(set(submission_ids))
    written = 0
    with transaction.atomic():
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            written += _write_chunk(chunk, submission_model, run_model, score_model, entry_model)
        if models is None and ids:
            phase_ids = sorted(
                set(submission_model.objects.filter(pk__in=ids).values_list("phase_id", flat=True))
            )
            transaction.on_commit(
                lambda: board_entries_written.send(sender=BoardEntry, phase_ids=phase_ids)
            )
    return written


def _write_chunk(ids, submission_model, run_model, score_model, entry_model) -> int:
    tasks = {
        pk: board_pairs(primary_metric=primary, procedure=procedure)
        for pk, primary, procedure in submission_model.objects.filter(
            pk__in=ids, status="scored"
        ).values_list("pk", "phase__task__primary_metric", "phase__task__procedure")
    }
    runs = dict(
        run_model.objects.filter(submission_id__in=list(tasks), is_current=True).values_list(
            "submission_id", "id"
        )
    )
    entry_model.objects.filter(submission_id__in=ids).delete()
    if not runs:
        return 0
    modes = {mode for sid in runs for mode, _ in tasks[sid]}
    metrics = {metric for sid in runs for _, metric in tasks[sid]}
    scores: dict[int, dict] = {sid: {} for sid in runs}
    rows = score_model.objects.filter(
        run_id__in=list(runs.values()),
        document="",
        mode__in=modes,
        metric__in=metrics,
    ).values_list(
        "submission_id", "run_id", "mode", "metric", "subcorpus__slug", "recall", "precision", "f1"
    )
    for sid, run_id, mode, metric, slug, r, p, f in rows:
        if runs.get(sid) == run_id and (mode, metric) in tasks[sid]:
            scores[sid].setdefault(mode, {}).setdefault(metric, {})[slug] = [r, p, f]
    entry_model.objects.bulk_create(
        [
            entry_model(
                submission_id=sid, run_id=run_id, pairs=pairs_text(tasks[sid]), scores=scores[sid]
            )
            for sid, run_id in runs.items()
        ]
    )
    return len(runs)


def board_entries_refresh(*, phases: Iterable[Phase] | None = None, models=None) -> int:
    """Rebuild the board entries of every submission of ``phases`` (None: of all phases)."""
    submission_model = (models or (Submission,))[0]
    submissions = submission_model.objects.all()
    if phases is not None:
        submissions = submissions.filter(phase_id__in=[p.pk for p in phases])
    return board_entries_write(
        submission_ids=submissions.values_list("pk", flat=True), models=models
    )
