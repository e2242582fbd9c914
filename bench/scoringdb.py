"""``python -m bench --cases scoring-db``: the database's CPU for recording one CRAC-sized run.

The run of ``corefud-22`` (22 generated CorefUD datasets, the CODI-CRAC 2025 procedure) is
uploaded and scored once, in-process, in a throwaway PostgreSQL database created on
``DATABASE_URL``'s server and dropped afterwards. Its results (some 11,000 score rows) are
then recorded ``ROUNDS`` times more through the path of a run scored in parts, without the
scorer: claim, one part per dataset (start, store), the last job's collection, the record
(``competition.scoring``). Jobs are not queued meanwhile (a null queue) and the public board
views are not rebuilt (a job of its own, once per batch of runs): what is measured is the
scoring path's own statements.

Measured: CPU time of the PostgreSQL backend serving this process (``/proc/<pid>/stat`` of
``pg_backend_pid()``; clock ticks of 10 ms, so the mean of the rounds), per step and in all; the
client's CPU; the staged parts' stored size (``pg_column_size``). The database server must
run on this machine. Needs ``DATABASE_URL``; without it the case says so and measures nothing.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit, urlunsplit

from bench.corefud22 import cpu_seconds, database, generate, migrate

ROOT = Path(__file__).resolve().parents[1]
NAME = "scoring-db"
ROUNDS = 15
STEPS = ("claim", "parts", "collect", "record")


def run(out: TextIO, scale: float = 1.0) -> list[dict]:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print(f"{NAME}: skipped (needs DATABASE_URL=postgres://...)", file=out)
        return []
    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'bench'}_scoringdb_{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="ua-bench-scoringdb-") as tmp:
        directory = Path(tmp)
        yaml, archive, _ = generate(directory, scale)
        env = {k: v for k, v in os.environ.items() if k != "CELERY_BROKER_URL"}
        env.update(
            DATABASE_URL=urlunsplit(parts._replace(path=f"/{name}")),
            MEDIA_ROOT=str(directory / "media"),
            PRIVATE_ROOT=str(directory / "private"),
            PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        )
        database(url, name, "create")
        try:
            migrate(env)
            done = subprocess.run(
                [sys.executable, "-m", "bench.scoringdb", str(yaml), str(archive)],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
        finally:
            database(url, name, "drop")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    row["case"] = NAME
    steps = ", ".join(f"{step} {row['backend_ms'][step]:.0f}" for step in STEPS)
    print(
        f"{NAME}: {row['datasets']} datasets, {row['rows']:,} score rows; staged parts "
        f"{row['staged_kib']:,.0f} KiB stored; per run (mean of {ROUNDS}): PostgreSQL "
        f"backend {row['backend_ms']['total']:.0f} ms CPU ({steps}); client "
        f"{row['client_ms']:.0f} ms CPU",
        file=out,
        flush=True,
    )
    return [row]


def _seed(yaml: str, archive: str):
    """The competition and one run, scored once in-process (no broker: eager jobs)."""
    from django.core.files import File

    from competition.models import Phase, Submission
    from competition.services.accounts import user_signup
    from competition.services.definitions import competition_load
    from competition.services.publish import competition_publish_waiving
    from competition.services.submissions import submission_create
    from competition.services.teams import team_create

    competition = competition_load(path=yaml, with_baselines=False).competition
    if competition.is_draft:
        competition_publish_waiving(competition=competition)
    user = user_signup(username="bench-db", password="x-bench-db-pw-1")
    team = team_create(competition=competition, name="Bench team", user=user)
    phase = Phase.objects.get(task__competition=competition, slug="test")
    with open(archive, "rb") as handle:
        submission = submission_create(
            team=team,
            phase=phase,
            user=user,
            archive=File(handle, name=Path(archive).name),
            track="unconstrained",
        )
    submission = Submission.objects.get(pk=submission.pk)
    if submission.status != Submission.Status.SCORED:
        raise RuntimeError(f"the run was not scored: {submission.status} {submission.error}")
    return submission


def _part_results(submission) -> list:
    """Each dataset's results, as its part job computes them, from the scored run's rows."""
    from competition.models import Score, SubCorpus
    from competition.scoring import PartResults, ScoreValue
    from scoring import ScoreRow

    keys = dict(SubCorpus.objects.values_list("pk", "sha256"))
    rows: dict[int, list] = {}
    columns = ("subcorpus_id", "mode", "metric", "document", "recall", "precision", "f1")
    for *values, counts in Score.objects.filter(
        submission=submission, run__is_current=True
    ).values_list(*columns, "counts"):
        subcorpus_id, *row = values
        rows.setdefault(subcorpus_id, []).append(
            ScoreValue(subcorpus_id, ScoreRow(*row, counts))  # type: ignore[call-arg]
        )
    return [
        PartResults(
            subcorpus_id=pk,
            key=keys[pk],
            scores=tuple(values),
            warnings=(),
            log=(f"dataset {pk}: read the file and the gold key; scored",),
        )
        for pk, values in rows.items()
    ]


class NullQueue:
    """Jobs are not run while the path is measured (no board rebuild, no e-mail)."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _round(submission, parts: list, *, claim: str, backend: int) -> tuple[dict, float]:
    from competition import scoring as lifecycle
    from competition.models import ScoringPart
    from competition.services.rescore import submission_rescore

    submission_rescore(submission=submission, queue=False)
    spent: dict[str, float] = {}
    client = time.process_time()
    mark = cpu_seconds(backend)

    def step(name: str) -> None:
        nonlocal mark
        now = cpu_seconds(backend)
        spent[name] = (now - mark) * 1000
        mark = now

    held = lifecycle.submission_claim(submission_id=submission.pk, task_id=claim)
    assert held is not None
    lifecycle.scoring_parts_create(submission=held, claim=claim)
    step("claim")
    for part in parts:
        where = {"submission_id": held.pk, "subcorpus_id": part.subcorpus_id, "claim": claim}
        lifecycle.scoring_part_start(**where, task_id=f"{claim}-{part.subcorpus_id}", worker="")
        outcome = lifecycle.Outcome(lifecycle.Kind.SCORED, results=part)
        lifecycle.scoring_part_store(**where, outcome=outcome)
    step("parts")
    staged = _staged_bytes(ScoringPart, held.pk)
    held = lifecycle.submission_held(submission_id=held.pk, claim=claim)
    assert held is not None
    collected = lifecycle.scoring_parts_collect(submission=held, claim=claim)
    assert collected is not None and collected.results is not None
    step("collect")
    assert lifecycle.outcome_record(submission=held, outcome=collected, task_id=claim) == "scored"
    step("record")
    spent["total"] = sum(spent.values())
    spent["client"] = (time.process_time() - client) * 1000
    return spent, staged


