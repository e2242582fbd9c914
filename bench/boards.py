"""``python -m bench --cases board-1000``: boards at a thousand scored runs.

Seeds a throwaway database (a temporary SQLite file; with ``DATABASE_URL`` set, a
``test_<name>`` database on that server, created and dropped here: the named database itself
is never touched) with one identity task, four sub-corpora and 1,000 scored submissions of
100 teams. Their score rows are the real scorer's: each sub-corpus has a generated gold key
and a few generated responses, each scored once in every mode of the task
(`competition.task_scoring.task_modes`, `scoring.score_rows`, as the worker does); every
submission records one of them per sub-corpus, its numbers jittered, through
`competition.services.submission_record`, the worker's own service.

Then the REST board, the HTML board and the HTML "all runs" board are requested through
Django's test client, anonymously (a warm-up, then ``REQUESTS`` timed requests each), twice:
as the platform reads them (`BoardEntry` rows), and, as the baseline of the same run, with
every `BoardEntry` deleted, so that each board is recomputed from the score rows as before.
Both ways must show the same rows. The platform's way is timed twice: with the heap as
seeding left it, then settled as the web process settles it when it has loaded
(`config.heap.settle`, called by config/wsgi.py). Wall milliseconds per request, p50 and
p95, and the median CPU milliseconds of the requesting process (steadier on a shared
machine; a PostgreSQL server's own work is not in it).
"""

from __future__ import annotations

import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from bench.corpus import HEADER, Shape, _document, _response, _write

RUNS = 1000
TEAMS = 100
SUBCORPORA = 4
DOCUMENTS = 10  # per sub-corpus
RESPONSES = 4  # generated responses per sub-corpus, each scored once
REQUESTS = 30
WARM_UP = 3
BOARDS = ("rest", "html", "all-runs")


def _corpus(directory: Path, name: str, *, seed: int) -> tuple[Path, list[Path]]:
    """A gold key of DOCUMENTS documents and RESPONSES different responses to it."""
    shape = Shape(documents=DOCUMENTS, tokens=300, mentions=36, seed=seed)
    rng = random.Random(seed)
    docs = []
    for index in range(shape.documents):
        n_tokens = max(20, int(rng.gauss(shape.tokens, shape.tokens / 10)))
        n_mentions = max(2, round(shape.mentions * n_tokens / shape.tokens))
        docs.append(_document(rng, shape, index, n_tokens, n_mentions))
    key = directory / f"{name}.conllua"
    with open(key, "w", encoding="utf-8") as out:
        out.write(HEADER + "\n")
        for doc in docs:
            _write(doc, out)
    responses = []
    for k in range(RESPONSES):
        path = directory / f"{name}.response{k}.conllua"
        noise = random.Random(seed * 1000 + k)
        with open(path, "w", encoding="utf-8") as out:
            out.write(HEADER + "\n")
            for doc in docs:
                _write(_response(noise, doc), out)
        responses.append(path)
    return key, responses


def _jittered(row, rng: random.Random, factor: float):
    def move(value):
        return None if value is None else min(1.0, max(0.0, value * factor))

    return replace(row, recall=move(row.recall), precision=move(row.precision), f1=move(row.f1))


def seed(*, runs: int, private: Path, out) -> dict:
    """The competition, its key files and ``runs`` recorded submissions."""
    from django.db import connection
    from django.utils import timezone

    import scoring
    from competition import services
    from competition.models import Competition, Phase, SubCorpus, Submission, Task, Team
    from competition.services.scoring import ScoreValue, ScoringResults
    from competition.task_scoring import scoring_modes, task_modes
    from scoring import score, score_rows

    with connection.cursor() as cursor:  # a throwaway database: no need to wait for the disk
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA synchronous = OFF")
        elif connection.vendor == "postgresql":
            cursor.execute("SET synchronous_commit TO off")
    started = time.perf_counter()
    now = timezone.now()
    competition = Competition.objects.create(slug="board-bench", title="Board benchmark")
    task = Task.objects.create(competition=competition, slug="identity", kind="identity",
                               title="Identity anaphora", primary_metric="conll")
    phase = Phase.objects.create(task=task, slug="dev", kind="development",
                                 title="Development", start=now - timedelta(days=60))
    keys = private / "keys"
    keys.mkdir(parents=True)
    modes = task_modes(task)
    templates: dict[int, list[list]] = {}
    for index in range(SUBCORPORA):
        key, responses = _corpus(keys, f"set{index}", seed=101 + index)
        subcorpus = SubCorpus.objects.create(phase=phase, name=f"SET{index}",
                                             slug=f"set{index}", order=index,
                                             key_file=f"keys/{key.name}")
        templates[subcorpus.pk] = []
        for response in responses:
            rows = []
            for mode in modes:
                result = score(str(key), str(response), options=mode.options,
                               per_doc=mode.per_doc, processes=1)
                rows.extend(score_rows(result, mode.options, mode=mode.name,
                                       per_doc=mode.per_doc))
            templates[subcorpus.pk].append(rows)
    scored_at = time.perf_counter()
    teams = Team.objects.bulk_create([Team(competition=competition, name=f"Team {n:03d}")
                                      for n in range(TEAMS)])
    submissions = Submission.objects.bulk_create([
        Submission(team=teams[n % TEAMS], phase=phase, run_name=f"run-{n // TEAMS + 1}",
                   status=Submission.Status.SCORING, claimed_by=f"bench-{n}",
                   created_at=now - timedelta(days=50) + timedelta(minutes=n))
        for n in range(runs)])
    rng = random.Random(7)
    options = scoring_modes(task)
    rows_written = 0
    for n, submission in enumerate(submissions):
        values: list[ScoreValue] = []
        for subcorpus_id, choices in templates.items():
            factor = 1 + rng.gauss(0, 0.03)
            values.extend(ScoreValue(subcorpus_id, _jittered(row, rng, factor))
                          for row in rng.choice(choices))
        rows_written += len(values)
        results = ScoringResults(scorer_version=scoring.__version__, options=options,
                                 scores=tuple(values), procedure=task.procedure)
        if not services.submission_record(submission=submission, results=results,
                                          task_id=f"bench-{n}"):
            raise RuntimeError(f"submission {submission.pk} was not recorded")
    print(f"board-1000: seeded {runs} runs of {TEAMS} teams × {SUBCORPORA} sub-corpora, "
          f"{rows_written:,} score rows (scoring {scored_at - started:.1f} s, recording "
          f"{time.perf_counter() - scored_at:.1f} s)", file=out, flush=True)
    return {"phase": phase, "rows": rows_written}


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _time_boards(client, urls: dict[str, str], requests: int) -> dict[str, dict]:
    timings = {}
    for name, url in urls.items():
        for _ in range(WARM_UP):
            response = client.get(url)
            if response.status_code != 200:
                raise RuntimeError(f"{url} answered {response.status_code}")
        spent, cpu = [], []
        for _ in range(requests):
            began, began_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            spent.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
            assert response.status_code == 200
        timings[name] = {"p50": statistics.median(spent), "p95": _percentile(spent, 0.95),
                         "cpu_p50": statistics.median(cpu), "n": requests}
    return timings


