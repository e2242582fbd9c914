"""Data files per phase: attached by the organizers, downloaded by participants from the
phase page once released (never before), never a gold key; and no page, download or API
endpoint a participant can reach serves a key."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from competition import services
from competition.definition import editor
from competition.definition.editor import EditorError
from competition.models import PhaseDataFile
from tests.conftest import KEY_DOCS

pytestmark = pytest.mark.django_db

INPUTS = b"# newdoc id = light_1\n1\tthe\t_\n"  # a test input: no coreference column


def organizer(world):
    world.competition.organizers.add(world.bob)  # bob organizes (and is in team Beta)
    return world.bob


def attach(world, *, name="light_test_input.conllua", data=INPUTS, release_at=None):
    return editor.phase_data_attach(
        phase=world.phase,
        upload=SimpleUploadedFile(name, data),
        description="Test inputs",
        release_at=release_at,
    )


def download_url(data: PhaseDataFile) -> str:
    return reverse("competition:data_download", args=[data.pk, data.file_name])


def body(response) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return response.content


def test_participants_download_data_once_released_and_never_before(client, world):
    organizer(world)
    later = attach(world, release_at=timezone.now() + timedelta(days=1))
    phase_page = reverse(
        "competition:phase", args=[world.competition.slug, world.task.slug, world.phase.slug]
    )
    client.force_login(world.alice)
    page = client.get(phase_page).content.decode()
    assert "light_test_input.conllua" not in page and 'id="no-data"' in page
    assert client.get(download_url(later)).status_code == 404

    client.force_login(world.bob)  # the organizers see it, and may download it, always
    page = client.get(phase_page).content.decode()
    assert "light_test_input.conllua" in page and "not yet: organizers only" in page
    assert body(client.get(download_url(later))) == INPUTS

    editor.phase_data_update(data=later, description="", release_at=None)  # phase start
    client.force_login(world.alice)
    assert "light_test_input.conllua" in client.get(phase_page).content.decode()
    response = client.get(download_url(later))
    assert response.status_code == 200 and body(response) == INPUTS
    assert 'attachment; filename="light_test_input.conllua"' in response["Content-Disposition"]
    client.logout()
    assert client.get(download_url(later)).status_code == 404
    wrong_name = reverse("competition:data_download", args=[later.pk, "other.conllua"])
    client.force_login(world.alice)
    assert client.get(wrong_name).status_code == 404


def test_a_file_identical_to_a_gold_key_is_never_attached(world, settings):
    light = world.phase.subcorpora.get(slug="light")
    stored = editor.subcorpus_save(
        phase=world.phase,
        subcorpus=light,
        name="LIGHT",
        key=SimpleUploadedFile("light.conllua", world.key_text("light").encode()),
    )
    with pytest.raises(EditorError) as refused:
        attach(world, name="light_dev.conllua", data=world.key_text("light").encode())
    assert refused.value.message == (
        "light_dev.conllua is identical to the gold key of "
        "identity/dev/LIGHT; keys are never given to "
        "participants (only a development phase's own key, marked as its public key)."
    )
    assert not PhaseDataFile.objects.exists()
    assert not list(settings.PRIVATE_ROOT.glob("data/**/*.conllua"))
    assert stored.subcorpus.sha256


def test_a_key_identical_to_a_released_data_file_is_refused(world):
    data = attach(world, name="ami_dev.conllua", data=world.key_text("ami").encode())
    ami = world.phase.subcorpora.get(slug="ami")
    with pytest.raises(EditorError) as refused:
        editor.subcorpus_save(
            phase=world.phase,
            subcorpus=ami,
            name="AMI",
            key=SimpleUploadedFile("ami.conllua", world.key_text("ami").encode()),
        )
    assert "identical to the data file ami_dev.conllua" in refused.value.message
    ami.refresh_from_db()
    assert ami.sha256 == "" and data.pk


def test_an_uploaded_name_cannot_leave_the_data_folder(world, settings):
    data = attach(world, name="../../keys/evil.conllua")
    assert data.file_name == "evil.conllua"
    assert data.absolute_path.resolve().is_relative_to((settings.PRIVATE_ROOT / "data").resolve())


def test_the_organizers_attach_and_remove_through_the_phase_editor(client, world):
    bob = organizer(world)
    client.force_login(bob)
    url = reverse(
        "competition:edit_phase", args=[world.competition.slug, world.task.slug, world.phase.slug]
    )
    response = client.post(
        url,
        {
            "action": "data",
            "data-description": "dev inputs",
            "data-release_at": "",
            "data-file": SimpleUploadedFile("inputs.conllua", INPUTS),
        },
    )
    assert response.status_code == 302
    data = PhaseDataFile.objects.get()
    assert data.release_at is None and data.absolute_path.read_bytes() == INPUTS
    client.force_login(world.alice)  # a participant may not
    assert client.post(url, {"action": "remove_data", "data": data.pk}).status_code == 404
    client.force_login(bob)
    client.post(url, {"action": "remove_data", "data": data.pk})
    assert not PhaseDataFile.objects.exists() and not data.absolute_path.exists()


# --- no participant-facing URL serves a key -------------------------------------------------


def _routes(patterns, prefix=""):
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            if route.startswith("admin/"):
                continue
            yield from _routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route


def _fill(route: str, values: dict[str, list[str]]) -> list[str]:
    """Every URL the route gives with the candidate values of its parameters."""
    urls = ["/" + route]
    for name in re.findall(r"<(?:\w+:)?(\w+)>", route):
        urls = [
            re.sub(rf"<(?:\w+:)?{name}>", value, url, count=1)
            for url in urls
            for value in values.get(name, ["x"])
        ]
    return urls


def test_no_page_download_or_api_a_participant_reaches_serves_a_key(
    world, django_capture_on_commit_callbacks
):
    """Every route of the site (the admin aside), filled with this world's objects, fetched
    by a participant, a participant of another team and an anonymous visitor: no answer
    holds a line of a gold key. The organizers' zip does (the check can see a key)."""
    organizer(world)
    for sc in world.phase.subcorpora.filter(available=True):
        editor.subcorpus_save(
            phase=world.phase,
            subcorpus=sc,
            name=sc.name,
            key=SimpleUploadedFile(f"{sc.slug}.conllua", world.key_text(sc.slug).encode()),
        )
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    data = attach(world)
    key_lines = {
        line.encode()
        for slug in KEY_DOCS
        for line in world.key_text(slug).splitlines()
        if "EntityID" in line
    }
    # A key line that is also in alice's own response could be read back from her upload:
    # for her, only the key's own lines count; for the others, every line.
    own = {line.encode() for slug in KEY_DOCS for line in world.response_text(slug).splitlines()}
    assert key_lines - own
    values = {
        "slug": [world.competition.slug],
        "competition": [world.competition.slug],
        "task": [world.task.slug],
        "phase": [world.phase.slug],
        "subcorpus": ["light"],
        "pk": [str(submission.pk), str(data.pk)],
        "submission_id": [str(submission.pk)],
        "phase_id": [str(world.phase.pk)],
        "file_name": [data.file_name],
    }
    urls = sorted(
        {url for route in _routes(get_resolver().url_patterns) for url in _fill(route, values)}
    )
    assert any("/data/" in url for url in urls) and any("definition.zip" in url for url in urls)
    served = 0
    for who in (world.alice, world.mallory, None):
        client = Client()
        if who is not None:
            client.force_login(who)
        forbidden = key_lines - own if who == world.alice else key_lines
        for url in urls:
            for suffix in ("", "?format=json", "?all=1&details=1"):
                response = client.get(url + suffix)
                content = body(response)
                served += response.status_code == 200
                leaked = {line for line in forbidden if line in content}
                assert not leaked, (who, url + suffix, sorted(leaked)[:2])
    assert served > 30

    client = Client()
    client.force_login(world.bob)
    archive = body(client.get(reverse("competition:definition_zip", args=[world.competition.slug])))
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        content = b"".join(zf.read(name) for name in zf.namelist())
    assert all(line in content for line in key_lines)


def test_the_organizers_change_a_release_time_in_the_phases_zone(client, world):
    world.phase.time_zone = "AoE"
    world.phase.save()
    data = attach(world, release_at=timezone.now() + timedelta(days=3))
    client.force_login(organizer(world))
    url = reverse(
        "competition:edit_phase", args=[world.competition.slug, world.task.slug, world.phase.slug]
    )
    page = client.get(url).content.decode()
    shown = data.release_at.astimezone(timezone.get_fixed_timezone(-720))
    assert f'value="{shown:%Y-%m-%dT%H:%M}"' in page
    client.post(url, {"action": "release", "data": data.pk, "release_at": "2026-01-01T00:00"})
    data.refresh_from_db()
    assert data.release_at.isoformat() == "2026-01-01T12:00:00+00:00"
    response = client.post(
        url, {"action": "release", "data": data.pk, "release_at": "tomorrow"}, follow=True
    )
    assert (
        "The release time was not changed: Enter a date and time like" in response.content.decode()
    )
    client.post(url, {"action": "release", "data": data.pk, "release_at": ""})
    data.refresh_from_db()
    assert data.release_at is None and data.released_at == world.phase.start
