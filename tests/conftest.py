"""Shared test set-up: private file roots per test, small real CONLL-UA files, a competition
world to submit to, the system Chromium for browser tests, and for the ``services`` tests a
real ``celery -A config worker`` over Redis (db 15) against the test PostgreSQL database.

The CONLL-UA files are made here, in the test, so the scorer reads real input; nothing is
mocked on the submission path.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from tasks.worker import worker_command
from tests.deviations import POLICY

REPO = Path(__file__).resolve().parents[1]
TEST_BROKER = "redis://127.0.0.1:6379/15"

# Playwright's sync API runs an event loop in the test thread; Django's ORM refuses to run
# there unless told it is safe (it is: the tests are single-threaded).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _services_problem() -> str | None:
    """Why the services tests cannot run here, or None. Checked before any database set-up,
    so a configured but unreachable PostgreSQL or Redis stops the run at once instead of
    failing every test or hanging."""
    from urllib.parse import urlparse

    for variable, name, default_port in (
        ("DATABASE_URL", "PostgreSQL", 5432),
        ("CELERY_BROKER_URL", "Redis", 6379),
    ):
        url = os.environ.get(variable, "")
        if not url.startswith(("postgres://", "postgresql://", "redis://")):
            continue
        parsed = urlparse(url)
        host, port = parsed.hostname or "127.0.0.1", parsed.port or default_port
        if not _reachable(host, port):
            return f"{name} is not reachable on {host}:{port} ({variable})"
    return None


def pytest_collection_modifyitems(config, items):
    services = [item for item in items if "services" in item.keywords]
    if services and (problem := _services_problem()):
        raise pytest.UsageError(
            f"{problem}: start it (.ci/run does), or leave the services "
            "tests out with -m 'not services'"
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A skip is a failure unless it is one of the scoring policy's documented deviations
    (tests/deviations.py): a missing file, browser, service or compiled step never passes
    quietly."""
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if not reason.removeprefix("Skipped: ").startswith(POLICY):
        report.outcome = "failed"
        report.longrepr = (
            f"skipped, but only the scoring policy's deviations may skip "
            f"(tests/deviations.py): {reason}"
        )


def pytest_configure(config):
    # WhiteNoise warns when STATIC_ROOT has not been collected yet; tests serve no static files.
    config.addinivalue_line("filterwarnings", "ignore:No directory at:UserWarning")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Drive the distribution's Chromium (no browser download on this machine)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return browser_type_launch_args
    return {**browser_type_launch_args, "executable_path": chromium, "args": BROWSER_ARGS}


@pytest.fixture(autouse=True)
def private_file_roots(request, tmp_path_factory):
    """Every test gets its own MEDIA_ROOT (uploads) and PRIVATE_ROOT (gold keys)."""
    if "settings" not in request.fixturenames and not _uses_django(request):
        yield
        return
    settings = request.getfixturevalue("settings")
    root = tmp_path_factory.mktemp("roots")
    settings.MEDIA_ROOT = root / "media"
    settings.PRIVATE_ROOT = root / "private"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.cache import cache

    cache.clear()  # kept board views and p-values of an earlier test's rolled-back rows
    yield


def _uses_django(request) -> bool:
    names = set(request.fixturenames)
    return bool(
        names
        & {
            "db",
            "transactional_db",
            "client",
            "admin_client",
            "django_db_setup",
            "live_server",
            "world",
            "make_world",
        }
    ) or any(marker.name == "django_db" for marker in request.node.iter_markers())


# --- small real CONLL-UA files ------------------------------------------------------------

COLUMNS = (
    "ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY BRIDGING "
    "DISCOURSE_DEIXIS REFERENCE NOM_SEM"
)


@dataclass(frozen=True)
class Doc:
    """A document: sentences of words, and mentions (first, last token, entity id); token
    numbers are 1-based over the document."""

    name: str
    sentences: Sequence[Sequence[str]]
    mentions: Sequence[tuple[int, int, int]] = ()


