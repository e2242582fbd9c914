"""The organizer's forms ask what applies: a task's kind follows its procedure (or the form
says why not), a development phase may hand out its own gold key as public data (keys of other
phases never), and New competition names the current user as owner."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from competition.definition import editor
from competition.definition.editor import EditorError
from competition.models import PhaseDataFile
from competition.task_scoring import procedure_kind, procedure_kind_check
from tests.conftest import KEY_DOCS, conllua

pytestmark = pytest.mark.django_db
START = datetime(2026, 1, 1, tzinfo=UTC)


def _competition():
    get_user_model().objects.create_user("olga", password="pw-olga-1")
    return editor.competition_create(slug="a", title="A", owner="olga")


def test_each_procedure_names_the_kind_it_scores():
    assert procedure_kind("crac-2026") == "corefud"
    assert procedure_kind("crac-2022") == "corefud"
    assert procedure_kind("codi-crac-2021-bridging") == "bridging"
    assert procedure_kind("no-such-procedure") is None
    assert procedure_kind_check(procedure="crac-2024", kind="corefud") is None


def test_identity_anaphora_scored_by_crac_2026_is_refused_with_why(client):
    competition = _competition()
    client.login(username="olga", password="pw-olga-1")
    response = client.post(
        reverse("competition:edit", args=["a"]),
        {
            "action": "task",
            "task-slug": "t",
            "task-title": "T",
            "task-kind": "identity",
            "task-procedure": "crac-2026",
            "task-primary_metric": "",
            "task-scorer_options": "",
        },
    )
    page = response.content.decode()
    assert response.status_code == 400  # a refused form: the page again, with why
    assert "scores Multilingual coreference (CorefUD) tasks, not Identity anaphora" in page
    assert "codi-crac-2021-identity" in page  # the procedure that fits the kind
    with pytest.raises(EditorError) as refused:
        editor.task_save(
            competition=competition,
            slug="b",
            kind="bridging",
            title="B",
            procedure="codi-crac-2021-identity",
        )
    assert refused.value.code == "kind_procedure" and refused.value.field == "kind"


def _phase_with_key(competition, *, slug: str, kind: str):
    task = (
        competition.tasks.first()
        or editor.task_save(competition=competition, slug="t", kind="identity", title="T")[0]
    )
    phase = editor.phase_save(task=task, slug=slug, kind=kind, title=slug, start=START)
    editor.subcorpus_save(
        phase=phase,
        name="LIGHT",
        key=SimpleUploadedFile(f"{slug}.conllua", KEYS[slug].encode()),
    )
    return phase


KEYS = {"dev": conllua(KEY_DOCS["light"]), "test": conllua(KEY_DOCS["ami"])}


def _upload(slug: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(f"{slug}-gold.conllua", KEYS[slug].encode())


def test_a_dev_phase_hands_out_its_own_key_only_when_marked_public():
    competition = _competition()
    dev = _phase_with_key(competition, slug="dev", kind="development")
    test = _phase_with_key(competition, slug="test", kind="test_predicted")

    with pytest.raises(EditorError) as refused:  # the guard, without the choice
        editor.phase_data_attach(phase=dev, upload=_upload("dev"))
    assert refused.value.code == "data_is_key"
    data = editor.phase_data_attach(phase=dev, upload=_upload("dev"), public_key=True)
    assert data.public_key and PhaseDataFile.objects.filter(phase=dev).count() == 1

    # another phase's key stays a key, public choice or not
    with pytest.raises(EditorError) as refused:
        editor.phase_data_attach(phase=dev, upload=_upload("test"), public_key=True)
    assert refused.value.code == "data_is_key" and "t/test/LIGHT" in refused.value.message
    # a test phase has no public key
    with pytest.raises(EditorError) as refused:
        editor.phase_data_attach(phase=test, upload=_upload("test"), public_key=True)
    assert refused.value.code == "public_key_not_dev"
    assert "never reach participants" in refused.value.message


def test_a_key_equal_to_a_public_dev_file_is_stored_for_that_phase_only():
    """The other way round: the public file first, then the keys."""
    competition = _competition()
    task, _ = editor.task_save(competition=competition, slug="t", kind="identity", title="T")
    dev = editor.phase_save(task=task, slug="dev", kind="development", title="Dev", start=START)
    test = editor.phase_save(task=task, slug="test", kind="test_predicted", title="T", start=START)
    editor.phase_data_attach(phase=dev, upload=_upload("dev"), public_key=True)

    saved = editor.subcorpus_save(phase=dev, name="LIGHT", key=_upload("dev"))
    assert saved.subcorpus.sha256
    with pytest.raises(EditorError) as refused:
        editor.subcorpus_save(phase=test, name="LIGHT", key=_upload("dev"))
    assert refused.value.code == "key_is_data"


def test_the_data_form_offers_the_public_key_choice(client):
    competition = _competition()
    dev = _phase_with_key(competition, slug="dev", kind="development")
    client.login(username="olga", password="pw-olga-1")
    url = reverse("competition:edit_phase", args=["a", "t", dev.slug])
    assert "Public key (development data)" in client.get(url).content.decode()
    response = client.post(
        url,
        {"action": "data", "data-file": _upload("dev"), "data-public_key": "on"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert PhaseDataFile.objects.get(phase=dev).public_key


def test_new_competition_names_the_current_user_as_owner(client):
    get_user_model().objects.create_user("sam", password="pw-sam-123", is_staff=True)
    client.login(username="sam", password="pw-sam-123")
    page = client.get(reverse("competition:competition_new")).content.decode()
    owner = page.split('name="owner"')[1].split(">")[0]
    assert 'value="sam"' in owner
