"""What an upload costs the web process: it reads no file against its key (the worker
does); a process running threads checks the files itself, never in a fork (which would copy
locks other threads hold); a file the upload handlers wrote to disk is linked, not hashed
and copied again."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile

from competition import services
from competition.models import Submission
from competition.services import validation
from tests.conftest import KEY_DOCS

pytestmark = pytest.mark.django_db


@pytest.fixture
def readings(monkeypatch):
    pids: list[int] = []
    real = validation.validate_against_skeleton

    def counted(*args, **kwargs):
        pids.append(os.getpid())
        return real(*args, **kwargs)

    monkeypatch.setattr(validation, "validate_against_skeleton", counted)
    monkeypatch.setattr(validation, "PARALLEL_FROM_BYTES", 0)
    return pids


def _submit(world, files=None):
    return services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=files or world.uploads()
    )


def test_the_request_reads_no_file_against_its_key(world, readings):
    run = _submit(world)
    assert readings == [] and run.is_checking


def test_a_valid_run_is_read_once_by_its_scoring_not_by_the_check(
    world, readings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = _submit(world)
    run.refresh_from_db()
    assert run.status == Submission.Status.SCORED and run.validated_at is not None
    assert readings == []  # the scorer's reading stops on every fault the check finds


def test_a_process_running_threads_checks_every_file_itself(
    world, readings, settings, django_capture_on_commit_callbacks
):
    settings.UPLOAD_VALIDATION_PROCESSES = 2
    broken = {
        "light": world.response_text("light").replace("light_2", "light_x"),
        "ami": world.response_text("ami").replace("ami_1", "ami_x"),
    }
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            _submit(world, world.uploads(broken))  # and its job: the check, in this process
    finally:
        stop.set()
        other.join()
    assert sorted(readings) == [os.getpid()] * 4  # both files (twice: first and all), here


def _on_disk(name: str, text: str) -> TemporaryUploadedFile:
    """An upload as the upload handlers leave a large one: in a temporary file, with the
    SHA-256 taken as it arrived."""
    data = text.encode()
    upload = TemporaryUploadedFile(name, "text/plain", len(data), "utf-8")
    upload.write(data)
    upload.flush()
    upload.seek(0)
    upload.sha256 = hashlib.sha256(data).hexdigest()
    return upload


def test_a_file_on_disk_is_linked_into_the_run_with_the_digest_it_arrived_with(world):
    texts = {slug: world.response_text(slug) for slug in KEY_DOCS}
    files = {slug: _on_disk(f"{slug.upper()}.CONLLUA", text) for slug, text in texts.items()}
    run = _submit(world, files)
    for stored in run.files.all():
        path = Path(settings.MEDIA_ROOT) / stored.path
        assert path.read_text() == texts[stored.subcorpus.slug]
        assert stored.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
        assert path.stat().st_nlink >= 2  # the upload's own file, not a copy of it
