"""A large definition upload, and a large bundle, through the real configuration: the request
keeps the upload and queues a job; a real `celery -A config worker` loads it, and the row
says so."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from competition.definition.bundle_import import bundle_import_start, bundle_job_report
from competition.definition.upload import (
    competition_definition_zip,
    definition_upload_start,
)
from competition.models import Competition, DefinitionJob, Phase
from competition.services import competition_load
from tests.competition.bundles import published

pytestmark = pytest.mark.services
ROOT = Path(__file__).resolve().parents[3]


def finished(job: DefinitionJob, wait, what: str) -> None:
    """Wait for the worker to end ``job``; it must have succeeded."""
    wait(
        lambda: DefinitionJob.objects.get(pk=job.pk).status in ("done", "failed"),
        timeout=120,
        what=what,
    )
    job.refresh_from_db()
    assert job.status == "done", job.message


def test_a_worker_loads_a_large_definition(
    services_ready, transactional_db, settings, celery_worker, wait
):
    settings.DEFINITION_JOB_BYTES = 1000
    get_user_model().objects.create_user("organizer")
    competition_load(path=ROOT / "fixtures" / "corefud-demo.yaml", with_baselines=False)
    competition = Competition.objects.get(slug="corefud-demo")
    with zipfile.ZipFile(io.BytesIO(competition_definition_zip(competition=competition))) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    members["competition.yaml"] = members["competition.yaml"].replace(
        b"daily_limit: 10", b"daily_limit: 6"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    archive = buffer.getvalue()
    job = definition_upload_start(
        competition=competition, upload=SimpleUploadedFile("c.zip", archive)
    )
    assert isinstance(job, DefinitionJob)
    finished(job, wait, "the worker to load the definition")
    assert Phase.objects.get(slug="test").daily_limit == 6


def test_a_worker_imports_a_large_bundle(
    services_ready, transactional_db, settings, celery_worker, wait
):
    settings.DEFINITION_JOB_BYTES = 1000
    get_user_model().objects.create_user("olga")
    job = bundle_import_start(
        upload=SimpleUploadedFile("crac.zip", published.codabench_crac()), owner="olga"
    )
    assert isinstance(job, DefinitionJob) and job.competition is None
    finished(job, wait, "the worker to import the bundle")
    assert job.competition.slug == "crac-2026-shared-task"
    report = bundle_job_report(job)
    assert report is not None and any("-s (singletons kept)" in line for line in report.proposed)
