"""A cut-off upload through gunicorn with the shipped configuration (deploy/gunicorn.conf.py,
what deployments run), against PostgreSQL: refused with 400 ``upload_incomplete``, nothing
stored. Run by ``make test`` (pass 2, ``-m services``)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from competition.models import Phase, Submission, SubmissionFile
from tasks.worker import web_command
from tests.competition.uploads_on_the_wire import multipart, send

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def gunicorn(services_ready, transactional_db, settings, tmp_path):
    """gunicorn -c deploy/gunicorn.conf.py config.wsgi on a free port, on the test database."""
    from django.db import connection

    db = connection.settings_dict
    port = _free_port()
    env = dict(
        os.environ,
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        MEDIA_ROOT=str(settings.MEDIA_ROOT),
        PRIVATE_ROOT=str(settings.PRIVATE_ROOT),
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS="1",
        PYTHONUNBUFFERED="1",
    )
    log = open(tmp_path / "gunicorn.log", "ab")
    proc = subprocess.Popen(
        web_command(),
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((tmp_path / "gunicorn.log").read_text()[-3000:]) from None
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}"
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)


def test_a_cut_upload_through_gunicorn_is_refused_and_nothing_is_stored(
    make_world, gunicorn, settings
):
    world = make_world()
    # a phase where a skipped dataset counts 0: the first file alone would make a valid run
    Phase.objects.filter(pk=world.phase.pk).update(missing=Phase.Missing.ZERO)
    token = Token.objects.create(user=world.alice)
    files = [
        (slug, f"{slug.upper()}.CONLLUA", world.response_text(slug).encode())
        for slug in ("light", "ami")
    ]
    body, starts = multipart(files=files)
    path = f"/api/phases/{world.phase.pk}/submissions/"
    headers = {"Authorization": f"Token {token.key}"}
    status, content = send(gunicorn, path, body, headers=headers, cut_at=starts[1] + 150)
    assert status == 400, content
    assert json.loads(content)["code"] == "upload_incomplete"
    assert not Submission.objects.exists() and not SubmissionFile.objects.exists()
    assert not any(Path(settings.MEDIA_ROOT).rglob("*.conllua"))
    status, content = send(gunicorn, path, body, headers=headers)  # whole, it is a run
    assert status == 201, content
    assert Submission.objects.get().files.count() == 2
