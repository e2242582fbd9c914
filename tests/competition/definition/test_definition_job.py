"""A large definition upload is loaded by a job, outside the request; the edit page shows the
job's state and progress, and a refused one says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from competition.definition.upload import (
    competition_definition_yaml,
    competition_definition_zip,
    definition_job_run,
)
from competition.models import AuditEntry, Competition, DefinitionJob
from competition.services import competition_load

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def corefud(db, client):
    get_user_model().objects.create_user("organizer", password="pw-org-123")
    competition_load(path=ROOT / "fixtures" / "corefud-demo.yaml", with_baselines=False)
    client.login(username="organizer", password="pw-org-123")
    return Competition.objects.get(slug="corefud-demo")


def upload(client, competition, name: str, body: bytes):
    return client.post(
        reverse("competition:edit", args=[competition.slug]),
        {"action": "upload", "definition": SimpleUploadedFile(name, body)},
    )


def test_a_large_upload_is_loaded_by_a_job_whose_page_shows_it(
    client, corefud, settings, django_capture_on_commit_callbacks
):
    settings.DEFINITION_JOB_BYTES = 1000
    archive = competition_definition_zip(competition=corefud)
    archive_text = competition_definition_yaml(competition=corefud)
    assert len(archive) > 1000
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = upload(client, corefud, "c.zip", archive)
    assert response.status_code == 302
    job = DefinitionJob.objects.get()
    assert (job.status, job.file_name) == ("queued", "c.zip")
    page = client.get(reverse("competition:edit", args=[corefud.slug])).content.decode()
    assert 'http-equiv="refresh"' in page and "Waiting for a worker" in page
    assert (Path(settings.PRIVATE_ROOT) / job.path).is_file()

    for callback in callbacks:
        callback()
    job.refresh_from_db()
    assert job.status == "done" and job.message.startswith("The definition was loaded.")
    assert not (Path(settings.PRIVATE_ROOT) / job.path).exists()
    page = client.get(reverse("competition:edit", args=[corefud.slug])).content.decode()
    assert 'http-equiv="refresh"' not in page and "Loaded" in page
    assert competition_definition_yaml(competition=corefud) == archive_text


def test_a_refused_job_says_why_and_a_second_run_does_nothing(
    client, corefud, settings, django_capture_on_commit_callbacks
):
    settings.DEFINITION_JOB_BYTES = 10
    text = competition_definition_yaml(competition=corefud).replace(
        "counts: best", "counts: newest"
    )
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, corefud, "c.yaml", text.encode())
    job = DefinitionJob.objects.get()
    assert job.status == "failed"
    assert job.message == (
        "c.yaml: tasks[0].phases[0]: 'counts' is 'newest'; expected one of best, latest, chosen"
    )
    assert definition_job_run(job_id=job.pk) == "failed"
    page = client.get(reverse("competition:edit", args=[corefud.slug])).content.decode()
    assert "Refused" in page and "&#x27;counts&#x27; is &#x27;newest&#x27;" in page


def test_progress_names_each_key_being_read(corefud, settings, monkeypatch):
    from competition.definition import apply

    seen: list[str] = []
    monkeypatch.setattr(apply, "known_keys", lambda competition: {})
    job = DefinitionJob.objects.create(competition=corefud, file_name="c.zip", path="jobs/x/upload")
    target = Path(settings.PRIVATE_ROOT) / job.path
    target.parent.mkdir(parents=True)
    target.write_bytes(competition_definition_zip(competition=corefud))
    original = DefinitionJob.objects.filter

    def recording(*args, **kwargs):
        rows = original(*args, **kwargs)
        update = rows.update

        def update_and_record(**values):
            if values.get("progress"):
                seen.append(values["progress"])
            return update(**values)

        rows.update = update_and_record
        return rows

    monkeypatch.setattr(DefinitionJob.objects, "filter", recording)
    assert definition_job_run(job_id=job.pk) == "done"
    assert seen[0] == "Unpacking the upload"
    assert "Reading the gold key en_gum-corefud-test.conllu (1 of 6)" in seen
    assert seen[-1] == "Writing the competition"


def test_a_large_key_on_the_subcorpus_form_is_read_by_a_job(
    client, settings, world, django_capture_on_commit_callbacks
):
    """The key is received in the request, then read, checked and stored by a job whose
    progress the phase's edit page shows; a refused one says why there."""
    settings.DEFINITION_JOB_BYTES = 100
    world.competition.organizers.add(world.alice)
    client.force_login(world.alice)
    url = reverse(
        "competition:edit_phase", args=[world.competition.slug, world.task.slug, world.phase.slug]
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            url,
            {
                "action": "subcorpus",
                "sc-name": "PERSUASION",
                "sc-available": "on",
                "sc-key": SimpleUploadedFile(
                    "persuasion.conllua", world.key_text("light").encode()
                ),
            },
        )
    assert response.status_code == 302
    job = DefinitionJob.objects.get()
    assert (job.kind, job.status, job.phase) == ("key", "queued", world.phase)
    assert not world.phase.subcorpora.filter(slug="persuasion").exists()
    page = client.get(url).content.decode()
    assert 'http-equiv="refresh"' in page and "persuasion.conllua" in page
    for callback in callbacks:
        callback()
    job.refresh_from_db()
    assert job.status == "done", job.message
    assert job.message == "The key of PERSUASION was stored (2 documents)."
    [entry] = AuditEntry.objects.filter(action="keys_changed")  # the job's, named for alice
    assert entry.actor == world.alice and entry.detail.startswith(
        f"{world.task.title} › {world.phase.title} › PERSUASION: key "
    )
    stored = world.phase.subcorpora.get(slug="persuasion")
    assert stored.key_path.read_text() == world.key_text("light")
    assert not (Path(settings.PRIVATE_ROOT) / job.path).parent.exists()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            url,
            {
                "action": "subcorpus",
                "sc-name": "GUM",
                "sc-available": "on",
                "sc-key": SimpleUploadedFile(
                    "gum.conllu",
                    (
                        ROOT / "fixtures" / "corefud" / "key" / "zeros-corefud-test.conllu"
                    ).read_bytes(),
                ),
            },
        )
    refused = DefinitionJob.objects.get(file_name="gum.conllu")
    assert refused.status == "failed"
    assert refused.message.startswith("gum.conllu is compact CONLL-U (CorefUD), but the task")
    assert not world.phase.subcorpora.filter(slug="gum").exists()
    page = client.get(url).content.decode()
    assert "Refused" in page and 'http-equiv="refresh"' not in page
