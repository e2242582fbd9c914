"""A competition's definition downloaded and uploaded: the round trip gives the same
competition; uploads go through the loader with its rules, and untrusted archives are
checked before anything is written."""

from __future__ import annotations

import hashlib
import io
import stat
import zipfile
from pathlib import Path

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from competition import services
from competition.definition import editor
from competition.definition.upload import (
    competition_definition_upload,
    competition_definition_yaml,
    competition_definition_zip,
)
from competition.errors import DefinitionError
from competition.models import Competition, Phase, SubCorpus, Submission

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def corefud(db):
    get_user_model().objects.create_user("organizer", password="pw-org-123")
    services.competition_load(path=ROOT / "fixtures" / "corefud-demo.yaml", with_baselines=False)
    return Competition.objects.get(slug="corefud-demo")


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


def zip_of(members: dict[str, bytes], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def test_download_then_upload_gives_the_same_competition(corefud):
    """The zip names every key; loaded into an emptied competition it rebuilds the same
    tasks, phases (dates, zone, limits), sub-corpora and keys: its own download is the same."""
    first_yaml = competition_definition_yaml(competition=corefud)
    archive = competition_definition_zip(competition=corefud)
    data = yaml.safe_load(first_yaml)
    phase = data["tasks"][0]["phases"][0]
    assert phase["time_zone"] == "AoE" and phase["end"] == "2026-06-17T23:59:59-12:00"
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        names = set(zf.namelist())
    assert {sub["key"] for sub in phase["subcorpora"]} <= names

    shas = dict(SubCorpus.objects.values_list("name", "sha256"))
    corefud.tasks.all().delete()
    assert not Phase.objects.exists()
    competition_definition_upload(competition=corefud, upload=upload("c.zip", archive))
    assert competition_definition_yaml(competition=corefud) == first_yaml
    assert dict(SubCorpus.objects.values_list("name", "sha256")) == shas
    for sc in SubCorpus.objects.all():
        assert sc.key_path.is_file() and len(sc.documents) > 0


def test_a_yaml_alone_keeps_the_current_keys_and_changes_what_it_says(corefud):
    text = competition_definition_yaml(competition=corefud).replace(
        "daily_limit: 10", "daily_limit: 2"
    )
    shas = dict(SubCorpus.objects.values_list("name", "sha256"))
    competition_definition_upload(competition=corefud, upload=upload("c.yaml", text.encode()))
    assert Phase.objects.get(slug="test").daily_limit == 2
    assert dict(SubCorpus.objects.values_list("name", "sha256")) == shas


def test_removing_a_phase_that_holds_submissions_is_refused_and_nothing_changes(world):
    """The loader's rule, through the upload: the file no longer lists the phase."""
    world.competition.organizers.add(world.alice)
    for sc in world.phase.subcorpora.filter(available=True):
        sc.sha256 = hashlib.sha256(sc.key_path.read_bytes()).hexdigest()
        sc.save()
    services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    data = yaml.safe_load(competition_definition_yaml(competition=world.competition))
    data["title"] = "Changed"
    data["tasks"][0]["phases"] = [{**data["tasks"][0]["phases"][0], "slug": "other"}]
    archive = competition_definition_zip(competition=world.competition)
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    members["competition.yaml"] = yaml.safe_dump(data).encode()
    with pytest.raises(DefinitionError) as refused:
        competition_definition_upload(
            competition=world.competition, upload=upload("c.zip", zip_of(members))
        )
    assert refused.value.message.startswith(
        "c.zip: the file no longer lists phase identity/dev (1 submissions)"
    )
    assert "/tmp" not in refused.value.message
    world.competition.refresh_from_db()
    assert world.competition.title == "CODI-CRAC test"
    assert Submission.objects.filter(phase=world.phase).count() == 1


@pytest.mark.parametrize(
    ("members", "symlink", "expected"),
    [
        ({"../evil.yaml": b"slug: x"}, None, "points outside the archive"),
        ({"/etc/evil.yaml": b"slug: x"}, None, "absolute path"),
        ({"c.yaml": b"slug: corefud-demo"}, "keys/link", "symbolic link"),
        ({"c.yaml": b"slug: x", "d.yaml": b"slug: y"}, None, "exactly one .yaml"),
        ({"inner.zip": b"PK"}, None, "nested archive"),
    ],
)
def test_unsafe_zips_are_refused_before_anything_is_written(corefud, members, symlink, expected):
    before = competition_definition_yaml(competition=corefud)
    with pytest.raises(DefinitionError, match=expected):
        competition_definition_upload(
            competition=corefud, upload=upload("c.zip", zip_of(members, symlink=symlink))
        )
    assert competition_definition_yaml(competition=corefud) == before


def test_a_zip_bomb_is_refused(corefud):
    with pytest.raises(DefinitionError, match="compressed more than"):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("c.yaml", b"slug: corefud-demo\n")
            zf.writestr("keys/big.conllu", b"\n" * 5_000_000)
        competition_definition_upload(
            competition=corefud, upload=upload("c.zip", buffer.getvalue())
        )


@pytest.mark.parametrize("path", ["../../../etc/passwd", "/etc/passwd", "keys/../../x"])
def test_a_definition_naming_a_file_outside_the_upload_is_refused(corefud, path):
    data = yaml.safe_load(competition_definition_yaml(competition=corefud))
    data["tasks"][0]["phases"][0]["subcorpora"][0]["key"] = path
    with pytest.raises(DefinitionError) as refused:
        competition_definition_upload(
            competition=corefud, upload=upload("c.yaml", yaml.safe_dump(data).encode())
        )
    assert refused.value.message == (
        f"c.yaml: tasks[0].phases[0].subcorpora[0].key: {path!r} points outside the upload "
        "(expected a path relative to the definition, inside the zip)"
    )


def test_an_organizer_cannot_load_another_competition_through_their_own(corefud):
    other = editor.competition_create(slug="other", title="Other", owner="organizer")
    text = competition_definition_yaml(competition=corefud)
    with pytest.raises(DefinitionError, match="this page edits 'other'"):
        competition_definition_upload(competition=other, upload=upload("c.yaml", text.encode()))
    assert Competition.objects.get(slug="corefud-demo").tasks.count() == 1


def test_bad_yaml_and_bad_values_name_the_place(corefud):
    with pytest.raises(DefinitionError) as refused:
        competition_definition_upload(
            competition=corefud, upload=upload("c.yaml", b"slug: corefud-demo\ntitle: [unclosed\n")
        )
    assert (
        refused.value.message.startswith("c.yaml: not valid YAML")
        and "line 3" in refused.value.message
    )
    text = competition_definition_yaml(competition=corefud).replace(
        "counts: best", "counts: newest"
    )
    with pytest.raises(DefinitionError) as refused:
        competition_definition_upload(competition=corefud, upload=upload("c.yaml", text.encode()))
    assert refused.value.message == (
        "c.yaml: tasks[0].phases[0]: 'counts' is 'newest'; expected one of best, latest, chosen"
    )


def test_the_pages_download_and_upload_for_organizers_only(client, corefud):
    url = reverse("competition:definition_zip", args=[corefud.slug])
    get_user_model().objects.create_user("pat", password="pw-pat-123")
    client.login(username="pat", password="pw-pat-123")
    assert client.get(url).status_code == 404
    assert (
        client.get(reverse("competition:definition_yaml", args=[corefud.slug])).status_code == 404
    )
    client.login(username="organizer", password="pw-org-123")
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    response = client.post(
        reverse("competition:edit", args=[corefud.slug]),
        {"action": "upload", "definition": upload("c.yaml", b"slug: corefud-demo\n")},
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "c.yaml: the file: &#x27;title&#x27; is required" in page