def conllua(docs: Sequence[Doc]) -> str:
    """Exploded CONLL-UA text (15 columns) for the documents."""
    lines = [f"# global.columns = {COLUMNS}"]
    markable = 0
    for doc in docs:
        lines.append(f"# newdoc id = {doc.name}")
        opens: dict[int, list[str]] = {}
        closes: dict[int, int] = {}
        for first, last, entity in sorted(doc.mentions, key=lambda m: (m[0], -m[1])):
            markable += 1
            attrs = f"EntityID={entity}|MarkableID=markable_{markable}|Min={first}"
            if first == last:
                opens.setdefault(first, []).append(f"({attrs})")
            else:
                opens.setdefault(first, []).append(f"({attrs}")
                closes[last] = closes.get(last, 0) + 1
        token = 0
        for number, words in enumerate(doc.sentences, start=1):
            lines.append(f"# sent_id = {doc.name}-{number}")
            lines.append(f"# text = {' '.join(words)}")
            for word in words:
                token += 1
                cell = ")" * closes.get(token, 0) + "".join(opens.get(token, []))
                identity = cell or "_"
                lines.append(
                    "\t".join([str(token), word, *["_"] * 8, identity, "_", "_", "_", "_"])
                )
            lines.append("")
    return "\n".join(lines) + "\n"


KEY_DOCS = {
    "light": [
        Doc(
            "light_1",
            [["the", "knight", "saw", "a", "dragon"], ["he", "fought", "it"]],
            [(1, 2, 1), (4, 5, 2), (6, 6, 1), (8, 8, 2)],
        ),
        Doc(
            "light_2",
            [["my", "lady", "sings"], ["she", "is", "happy"]],
            [(1, 2, 3), (4, 4, 3), (1, 1, 4)],
        ),
    ],
    "ami": [
        Doc(
            "ami_1",
            [["we", "need", "a", "remote"], ["it", "should", "be", "cheap"]],
            [(1, 1, 1), (3, 4, 2), (5, 5, 2)],
        ),
    ],
}
# A response: one error in light (the dragon's pronoun joins the knight's entity).
RESPONSE_DOCS = {
    "light": [
        Doc(
            "light_1",
            [["the", "knight", "saw", "a", "dragon"], ["he", "fought", "it"]],
            [(1, 2, 1), (4, 5, 2), (6, 6, 1), (8, 8, 1)],
        ),
        KEY_DOCS["light"][1],
    ],
    "ami": KEY_DOCS["ami"],
}


@dataclass
class World:
    """A competition with one identity task, an open development phase with two available
    sub-corpora (LIGHT, AMI) and one unavailable (SWITCHBOARD), alice in team Alpha, bob in
    team Beta, mallory in no team."""

    competition: object
    task: object
    phase: object
    alice: object
    bob: object
    mallory: object
    alpha: object
    beta: object
    key_dir: Path

    def key_text(self, slug: str) -> str:
        return conllua(KEY_DOCS[slug])

    def response_text(self, slug: str) -> str:
        return conllua(RESPONSE_DOCS[slug])

    def uploads(self, texts: Mapping[str, str] | None = None) -> dict:
        """Uploaded files keyed by sub-corpus slug (default: the good response)."""
        from django.core.files.uploadedfile import SimpleUploadedFile

        texts = texts or {slug: self.response_text(slug) for slug in KEY_DOCS}
        return {
            slug: SimpleUploadedFile(f"{slug.upper()}.CONLLUA", text.encode("utf-8"))
            for slug, text in texts.items()
        }


def build_world(
    *,
    kind: str = "identity",
    visibility: str = "public",
    daily_limit: int = 5,
    total_limit: int = 100,
    show_own: bool = False,
    counts: str = "best",
) -> World:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from competition import services
    from competition.models import Competition, Phase, SubCorpus, Task

    User = get_user_model()
    key_dir = Path(settings.PRIVATE_ROOT) / "keys"
    key_dir.mkdir(parents=True, exist_ok=True)
    competition = Competition.objects.create(
        slug="codi-test", title="CODI-CRAC test", published_at=timezone.now()
    )
    options = {
        "identity": [],
        "bridging": ["keep_bridging"],
        "discourse_deixis": ["evaluate_discourse_deixis"],
    }[kind]
    task = Task.objects.create(
        competition=competition,
        slug=kind.replace("_", "-"),
        kind=kind,
        title=f"Task {kind}",
        scorer_options=options,
        primary_metric="bridging_entity" if kind == "bridging" else "conll",
    )
    phase = Phase.objects.create(
        task=task,
        slug="dev",
        kind="development",
        title="Development",
        start=timezone.now() - timedelta(days=1),
        leaderboard_visibility=visibility,
        daily_limit=daily_limit,
        total_limit=total_limit,
        show_own_scores_when_hidden=show_own,
        counts=counts,
    )
    for order, slug in enumerate(KEY_DOCS):
        (key_dir / f"{slug}.conllua").write_text(conllua(KEY_DOCS[slug]), encoding="utf-8")
        SubCorpus.objects.create(
            phase=phase, name=slug.upper(), slug=slug, order=order, key_file=f"keys/{slug}.conllua"
        )
    SubCorpus.objects.create(
        phase=phase, name="SWITCHBOARD", slug="switchboard", order=9, available=False
    )
    alice = User.objects.create_user("alice", password="alice-pw-123!")
    bob = User.objects.create_user("bob", password="bob-pw-123!")
    mallory = User.objects.create_user("mallory", password="mallory-pw-123!")
    alpha = services.team_create(competition=competition, name="Alpha", user=alice)
    beta = services.team_create(competition=competition, name="Beta", user=bob)
    return World(competition, task, phase, alice, bob, mallory, alpha, beta, key_dir)