def _board_rows(phase, runs: bool) -> list:
    from django.contrib.auth.models import AnonymousUser

    from leaderboard.selectors import leaderboard_board

    board = leaderboard_board(phase=phase, viewer=AnonymousUser(), runs=runs)
    return [(r.entry.submission_id, r.rank, r.average, sorted(r.entry.scores.items()))
            for r in board.rows]


def measure(*, phase, requests: int) -> dict:
    from django.test import Client
    from django.urls import reverse

    from competition.models import BoardEntry
    from config import heap

    task = phase.task
    board = reverse("leaderboard:board", args=[task.competition.slug, task.slug, phase.slug])
    urls = {"rest": reverse("api-leaderboard", args=[phase.pk]), "html": board,
            "all-runs": board + "?runs=all"}
    client = Client()
    unsettled = _time_boards(client, urls, requests)  # the heap as seeding left it
    heap.settle()  # as the web process does when it has loaded (config/wsgi.py)
    kept = _time_boards(client, urls, requests)
    boards = [_board_rows(phase, runs) for runs in (False, True)]
    BoardEntry.objects.all().delete()  # the baseline: every board from the score rows
    recomputed = _time_boards(client, urls, requests)
    same = boards == [_board_rows(phase, runs) for runs in (False, True)]
    return {"kept": kept, "recomputed": recomputed, "unsettled": unsettled, "same": same}


def run(out=sys.stdout, *, scale: float = 1.0, requests: int = REQUESTS) -> list[dict]:
    """Seed a throwaway database, time the three boards both ways, print, drop it."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    settings.DEBUG = False  # no query log
    root = Path(tempfile.mkdtemp(prefix="board-bench-"))
    settings.MEDIA_ROOT, settings.PRIVATE_ROOT = root / "media", root / "private"
    database = settings.DATABASES["default"]
    if connection.vendor == "sqlite":
        database["TEST"]["NAME"] = str(root / "bench.sqlite3")
    runs = max(2, round(RUNS * scale))
    original = database["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        print(f"board-1000: {connection.vendor} database {connection.settings_dict['NAME']} "
              "(throwaway)", file=out, flush=True)
        world = seed(runs=runs, private=settings.PRIVATE_ROOT, out=out)
        result = measure(phase=world["phase"], requests=requests)
    finally:
        connection.creation.destroy_test_db(original, verbosity=0)
        shutil.rmtree(root, ignore_errors=True)
    rows = []
    for name in BOARDS:
        kept, old = result["kept"][name], result["recomputed"][name]
        unsettled = result["unsettled"][name]
        ratio = old["p95"] / kept["p95"] if kept["p95"] else float("inf")
        print(f"board-1000 {name:<8}: p50 {kept['p50']:7.1f} ms p95 {kept['p95']:7.1f} ms "
              f"(cpu {kept['cpu_p50']:5.1f})   heap not settled: p50 {unsettled['p50']:7.1f} "
              f"ms p95 {unsettled['p95']:7.1f} ms   recomputed from score rows: p50 "
              f"{old['p50']:7.1f} ms p95 {old['p95']:7.1f} ms (cpu {old['cpu_p50']:5.1f})   "
              f"×{ratio:.1f} at p95", file=out, flush=True)
        rows.append({"case": f"board-1000 {name}", "vendor": connection.vendor, "runs": runs,
                     "score_rows": world["rows"], "kept": kept, "recomputed": old,
                     "unsettled": unsettled})
    print(f"board-1000: {requests} requests each after {WARM_UP} warm-up, anonymous viewer, "
          f"Django test client; wall ms, and the median CPU ms of this process (the database "
          f"server's not included); same boards both ways: "
          f"{'yes' if result['same'] else 'NO'}", file=out, flush=True)
    if not result["same"]:
        raise RuntimeError("the kept board entries gave another board than the score rows")
    return rows
