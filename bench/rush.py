"""``python -m bench --cases rush``: a deadline rush of whole CorefUD runs, as teams send them.

The corefud-22 run (bench/corefud22.py: 22 generated datasets, 47 MiB of CoNLL-U) becomes a
competition in a throwaway PostgreSQL database on ``DATABASE_URL``'s server. The web process
is gunicorn with the shipped configuration (deploy/gunicorn.conf.py; ``GUNICORN_*`` from the
environment, e.g. ``GUNICORN_WORKERS=3``), the scorers ``RUSH_WORKERS`` real ``celery worker``
nodes (default 2). Teams (``RUSH_TEAMS``, default 15) send ``RUSH_UPLOADS`` uploads (default
45) at random moments within ``RUSH_SECONDS`` (default 15: a burst), each as `codicrac
submit` sends it (client/http.py): 22 files in one streamed multipart body with its
manifest and an idempotency key, given up after 60 s without progress and sent again with
the same key (``RUSH_RETRIES``, default the command line's 3; 0: one try, as the command
line did before); each upload then asks for its run's status as `codicrac status --wait`
does (after 1 s, then 1.5 times longer each time, at most 10 s) until it is final.

Printed: how many were accepted, refused or lost; upload start → accepted and upload start
→ final (the run's ``scored_at``), accepted → final, each as p50 / p95 / max; the share of
runs final within 120 s of their upload's start; and CPU seconds per run by process: the web
(gunicorn's master, workers and the processes they forked), the scoring workers (nodes and
pool processes) and PostgreSQL (every server process, and the backends that ended, counted
in the postmaster). PostgreSQL is the shared server of the machine: run the case alone on it
(`flock /work/notes/services.lock` here), or its CPU is others' too. Needs ``DATABASE_URL``
and ``CELERY_BROKER_URL``; without them the case says so and measures nothing.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit, urlunsplit

from bench.corefud22 import DATASETS, database, generate, migrate
from tasks.worker import web_command, worker_command

ROOT = Path(__file__).resolve().parents[1]
NAME = "rush"
GOAL_SECONDS = 120.0


@dataclass
class Upload:
    team: int
    at: float  # seconds after the rush's start
    started: float = 0.0  # wall clock (time.time)
    accepted: float | None = None
    submission: int | None = None
    status: str = ""
    refused: str = ""
    final: float | None = None


@dataclass
class Services:
    gunicorn: subprocess.Popen
    workers: list[subprocess.Popen] = field(default_factory=list)


# --- CPU by process tree ------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, list[str]] | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), fields


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its descendants alive now, each with its reaped children
    (utime + stime + cutime + cstime)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        found = _stat(int(entry.name))
        if found is None:
            continue
        ppid, fields = found
        parents[int(entry.name)] = ppid
        times[int(entry.name)] = sum(int(fields[i]) for i in (11, 12, 13, 14)) / tick
    total = 0.0
    for pid in times:
        walk = pid
        while walk not in (0, 1) and walk != root:
            walk = parents.get(walk, 0)
        if walk == root:
            total += times[pid]
    return total


def postmaster_pid(port: int) -> int | None:
    """The PostgreSQL server process listening on ``port`` (its pid file's first line)."""
    for pidfile in Path("/var/lib/postgresql").glob("*/*/postmaster.pid"):
        lines = pidfile.read_text().splitlines()
        if len(lines) > 3 and lines[3].strip() == str(port):
            return int(lines[0])
    return None


# --- the services -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(env: dict, directory: Path, workers: int) -> tuple[Services, str]:
    port = _free_port()
    log = open(directory / "services.log", "ab")
    web_env = dict(env, GUNICORN_BIND=f"127.0.0.1:{port}", GUNICORN_LOG_LEVEL="warning")
    services = Services(
        gunicorn=subprocess.Popen(
            web_command(),
            cwd=ROOT,
            env=web_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    )
    for number in range(workers):
        services.workers.append(
            subprocess.Popen(
                worker_command(f"rush-{os.getpid()}-{number}@%h", loglevel="WARNING"),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.3)
    else:
        raise RuntimeError("gunicorn did not start: " + (directory / "services.log").read_text())
    return services, url


def _stop(services: Services, broker: str) -> None:
    for proc in [services.gunicorn, *services.workers]:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in [services.gunicorn, *services.workers]:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    import redis

    redis.Redis.from_url(broker).delete("celery")


# --- the teams ----------------------------------------------------------------------------


def _django(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "bench.rush", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{NAME}: {args[0]} failed: {done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1]


def setup(yaml: str, teams: str) -> int:
    """In a Django process: load the competition, make the teams; print the phase's id and
    one API token per team."""
    django_setup()
    from rest_framework.authtoken.models import Token

    from competition.definition.load import competition_load
    from competition.models import Phase
    from competition.services.accounts import user_signup
    from competition.services.publish import competition_publish_waiving
    from competition.services.teams import team_create

    competition = competition_load(path=yaml, with_baselines=False).competition
    competition_publish_waiving(competition=competition)
    Phase.objects.filter(task__competition=competition).update(daily_limit=50, total_limit=50)
    tokens = []
    for number in range(int(teams)):
        user = user_signup(username=f"rush{number}", password=f"rush-{number}-pw-!")
        team_create(competition=competition, name=f"Rush team {number}", user=user)
        tokens.append(Token.objects.create(user=user).key)
    phase = Phase.objects.get(task__competition=competition, slug="test")
    print(json.dumps({"phase": phase.pk, "tokens": tokens}))
    return 0


def finals(*ids: str) -> int:
    """In a Django process: each run's status and when it became final (epoch seconds)."""
    django_setup()
    from competition.models import Submission

    out = {}
    for run in Submission.objects.filter(pk__in=[int(i) for i in ids]):
        at: datetime | None = run.scored_at or run.failed_at or run.cancelled_at
        out[run.pk] = [run.status, at.timestamp() if at else None]
    print(json.dumps(out))
    return 0


def django_setup() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()


# --- the rush -----------------------------------------------------------------------------


def _files(directory: Path) -> list[tuple[str, Path, str]]:
    """The response files (slug, path, SHA-256), unzipped once; each upload reads them."""
    import hashlib
    import zipfile

    out = []
    folder = directory / "responses"
    with zipfile.ZipFile(directory / "run.zip") as zf:
        zf.extractall(folder)
    for name, _, _ in DATASETS:
        path = folder / f"{name}-corefud-test.conllu"
        out.append((name, path, hashlib.sha256(path.read_bytes()).hexdigest()))
    return out


def _send(url: str, phase: int, token: str, files, upload: Upload, origin: float) -> None:
    import uuid

    import requests

    from client import http as cli
    from client.errors import CliError
    from client.upload import FilePart, UploadBody

    time.sleep(max(0.0, origin + upload.at - time.time()))
    upload.started = time.time()
    handles = [path.open("rb") for _, path, _ in files]
    parts = [  # each digest computed once for every upload of the bench
        FilePart(slug, path.name, handle, "text/plain", known_sha256=digest)
        for (slug, path, digest), handle in zip(files, handles)
    ]
    body = UploadBody([("track", "unconstrained")], parts)
    try:  # as `codicrac submit` sends it: its timeouts, and its retries with the same key
        answer = cli.send_run(cli.Api(url, token), phase, body, key=uuid.uuid4().hex)
    except CliError as exc:
        upload.refused = str(exc).split(". ")[0][:160]
        return
    finally:
        for handle in handles:
            handle.close()
    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    upload.accepted = time.time()
    upload.submission = answer["id"]
    interval = 1.0
    while True:  # as codicrac status --wait polls: after 1 s, then 1.5 times longer, ≤ 10 s
        time.sleep(interval)
        interval = min(interval * 1.5, 10.0)
        try:
            status = session.get(f"{url}/api/submissions/{upload.submission}/", timeout=60)
            upload.status = status.json()["status"]
        except (requests.RequestException, ValueError):
            continue
        if upload.status in ("scored", "failed", "rejected", "cancelled"):
            return


def _quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]

    return f"{at(0.5):.1f} / {at(0.95):.1f} / {ordered[-1]:.1f} s"


def run(out: TextIO, scale: float = 1.0) -> list[dict]:
    url, broker = os.environ.get("DATABASE_URL", ""), os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith("postgres") or not broker.startswith("redis"):
        print(
            f"{NAME}: skipped (needs DATABASE_URL=postgres://... and CELERY_BROKER_URL)", file=out
        )
        return []
    uploads_n = int(os.environ.get("RUSH_UPLOADS", 45))
    window = float(os.environ.get("RUSH_SECONDS", 15))
    teams = int(os.environ.get("RUSH_TEAMS", 15))
    workers = int(os.environ.get("RUSH_WORKERS", 2))
    from client import http as cli

    cli.RETRIES = int(os.environ.get("RUSH_RETRIES", cli.RETRIES))  # 0: one try, as before
    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'bench'}_rush_{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="ua-bench-rush-") as tmp:
        directory = Path(tmp)
        yaml, _, size = generate(directory, scale)
        files = _files(directory)
        env = dict(
            os.environ,
            DATABASE_URL=urlunsplit(parts._replace(path=f"/{name}")),
            CELERY_BROKER_URL=broker,
            MEDIA_ROOT=str(directory / "media"),
            PRIVATE_ROOT=str(directory / "private"),
            # one cache for every process, as a deployment has (the keys' skeletons)
            CACHE_URL=os.environ.get("CACHE_URL") or f"file://{directory / 'cache'}",
            PYTHONUNBUFFERED="1",
            PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        )
        database(url, name, "create")
        try:
            migrate(env)
            made = json.loads(_django(env, "setup", str(yaml), str(teams)))
            row = _rush(env, directory, made, files, uploads_n, window, workers, parts.port)
        finally:
            database(url, name, "drop")
    row.update(case=NAME, upload_mib=size / 2**20, window_s=window, workers=workers)
    _print(out, row)
    return [row]


def _rush(env, directory, made, files, uploads_n, window, workers, db_port) -> dict:
    rng = random.Random(41)
    uploads = sorted(
        (Upload(team=n % len(made["tokens"]), at=rng.uniform(0, window)) for n in range(uploads_n)),
        key=lambda u: u.at,
    )
    services, url = _start(env, directory, workers)
    postmaster = postmaster_pid(db_port or 5432)
    try:
        before = _settled(services, postmaster)  # the processes' start, out of the measure
        origin = time.time() + 1
        threads = [
            threading.Thread(
                target=_send,
                args=(url, made["phase"], made["tokens"][u.team], files, u, origin),
                daemon=True,
            )
            for u in uploads
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=1800)
        after = _cpu(services, postmaster)
    finally:
        _stop(services, env["CELERY_BROKER_URL"])
    log = (directory / "services.log").read_text(errors="replace")
    ids = [str(u.submission) for u in uploads if u.submission]
    known = json.loads(_django(env, "finals", *ids)) if ids else {}
    for u in uploads:
        if u.submission and str(u.submission) in known:
            u.status, final = known[str(u.submission)]
            u.final = final
    runs = max(1, sum(1 for u in uploads if u.final))
    done = [(u, u.final) for u in uploads if u.final is not None]
    return {
        "uploads": len(uploads),
        "accepted": len(ids),
        "scored": sum(1 for u in uploads if u.status == "scored"),
        "refused": [u.refused for u in uploads if u.refused],
        "to_accepted": [u.accepted - u.started for u in uploads if u.accepted],
        "to_final": [final - u.started for u, final in done],
        "accepted_to_final": [final - u.accepted for u, final in done if u.accepted],
        "cpu_per_run": {k: (after[k] - before[k]) / runs for k in after},
        # web workers gunicorn killed for a request longer than its timeout
        "worker_timeouts": log.count("WORKER TIMEOUT"),
    }


def _settled(services: Services, postmaster: int | None, most: float = 90.0) -> dict[str, float]:
    """The CPU counts once the web and scoring processes have started (imports, their
    first connections): their CPU grew by less than 0.1 s in a second, or ``most`` seconds
    passed. A fixed pause let a loaded machine's late starts count as the runs'."""
    time.sleep(5)
    before = _cpu(services, postmaster)
    deadline = time.time() + most
    while time.time() < deadline:
        time.sleep(1)
        now = _cpu(services, postmaster)
        if now["web"] + now["workers"] - before["web"] - before["workers"] < 0.1:
            return now
        before = now
    return before


def _cpu(services: Services, postmaster: int | None) -> dict[str, float]:
    return {
        "web": tree_cpu(services.gunicorn.pid),
        "workers": sum(tree_cpu(w.pid) for w in services.workers),
        "database": tree_cpu(postmaster) if postmaster else float("nan"),
    }


def _print(out: TextIO, row: dict) -> None:
    within = sum(1 for t in row["to_final"] if t <= GOAL_SECONDS)
    cpu = row["cpu_per_run"]
    print(
        f"{NAME}: {row['uploads']} uploads of the corefud-22 run ({row['upload_mib']:.0f} MiB) "
        f"within {row['window_s']:g} s, {row['workers']} scoring workers: "
        f"{row['accepted']} accepted, {row['scored']} scored, {len(row['refused'])} refused "
        "or lost",
        file=out,
    )
    if row["worker_timeouts"]:
        print(f"  gunicorn ended {row['worker_timeouts']} web workers (WORKER TIMEOUT)", file=out)
    for reason in sorted(set(row["refused"]))[:5]:
        print(f"  refused/lost: {reason}", file=out)
    print(
        f"  p50 / p95 / max: upload start -> accepted {_quantiles(row['to_accepted'])}; "
        f"upload start -> final {_quantiles(row['to_final'])}; "
        f"accepted -> final {_quantiles(row['accepted_to_final'])}",
        file=out,
    )
    print(
        f"  final within {GOAL_SECONDS:g} s of the upload's start: {within} of "
        f"{row['uploads']}; CPU per run: web {cpu['web']:.2f} s, database "
        f"{cpu['database']:.2f} s (web + database {cpu['web'] + cpu['database']:.2f} s), "
        f"scoring workers {cpu['workers']:.2f} s",
        file=out,
        flush=True,
    )


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    sys.exit(setup(*rest) if command == "setup" else finals(*rest))
