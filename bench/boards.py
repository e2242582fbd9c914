"""``python -m bench --cases board-1000``: boards at a thousand scored runs.

Seeds a throwaway database (a temporary SQLite file; with ``DATABASE_URL`` set, a
``test_<name>`` database on that server, created and dropped here: the named database itself
is never touched) with one identity task, four sub-corpora and 1,000 scored submissions of
100 teams. Their score rows are the real scorer's: each sub-corpus has a generated gold key
and a few generated responses, each scored once in every mode of the task
(`competition.task_scoring.task_modes`, `scoring.score_rows`, as the worker does); every
submission records one of them per sub-corpus, its numbers jittered, through
`competition.scoring.submission_record`, the worker's own service.

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

import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


def _bulk_record(pending: list, *, options: dict, now) -> None:
    """What `submission_record` writes for these (submission, score values), in bulk: a
    current scoring run each, its score rows, the submission scored (the board entries are
    written once at the end)."""
    from django.db import transaction

    import scoring
    from competition.models import Score, ScoringRun, Submission
    from competition.scoring.record import score_of

    with transaction.atomic():
        created = ScoringRun.objects.bulk_create(
            [
                ScoringRun(
                    submission=submission,
                    scorer_version=scoring.__version__,
                    options=options,
                    task_id=f"bench-{submission.pk}",
                    created_at=now,
                    is_current=True,
                )
                for submission, _ in pending
            ]
        )
        Score.objects.bulk_create(
            [
                score_of(run=run, submission_id=submission.pk, value=value)
                for run, (submission, values) in zip(created, pending)
                for value in values
            ],
            batch_size=5000,
        )
        Submission.objects.filter(pk__in=[s.pk for s, _ in pending]).update(
            status=Submission.Status.SCORED,
            scored_at=now,
            scorer_version=scoring.__version__,
            claimed_by="",
        )


def _seed_datasets(*, phase, keys: Path, modes, subcorpora: int) -> dict[int, list[list]]:
    """The phase's datasets with their generated keys, and per dataset the score rows of
    each generated response (scored once; a dataset past `SUBCORPORA` repeats one's)."""
    from competition.models import SubCorpus
    from scoring import score, score_rows

    templates: dict[int, list[list]] = {}
    corpora: dict[int, tuple[Path, list[Path]]] = {}
    first: dict[int, int] = {}
    for index in range(subcorpora):
        if index % SUBCORPORA not in corpora:
            corpora[index % SUBCORPORA] = _corpus(keys, f"set{index}", seed=101 + index)
        key, responses = corpora[index % SUBCORPORA]
        subcorpus = SubCorpus.objects.create(
            phase=phase,
            name=f"SET{index}",
            slug=f"set{index}",
            order=index,
            key_file=f"keys/{key.name}",
        )
        if index >= SUBCORPORA:  # the same generated data again: its rows, scored once
            templates[subcorpus.pk] = templates[first[index % SUBCORPORA]]
            continue
        first[index] = subcorpus.pk
        templates[subcorpus.pk] = []
        for response in responses:
            rows = []
            for mode in modes:
                result = score(
                    str(key), str(response), options=mode.options, per_doc=mode.per_doc, processes=1
                )
                rows.extend(score_rows(result, mode.options, mode=mode.name, per_doc=mode.per_doc))
            templates[subcorpus.pk].append(rows)
    return templates


def seed(
    *,
    runs: int,
    private: Path,
    out,
    bulk: bool = False,
    name: str = "board-1000",
    subcorpora: int = SUBCORPORA,
) -> dict:
    """The competition, its key files and ``runs`` recorded submissions: each recorded by
    the worker's service, or with ``bulk`` inserted in bulk (runs, score rows, then every
    board entry at once), the same rows, in a fraction of the time. ``subcorpora``: how many
    datasets (their generated keys and responses repeat every `SUBCORPORA`)."""
    from django.db import connection
    from django.utils import timezone

    import scoring
    from competition import scoring as lifecycle
    from competition.models import Competition, Phase, Submission, Task, Team
    from competition.scoring import ScoreValue, ScoringResults
    from competition.task_scoring import scoring_modes, task_modes

    with connection.cursor() as cursor:  # a throwaway database: no need to wait for the disk
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA synchronous = OFF")
        elif connection.vendor == "postgresql":
            cursor.execute("SET synchronous_commit TO off")
    started = time.perf_counter()
    now = timezone.now()
    competition = Competition.objects.create(
        slug="board-bench", title="Board benchmark", published_at=now
    )  # public: visitors see it
    task = Task.objects.create(
        competition=competition,
        slug="identity",
        kind="identity",
        title="Identity anaphora",
        primary_metric="conll",
    )
    phase = Phase.objects.create(
        task=task,
        slug="dev",
        kind="development",
        title="Development",
        start=now - timedelta(days=60),
    )
    keys = private / "keys"
    keys.mkdir(parents=True)
    modes = task_modes(task)
    templates = _seed_datasets(phase=phase, keys=keys, modes=modes, subcorpora=subcorpora)
    scored_at = time.perf_counter()
    teams = Team.objects.bulk_create(
        [Team(competition=competition, name=f"Team {n:03d}") for n in range(TEAMS)]
    )
    submissions = Submission.objects.bulk_create(
        [
            Submission(
                team=teams[n % TEAMS],
                phase=phase,
                run_name=f"run-{n // TEAMS + 1}",
                status=Submission.Status.SCORING,
                claimed_by=f"bench-{n}",
                created_at=now - timedelta(days=50) + timedelta(minutes=n),
            )
            for n in range(runs)
        ]
    )
    rng = random.Random(7)
    options = scoring_modes(task)
    rows_written = 0
    pending: list = []
    for n, submission in enumerate(submissions):
        values: list[ScoreValue] = []
        for subcorpus_id, choices in templates.items():
            factor = 1 + rng.gauss(0, 0.03)
            values.extend(
                ScoreValue(subcorpus_id, _jittered(row, rng, factor)) for row in rng.choice(choices)
            )
        rows_written += len(values)
        if bulk:
            pending.append((submission, values))
            if len(pending) >= 200 or n == len(submissions) - 1:
                _bulk_record(pending, options=options, now=now)
                pending = []
            continue
        results = ScoringResults(
            scorer_version=scoring.__version__,
            options=options,
            scores=tuple(values),
            procedure=task.procedure,
        )
        if not lifecycle.submission_record(
            submission=submission, results=results, task_id=f"bench-{n}"
        ):
            raise RuntimeError(f"submission {submission.pk} was not recorded")
    if bulk:
        from competition.services.boards import board_entries_write

        board_entries_write(submission_ids=[s.pk for s in submissions])
    print(
        f"{name}: seeded {runs} runs of {TEAMS} teams × {subcorpora} sub-corpora, "
        f"{rows_written:,} score rows (scoring {scored_at - started:.1f} s, recording "
        f"{time.perf_counter() - scored_at:.1f} s{', in bulk' if bulk else ''})",
        file=out,
        flush=True,
    )
    return {"phase": phase, "rows": rows_written}


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _time_boards(client, urls: dict[str, str], requests: int, before=None) -> dict[str, dict]:
    """Wall and CPU milliseconds of each board's requests; ``before(name)`` runs before each
    request, outside the timing."""
    timings = {}
    for name, url in urls.items():
        for _ in range(WARM_UP):
            if before:
                before(name)
            response = client.get(url)
            if response.status_code != 200:
                raise RuntimeError(f"{url} answered {response.status_code}")
        spent, cpu = [], []
        for _ in range(requests):
            if before:
                before(name)
            began, began_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            spent.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
            assert response.status_code == 200
        timings[name] = {
            "p50": statistics.median(spent),
            "p95": _percentile(spent, 0.95),
            "cpu_p50": statistics.median(cpu),
            "n": requests,
        }
    return timings


def _board_rows(phase, runs: bool) -> list:
    from django.contrib.auth.models import AnonymousUser

    from leaderboard.selectors import leaderboard_board

    board = leaderboard_board(phase=phase, viewer=AnonymousUser(), runs=runs)
    return [
        (r.entry.submission_id, r.rank, r.average, sorted(r.entry.scores.items()))
        for r in board.rows
    ]


FRESH = """
import json, sys, time
began, began_cpu = time.perf_counter(), time.process_time()
from config.wsgi import application  # django.setup() and the settled heap, as gunicorn loads it
from django.conf import settings
from django.test import Client
settings.DEBUG = False  # no query log (as this bench's own process)
loaded, loaded_cpu = time.perf_counter(), time.process_time()
client = Client()
out = {"load_ms": (loaded - began) * 1000, "load_cpu_ms": (loaded_cpu - began_cpu) * 1000}
for name in ("first", "second"):
    start, start_cpu = time.perf_counter(), time.process_time()
    response = client.get(sys.argv[1])
    out[name + "_ms"] = (time.perf_counter() - start) * 1000
    out[name + "_cpu_ms"] = (time.process_time() - start_cpu) * 1000
    out["status"] = response.status_code
print(json.dumps(out))
"""


def _database_url(settings_dict: dict) -> str:
    if settings_dict["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings_dict['NAME']}"
    user = settings_dict.get("USER") or ""
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    at = f"{user}{password}@" if user else ""
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    return f"postgres://{at}{host}{port}/{settings_dict['NAME']}"


def fresh_request(url: str, *, cache_url: str) -> dict:
    """A new process loads the web application (config.wsgi, as a gunicorn worker does) and
    asks ``url`` twice: the milliseconds (wall and CPU) of loading and of each request.
    ``cache_url``: the cache it uses (CACHE_URL; empty: its own local memory, empty)."""
    from django.db import connection

    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": _database_url(connection.settings_dict),
        "CACHE_URL": cache_url,
        "ALLOWED_HOSTS": "testserver",
        "LOG_LEVEL": "ERROR",
        "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    done = subprocess.run(
        [sys.executable, "-c", FRESH, url],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the fresh process failed: {done.stderr.strip()[-2000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    if found["status"] != 200:
        raise RuntimeError(f"{url} answered {found['status']} in a fresh process")
    return found


def measure(*, phase, requests: int, cache_url: str) -> dict:
    from django.test import Client
    from django.urls import reverse

    from competition.models import BoardEntry
    from config import heap
    from leaderboard.services import board_views_warm

    task = phase.task
    board = reverse("leaderboard:board", args=[task.competition.slug, task.slug, phase.slug])
    urls = {
        "rest": reverse("api-leaderboard", args=[phase.pk]),
        "html": board,
        "all-runs": board + "?runs=all",
    }
    heap.settle()  # as the web process does when it has loaded (config/wsgi.py)
    began = time.process_time()
    warmed = board_views_warm(phase_ids=[phase.pk])  # what a score change triggers
    warm_cpu = time.process_time() - began
    client = Client()
    kept = _time_boards(client, urls, requests)
    fresh = {name: fresh_request(url, cache_url=cache_url) for name, url in urls.items()}
    fresh_cold = {name: fresh_request(url, cache_url="") for name, url in urls.items()}

    # Before kept views: every request builds its board (from the board entries, the
    # p-values cached), as it did then: the page and the API are told no view is kept.
    from leaderboard.selectors import precomputed

    kept_key = precomputed.public_view_key
    precomputed.public_view_key = lambda **kwargs: None
    try:
        built = _time_boards(client, urls, requests)
        boards = [_board_rows(phase, runs) for runs in (False, True)]
        BoardEntry.objects.all().delete()  # the baseline: every board from the score rows
        recomputed = _time_boards(client, urls, requests)
        same = boards == [_board_rows(phase, runs) for runs in (False, True)]
    finally:
        precomputed.public_view_key = kept_key
    return {
        "kept": kept,
        "built": built,
        "recomputed": recomputed,
        "fresh": fresh,
        "fresh_cold": fresh_cold,
        "same": same,
        "warmed": warmed,
        "warm_cpu": warm_cpu,
    }


@contextmanager
def throwaway_database(name: str, out) -> Iterator[tuple[Path, str]]:
    """Django set up on a throwaway database (a temporary SQLite file; with ``DATABASE_URL``
    set, a ``test_<name>`` database on that server, created and dropped here) and a cache of
    its own; yields the private folder and the cache URL, drops both at the end."""
    root = Path(tempfile.mkdtemp(prefix=f"{name}-"))
    # One cache for this process and the fresh ones, as Redis is for a deployment's
    # processes: the CACHE_URL given, else a folder of its own.
    cache_url = os.environ.get("CACHE_URL") or f"file://{root / 'cache'}"
    os.environ["CACHE_URL"] = cache_url
    # Nothing of an earlier run: its p-values and views would be found under the same keys
    # (the same seeded boards) and the first build would be measured warm.
    os.environ["CACHE_KEY_PREFIX"] = f"{root.name}-"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    settings.DEBUG = False  # no query log
    settings.BOARD_VIEWS_WARM = False  # seeding: the views are built once, when it is done
    settings.MEDIA_ROOT, settings.PRIVATE_ROOT = root / "media", root / "private"
    database = settings.DATABASES["default"]
    if connection.vendor == "sqlite":
        database["TEST"]["NAME"] = str(root / "bench.sqlite3")
    original = database["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        print(
            f"{name}: {connection.vendor} database {connection.settings_dict['NAME']} "
            f"(throwaway), cache {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}",
            file=out,
            flush=True,
        )
        yield settings.PRIVATE_ROOT, cache_url
    finally:
        connection.creation.destroy_test_db(original, verbosity=0)
        shutil.rmtree(root, ignore_errors=True)


def run(
    out=sys.stdout,
    *,
    scale: float = 1.0,
    requests: int = REQUESTS,
    name: str = "board-1000",
    runs: int = RUNS,
    bulk: bool = False,
) -> list[dict]:
    """Seed a throwaway database, time the three boards every way, print, drop it."""
    runs = max(2, round(runs * scale))
    with throwaway_database(name, out) as (private, cache_url):
        world = seed(runs=runs, private=private, out=out, bulk=bulk, name=name)
        result = measure(phase=world["phase"], requests=requests, cache_url=cache_url)
    from django.db import connection

    print(
        f"{name}: a score change builds {result['warmed']} views (teams and all runs, page "
        f"and API) in {result['warm_cpu'] * 1000:.0f} ms CPU",
        file=out,
        flush=True,
    )
    rows = []
    for board in BOARDS:
        kept, built, old = (result[way][board] for way in ("kept", "built", "recomputed"))
        fresh, cold = result["fresh"][board], result["fresh_cold"][board]
        print(
            f"{name} {board:<8}: p50 {kept['p50']:6.1f} ms p95 {kept['p95']:6.1f} ms (cpu "
            f"p50 {kept['cpu_p50']:5.1f} ms); fresh process: first request "
            f"{fresh['first_ms']:6.0f} ms (cpu {fresh['first_cpu_ms']:5.0f})   before "
            f"(built on request): p50 {built['p50']:6.1f} ms p95 {built['p95']:6.1f} ms (cpu "
            f"p50 {built['cpu_p50']:5.1f} ms); fresh process: first request "
            f"{cold['first_ms']:6.0f} ms (cpu {cold['first_cpu_ms']:5.0f})   recomputed "
            f"from score rows: p50 {old['p50']:6.1f} ms p95 {old['p95']:6.1f} ms (cpu p50 "
            f"{old['cpu_p50']:5.1f})",
            file=out,
            flush=True,
        )
        rows.append(
            {
                "case": f"{name} {board}",
                "vendor": connection.vendor,
                "runs": runs,
                "score_rows": world["rows"],
                "kept": kept,
                "built": built,
                "recomputed": old,
                "fresh": fresh,
                "fresh_cold": cold,
            }
        )
    load = result["fresh"]["html"]
    print(
        f"{name}: {requests} requests each after {WARM_UP} warm-up, anonymous viewer, Django "
        f"test client; wall ms, and the median CPU ms of this process (time.process_time "
        f"around each request; the database server's not included). Kept: the views built "
        f"when scores change, read from the cache. Before: each request builds its board "
        f"from the board entries (p-values cached), as before kept views. Fresh process: a "
        f"new process loads config.wsgi ({load['load_ms']:.0f} ms, not counted) and asks "
        f"once, with the shared cache (kept) or a cache of its own (before). Same boards "
        f"both ways: {'yes' if result['same'] else 'NO'}",
        file=out,
        flush=True,
    )
    if not result["same"]:
        raise RuntimeError("the kept board entries gave another board than the score rows")
    return rows
