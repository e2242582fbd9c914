"""Who may change who organizes a competition: the owner and staff, whatever the door.

The reproduction of the hole: the owner adds a co-organizer; the co-organizer downloads the
definition, lists a participant under ``organizers:`` and uploads it back. The upload is
refused with a message naming ``organizers:``, nothing changes, and the participant still
cannot open the organizers' pages. The same definition from the owner goes through, and each
organizer it adds is in the audit log with the door it came through.
"""

from __future__ import annotations

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from competition.models import AuditEntry
from competition.services.publish import competition_organizer_add

Action = AuditEntry.Action


def _setup(world):
    User = get_user_model()
    owner = User.objects.create_user("vorg", password="vorg-pw-123!")
    coorg = User.objects.create_user("coorg", password="coorg-pw-123!")
    world.competition.owner = owner
    world.competition.save(update_fields=["owner"])
    world.competition.organizers.add(owner)
    competition_organizer_add(competition=world.competition, actor=owner, username="coorg")
    return owner, coorg


def _definition_adding(client, slug: str, username: str) -> bytes:
    text = client.get(reverse("competition:definition_yaml", args=[slug])).content
    data = yaml.safe_load(text)
    data["organizers"] = [*data.get("organizers", []), username]
    return yaml.safe_dump(data, sort_keys=False).encode()


def _upload(client, slug: str, body: bytes):
    return client.post(
        reverse("competition:edit", args=[slug]),
        {"action": "upload", "definition": SimpleUploadedFile("definition.yaml", body)},
        follow=True,
    )


def _organize_url(world) -> str:
    return reverse(
        "leaderboard:organize_phase",
        args=[world.competition.slug, world.task.slug, world.phase.slug],
    )


def test_a_co_organizer_cannot_make_a_participant_an_organizer(client, world):
    owner, coorg = _setup(world)
    client.force_login(coorg)
    body = _definition_adding(client, world.competition.slug, "alice")
    response = _upload(client, world.competition.slug, body)
    assert response.status_code == 400
    page = response.content.decode()
    assert "The definition was loaded." not in page
    assert "organizers:" in page and "definition.yaml" in page
    assert not world.competition.organizers.filter(username="alice").exists()
    refused = AuditEntry.objects.filter(
        competition=world.competition, action=Action.ORGANIZER_ADDED, detail__contains="alice"
    )
    assert not refused.exists()
    client.force_login(world.alice)
    assert client.get(_organize_url(world)).status_code == 404


def test_the_owner_adds_an_organizer_by_definition_and_it_is_audited_with_its_door(client, world):
    owner, _ = _setup(world)
    client.force_login(owner)
    body = _definition_adding(client, world.competition.slug, "alice")
    response = _upload(client, world.competition.slug, body)
    assert "The definition was loaded." in response.content.decode()
    assert world.competition.organizers.filter(username="alice").exists()
    entry = AuditEntry.objects.get(
        competition=world.competition, action=Action.ORGANIZER_ADDED, detail__startswith="alice"
    )
    assert entry.actor == owner
    assert "definition.yaml" in entry.detail


def test_a_co_organizer_may_upload_a_definition_that_keeps_the_organizers(client, world):
    """The round trip of the download changes nothing about who organizes: not refused."""
    _, coorg = _setup(world)
    client.force_login(coorg)
    body = _definition_adding(client, world.competition.slug, "coorg")  # already listed
    response = _upload(client, world.competition.slug, body)
    assert "The definition was loaded." in response.content.decode()
    assert set(world.competition.organizers.values_list("username", flat=True)) == {
        "vorg",
        "coorg",
    }


def _definition_text(world, *, add: str) -> bytes:
    from competition.definition.upload import competition_definition_yaml

    data = yaml.safe_load(competition_definition_yaml(competition=world.competition))
    data["organizers"] = [*data.get("organizers", []), add]
    return yaml.safe_dump(data, sort_keys=False).encode()


