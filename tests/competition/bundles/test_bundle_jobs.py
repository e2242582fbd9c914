"""A bundle larger than a definition upload loaded in the request is imported by a job: the
request only keeps the upload, the job's page shows how far it is and then the report; the
command stops at its time limit with a clear message and creates nothing."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from competition.definition import bundle_import as bundle_services
from competition.definition.upload import definition_job_run
from competition.models import Competition, DefinitionJob, PhaseDataFile
from tests.competition.bundles import published

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db, client):
    admin = get_user_model().objects.create_user("admin", password="pw-admin-123", is_staff=True)
    get_user_model().objects.create_user("olga", password="pw-olga-123")
    client.force_login(admin)
    return admin


def post(client, data: bytes, **fields):
    return client.post(
        "/new-competition/bundle/",
        {"bundle": SimpleUploadedFile("crac.zip", data), "owner": "olga", **fields},
    )


def test_a_large_bundle_is_imported_by_a_job_whose_page_shows_it(
    client, staff, settings, django_capture_on_commit_callbacks
):
    data = published.codabench_crac()
    settings.DEFINITION_JOB_BYTES = len(data) - 1
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = post(client, data)
    job = DefinitionJob.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(
        f"/new-competition/bundle/job/{job.pk}/"
    )
    # The request kept the upload and nothing else: no competition yet.
    assert (job.kind, job.status, job.competition, job.size) == (
        "bundle",
        "queued",
        None,
        len(data),
    )
    assert (Path(settings.PRIVATE_ROOT) / job.path).is_file() and not Competition.objects.exists()
    page = client.get(response["Location"]).content.decode()
    assert 'http-equiv="refresh"' in page and "Waiting for a worker" in page

    seen: list[str] = []
    real = bundle_services.bundle_import

    def watched(**kwargs):
        def progress(text: str) -> None:
            seen.append(text)
            kwargs_progress(text)

        kwargs_progress = kwargs.pop("progress")
        return real(progress=progress, **kwargs)

    bundle_services.bundle_import = watched
    try:
        for callback in callbacks:
            callback()
    finally:
        bundle_services.bundle_import = real
    job.refresh_from_db()
    assert job.status == "done", job.message
    assert job.message == "The Codabench bundle is now the draft competition crac-2026-shared-task."
    assert seen[:2] == ["Unpacking crac.zip", "Reading the bundle's YAML and pages"]
    assert any("en_gum-corefud-dev.conllu" in line for line in seen)  # each key, as read
    assert not (Path(settings.PRIVATE_ROOT) / job.path).exists()
    competition = job.competition
    assert competition.tasks.get().phases.count() == 2
    assert PhaseDataFile.objects.filter(phase__task__competition=competition).count() == 2
    page = client.get(response["Location"]).content.decode()
    assert 'http-equiv="refresh"' not in page and 'id="bundle-imported"' in page
    assert "phases[0].end" in page and "no exact equivalent: -s" in page


def test_a_small_bundle_is_imported_in_the_request(client, staff, settings):
    settings.DEFINITION_JOB_BYTES = 10**9
    response = post(client, published.codalab_crac(), slug="crac-old")
    assert response.status_code == 200 and "Bundle imported" in response.content.decode()
    assert not DefinitionJob.objects.exists() and Competition.objects.filter(slug="crac-old")


def test_a_refused_job_says_why_and_creates_nothing(
    client, staff, settings, django_capture_on_commit_callbacks
):
    text = published.CODABENCH_CRAC_YAML.replace("start: 1-1-2027", "start: 31-1-2027")
    data = published.codabench_crac(yaml_text=text)
    settings.DEFINITION_JOB_BYTES = 10
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, data)
    job = DefinitionJob.objects.get()
    assert job.status == "failed" and job.competition is None
    assert job.message.startswith("crac.zip: competition.yaml: phases[1].start: '31-1-2027' is not")
    assert not Competition.objects.exists()
    page = client.get(response["Location"]).content.decode()
    assert "Bundle refused" in page and "31-1-2027" in page
    assert definition_job_run(job_id=job.pk) == "failed"  # a second delivery does nothing


def test_fast_refusals_come_before_any_job(client, staff, settings):
    settings.DEFINITION_JOB_BYTES = 10
    response = post(client, published.codabench_crac(), owner="nobody")
    assert "no user &#x27;nobody&#x27;" in response.content.decode()
    settings.BUNDLE_MAX_BYTES = 100
    response = post(client, published.codabench_crac())
    assert "larger than the limit of 100 bytes" in response.content.decode()
    assert not DefinitionJob.objects.exists()


def test_the_job_page_is_for_staff(client, staff):
    client.force_login(get_user_model().objects.get(username="olga"))
    assert client.get("/new-competition/bundle/job/1/").status_code == 302


def test_the_command_stops_at_its_time_limit(tmp_path, monkeypatch, db):
    get_user_model().objects.create_user("olga", password="pw-olga-123")
    path = tmp_path / "crac.zip"
    path.write_bytes(published.codalab_crac())
    real = bundle_services.bundle_spec

    def slow(*args, **kwargs):
        time.sleep(3)
        return real(*args, **kwargs)

    monkeypatch.setattr(bundle_services, "bundle_spec", slow)
    with pytest.raises(CommandError) as caught:
        call_command(
            "import_bundle", str(path), "--owner", "olga", "--time-limit", "1", stderr=io.StringIO()
        )
    assert str(caught.value) == (
        "crac.zip: stopped after 1 s, the import's time limit (--time-limit): nothing was "
        "created. Give a longer limit, or 0 for none."
    )
    assert not Competition.objects.exists()
    out = io.StringIO()
    call_command(
        "import_bundle",
        str(path),
        "--owner",
        "olga",
        "--time-limit",
        "0",
        stdout=out,
        stderr=io.StringIO(),
    )
    assert "draft competition crac-2025-shared-task" in out.getvalue()