@pytest.fixture
def world(db) -> World:
    return build_world()


@pytest.fixture
def make_world(db):
    return build_world


# --- real services: PostgreSQL, Redis, a celery worker -------------------------------------


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def services_ready(settings):
    """The tests run against PostgreSQL and Redis (make test, pass 2), or fail saying so."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.fail("needs DATABASE_URL=postgres://... (run with -m services as `make test` does)")
    if settings.CELERY_TASK_ALWAYS_EAGER or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.fail("needs CELERY_BROKER_URL=redis://127.0.0.1:6379/15")
    if not _reachable("127.0.0.1", 6379):
        pytest.fail("Redis is not reachable on 127.0.0.1:6379")
    import redis

    redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2).flushdb()
    yield
    redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2).flushdb()


class WorkerProcess:
    """A real ``celery -A config worker`` in its own process group."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log = env, log
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 90.0) -> None:
        from config.celery import app

        handle = open(self.log, "ab")
        self.proc = subprocess.Popen(
            worker_command(f"test-{os.getpid()}-{time.monotonic_ns()}@%h"),
            cwd=REPO,
            env=self.env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"the celery worker exited early; see {self.log}:\n"
                    + self.log.read_text(errors="replace")[-3000:]
                )
            if app.control.ping(timeout=0.5):
                return
        self.stop()
        raise RuntimeError(f"the celery worker did not answer within {timeout} s; see {self.log}")

    def kill(self) -> None:
        """SIGKILL the worker and its pool children, as a crashed machine would."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def celery_worker_factory(services_ready, transactional_db, settings, tmp_path) -> Iterator:
    """Start real workers against the test database; all are stopped after the test."""
    from django.db import connection

    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    workers: list[WorkerProcess] = []

    def start(**extra_env: str) -> WorkerProcess:
        env = dict(
            os.environ,
            DATABASE_URL=url,
            CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
            MEDIA_ROOT=str(settings.MEDIA_ROOT),
            PRIVATE_ROOT=str(settings.PRIVATE_ROOT),
            PYTHONUNBUFFERED="1",
        )
        env.update(extra_env)  # a worker may be given a broker of its own
        worker = WorkerProcess(env, tmp_path / f"worker-{len(workers)}.log")
        workers.append(worker)
        worker.start()
        return worker

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def celery_worker(celery_worker_factory) -> WorkerProcess:
    return celery_worker_factory()


def wait_for(predicate, *, timeout: float, interval: float = 0.1, what: str = "a condition"):
    """Poll ``predicate`` until it returns a truthy value; fail (never hang) after timeout.

    A poll refused with "database table is locked" counts as not yet: the embedded pass's
    test database is SQLite in memory with a shared cache, where a reader is refused at once
    while another thread (in-process scoring) holds a table's write lock; a file database,
    as `make demo` uses, waits for the writer instead (settings: ``timeout``)."""
    from django.db import OperationalError

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except OperationalError as exc:
            if "table is locked" not in str(exc):
                raise
            value = None
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def wait():
    return wait_for


@pytest.fixture
def texts():
    """CONLL-UA texts of the test sub-corpora: ``texts.key("light")``, ``texts.response(...)``,
    and ``texts.conllua(docs)`` / ``texts.Doc`` to build others."""
    from types import SimpleNamespace

    return SimpleNamespace(
        conllua=conllua,
        Doc=Doc,
        key=lambda slug: conllua(KEY_DOCS[slug]),
        response=lambda slug: conllua(RESPONSE_DOCS[slug]),
    )
