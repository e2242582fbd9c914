"""``python -m bench --cases rebuild-10000``: one score change at 10,000 runs rebuilds the kept
board views (goal ≤ 2 s of CPU).

Seeds a throwaway database as `board-10000` does (10,000 runs of 100 teams × 4 datasets,
inserted in bulk), builds the kept views once (as after a bulk load), then ``CHANGES`` times
rescores one run (a new current scoring run, its task-mode scores a little lower, its board
entry rewritten by `competition.services.boards.board_entries_write`, as the worker does) and
measures the CPU time of `leaderboard.services.board_views_warm`, what the change's job runs
(the views of the teams' board and of all runs, page and API), in this process (the
database's own work is in it on SQLite, not on a PostgreSQL server), with the part of it
spent reading the phase's state (`board_state`, the views' key). Median of the changes.

Nothing is asserted; the figures are printed, to be read.
"""

from __future__ import annotations

import statistics
import sys
import time

from bench import boards

NAME = "rebuild-10000"
RUNS = 10_000
CHANGES = 3


def _change_one_score(submission_id: int) -> None:
    """A rescoring of one run, as the worker records it: a new current scoring run whose
    task-mode scores are the old ones a little lower, then the run's board entry rewritten."""
    from django.db import transaction

    from competition.models import Score, ScoringRun
    from competition.services.boards import board_entries_write
    from scoring.procedures import TASK_MODE

    with transaction.atomic():
        old = ScoringRun.objects.get(submission_id=submission_id, is_current=True)
        ScoringRun.objects.filter(pk=old.pk).update(is_current=False)
        new = ScoringRun.objects.get(pk=old.pk)
        new.pk, new.is_current, new.task_id = None, True, f"bench-rescore-{submission_id}"
        new.save()
        rows = list(Score.objects.filter(run=old))
        for row in rows:
            row.pk, row.run = None, new
            if row.mode == TASK_MODE:
                row.f1 *= 0.99
        Score.objects.bulk_create(rows, batch_size=5000)
    board_entries_write(submission_ids=[submission_id])


def measure(*, phase, changes: int) -> dict:
    from competition.models import Submission
    from config import heap
    from leaderboard.selectors.precomputed import board_state
    from leaderboard.services import board_views_warm

    heap.settle()  # as the web process does when it has loaded (config/wsgi.py)
    began = time.process_time()
    first = board_views_warm(phase_ids=[phase.pk])
    result: dict = {"first_ms": (time.process_time() - began) * 1000, "views": first}
    ids = list(Submission.objects.filter(phase=phase).order_by("pk").values_list("pk", flat=True))
    rebuilds, states = [], []
    for n in range(changes):
        _change_one_score(ids[(n + 1) * len(ids) // (changes + 1)])
        began = time.process_time()
        board_state(phase=phase)
        states.append((time.process_time() - began) * 1000)
        began = time.process_time()
        built = board_views_warm(phase_ids=[phase.pk])
        rebuilds.append((time.process_time() - began) * 1000)
        if built != first:
            raise RuntimeError(f"a score change rebuilt {built} views, not {first}")
    result["rebuild_ms"] = statistics.median(rebuilds)
    result["state_ms"] = statistics.median(states)
    result["rebuilds_ms"] = rebuilds
    return result


def run(out=sys.stdout, *, scale: float = 1.0, changes: int = CHANGES) -> list[dict]:
    runs = max(2, round(RUNS * scale))
    with boards.throwaway_database(NAME, out) as (private, _):
        world = boards.seed(runs=runs, private=private, out=out, bulk=True, name=NAME)
        result = measure(phase=world["phase"], changes=changes)
    from django.db import connection

    print(
        f"{NAME}: CPU ms in this process at {runs:,} runs\n"
        f"  first build of the kept views ({result['views']})  {result['first_ms']:9.0f}\n"
        f"  rebuild after one score change    {result['rebuild_ms']:9.0f}  (goal ≤ 2,000 ms; "
        f"median of {changes}: {', '.join(f'{ms:.0f}' for ms in result['rebuilds_ms'])})\n"
        f"  of which reading the state, once  {result['state_ms']:9.0f}  (each view reads it)",
        file=out,
        flush=True,
    )
    return [{"case": NAME, "vendor": connection.vendor, "runs": runs, **result}]