def test_the_rule_holds_for_a_zip_and_for_a_large_upload_loaded_by_a_job(world, settings):
    """The same refusal whatever the door: a zip, and an upload a job loads later (the job
    acts as the user who uploaded it)."""
    import io
    import zipfile

    from competition.definition.upload import (
        competition_definition_upload,
        definition_job_run,
        definition_upload_start,
    )
    from competition.errors import DefinitionError
    from competition.models import DefinitionJob

    _, coorg = _setup(world)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("competition.yaml", _definition_text(world, add="alice"))
    with pytest.raises(DefinitionError) as refused:
        competition_definition_upload(
            competition=world.competition,
            upload=SimpleUploadedFile("c.zip", buffer.getvalue()),
            actor=coorg,
        )
    assert refused.value.message.startswith("c.zip: organizers: only the competition's owner")
    settings.DEFINITION_JOB_BYTES = 10
    job = definition_upload_start(
        competition=world.competition,
        upload=SimpleUploadedFile("big.yaml", _definition_text(world, add="bob")),
        user=coorg,
    )
    assert isinstance(job, DefinitionJob)
    assert definition_job_run(job_id=job.pk) == "failed"
    job.refresh_from_db()
    assert job.status == "failed" and "big.yaml: organizers:" in job.message
    assert not world.competition.organizers.filter(username__in=["alice", "bob"]).exists()


def test_an_upload_without_a_user_adds_no_organizer(world):
    """An upload is never an operator's: with no user to answer for it, nobody is added."""
    from competition.definition.upload import competition_definition_upload
    from competition.errors import DefinitionError

    _setup(world)
    with pytest.raises(DefinitionError, match="organizers:"):
        competition_definition_upload(
            competition=world.competition,
            upload=SimpleUploadedFile("c.yaml", _definition_text(world, add="alice")),
        )


def test_staff_add_organizers_by_definition(world):
    from competition.definition.upload import competition_definition_upload

    _setup(world)
    staff = get_user_model().objects.create_user("root", is_staff=True)
    competition_definition_upload(
        competition=world.competition,
        upload=SimpleUploadedFile("c.yaml", _definition_text(world, add="bob")),
        actor=staff,
    )
    entry = AuditEntry.objects.get(action=Action.ORGANIZER_ADDED, detail__startswith="bob")
    assert entry.actor == staff and entry.detail == "bob (the uploaded c.yaml)"


def test_an_ownerless_competition_keeps_no_owner_when_a_co_organizer_uploads(world):
    """Its organizers as they are: nothing to refuse, and the owner is staff's to name."""
    from competition.definition.upload import competition_definition_upload

    coorg = get_user_model().objects.create_user("coorg")
    world.competition.organizers.add(coorg)
    assert world.competition.owner_id is None
    body = _definition_text(world, add="coorg")
    competition_definition_upload(
        competition=world.competition, upload=SimpleUploadedFile("c.yaml", body), actor=coorg
    )
    world.competition.refresh_from_db()
    assert world.competition.owner_id is None
    assert not AuditEntry.objects.filter(action=Action.ORGANIZER_ADDED).exists()


def test_a_clone_is_owned_by_who_cloned_it_and_says_so(world):
    from competition.definition.editions import competition_clone

    _, coorg = _setup(world)
    clone = competition_clone(source=world.competition, user=coorg, slug="next", title="Next")
    assert clone.owner == coorg
    assert set(clone.organizers.values_list("username", flat=True)) == {"coorg", "vorg"}
    log = [(e.actor, e.detail) for e in AuditEntry.objects.filter(competition=clone)]
    assert sorted(log, key=lambda e: e[1]) == [
        (coorg, "coorg, owner (the clone of codi-test)"),
        (coorg, "vorg (the clone of codi-test)"),
    ]


def test_a_new_owner_chosen_in_the_admin_is_logged(world, rf):
    from django.contrib.admin.sites import site

    from competition.models import Competition

    owner, _ = _setup(world)
    staff = get_user_model().objects.create_user("root", is_staff=True, is_superuser=True)
    request = rf.post("/admin/")
    request.user = staff
    world.competition.owner = world.bob

    class Form:
        changed_data = ["owner"]

    site._registry[Competition].save_model(request, world.competition, Form(), change=True)
    entry = AuditEntry.objects.filter(action=Action.ORGANIZER_ADDED).latest("id")
    assert (entry.actor, entry.detail) == (staff, "bob, owner (in the admin)")