def _staged_bytes(model, submission_id: int) -> float:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT coalesce(sum(pg_column_size(outcome)), 0) FROM {model._meta.db_table} "
            "WHERE submission_id = %s",
            [submission_id],
        )
        return float(cursor.fetchone()[0])


def measure(yaml: str, archive: str) -> int:
    """In a process of its own: seed, then record the run ``ROUNDS`` times. One JSON line."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.conf import settings
    from django.db import connection

    from competition.models import Score
    from competition.services import dispatch

    submission = _seed(yaml, archive)
    parts = _part_results(submission)
    dispatch.queue_install(NullQueue())
    settings.BOARD_VIEWS_WARM = False  # the views' rebuild: a job of its own, once a batch
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    rounds = []
    for n in range(ROUNDS + 1):  # the first one warms the caches
        rounds.append(_round(submission, parts, claim=f"bench-{n}", backend=backend))
    rounds = rounds[1:]
    staged = statistics.median(size for _, size in rounds)
    print(
        json.dumps(
            {
                "datasets": len(parts),
                "rows": Score.objects.filter(submission=submission, run__is_current=True).count(),
                "staged_kib": staged / 1024,
                "backend_ms": {
                    step: statistics.mean(spent[step] for spent, _ in rounds)
                    for step in (*STEPS, "total")
                },
                "client_ms": statistics.mean(spent["client"] for spent, _ in rounds),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(measure(*sys.argv[1:]))
