"""Uploading a definition whose keys did not change reads none of them again: a zip's members
are hashed once, as they are unpacked, and a key the competition holds already (the same
SHA-256, for a task that reads it alike) is neither hashed again, nor validated, nor read; a
YAML alone keeps the current keys without touching them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from competition.definition import keys
from competition.definition.upload import (
    competition_definition_upload,
    competition_definition_yaml,
    competition_definition_zip,
)
from competition.models import Competition, SubCorpus
from competition.services import competition_load

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def corefud(db):
    get_user_model().objects.create_user("organizer")
    competition_load(path=ROOT / "fixtures" / "corefud-demo.yaml", with_baselines=False)
    return Competition.objects.get(slug="corefud-demo")


@pytest.fixture
def key_reads(monkeypatch):
    """Every call that hashes, validates or reads a key file, by name."""
    calls: list[str] = []
    for name in ("file_sha256", "key_problems", "key_documents", "content_digest"):
        original = getattr(keys, name)

        def counted(*args, _name=name, _original=original, **kwargs):
            calls.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(keys, name, counted)
    return calls


def test_the_zip_download_uploaded_back_reads_no_key(corefud, key_reads):
    before = list(SubCorpus.objects.order_by("pk").values_list("sha256", "documents"))
    archive = competition_definition_zip(competition=corefud)
    competition_definition_upload(competition=corefud, upload=SimpleUploadedFile("c.zip", archive))
    assert key_reads == []
    after = list(SubCorpus.objects.order_by("pk").values_list("sha256", "documents"))
    assert after == before


def test_a_yaml_alone_reads_no_key(corefud, key_reads):
    text = competition_definition_yaml(competition=corefud).replace(
        "daily_limit: 10", "daily_limit: 3"
    )
    competition_definition_upload(
        competition=corefud, upload=SimpleUploadedFile("c.yaml", text.encode())
    )
    assert key_reads == []
    assert corefud.tasks.get().phases.get(slug="test").daily_limit == 3


def test_a_changed_key_is_read_once_and_the_others_not_at_all(corefud, key_reads):
    data = yaml.safe_load(competition_definition_yaml(competition=corefud))
    archive = competition_definition_zip(competition=corefud)
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    zeros = data["tasks"][0]["phases"][0]["subcorpora"][2]["key"]
    members[zeros] = members[zeros].replace(
        b"# newdoc id = LuoTestCase", b"# newdoc id = LuoTestCase2"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, body in members.items():
            zf.writestr(name, body)
    competition_definition_upload(
        competition=corefud, upload=SimpleUploadedFile("c.zip", buffer.getvalue())
    )
    assert sorted(key_reads) == ["content_digest", "key_problems"]
    names = {sc.name: sc.documents[0]["name"] for sc in SubCorpus.objects.all()}
    assert names["zeros"] == "LuoTestCase2"


def test_a_stored_key_leaves_its_skeleton_for_uploads(corefud, monkeypatch):
    """Checking a key when it is stored also gives its skeleton (per document its name, word
    forms and sentence ids), kept for uploads: none of them reads a key afterwards, and what
    they are checked against is what reading the key gives."""
    from competition import selectors
    from competition.task_scoring import validation_options
    from scoring.api import key_skeleton

    phase = corefud.tasks.get().phases.get(slug="test")
    expected = {
        subcorpus.slug: key_skeleton(
            str(subcorpus.key_path), options=validation_options(phase.task)
        )
        for subcorpus in phase.subcorpora.filter(available=True).exclude(key_file="")
    }
    assert expected

    def not_read(*args, **kwargs):
        raise AssertionError("a key was read again for an upload")

    monkeypatch.setattr(selectors, "key_skeleton", not_read)
    facts = selectors.phase_check_facts(phase=phase)
    got = {d["slug"]: {k: d[k] for k in ("format", "documents")} for d in facts["subcorpora"]}
    assert got == expected
