"""The audit log: every organizer action the issue names leaves one entry saying who did
what and when, written through ``audit_record`` by the service that acts; the log page is the
competition's organizers' only."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from competition.definition.editor import subcorpus_save
from competition.models import AuditEntry, Submission
from competition.services.audit import audit_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer(world):
    user = get_user_model().objects.create_user("olga", password="pw-12345!")
    world.competition.organizers.add(user)
    return user


@pytest.fixture
def client_of(organizer) -> Client:
    client = Client()
    client.force_login(organizer)
    return client


def entries():
    return [
        (e.action, e.actor.username if e.actor else None, e.detail)
        for e in AuditEntry.objects.order_by("id")
    ]


def organize(client, world, action, **data):
    url = f"/competitions/codi-test/{world.task.slug}/{world.phase.slug}/organize/"
    return client.post(url, {"action": action, **data})


def test_reveal_hide_freeze_unfreeze_and_rescore_of_a_phase_are_logged(world, client_of):
    for action in ("hide", "reveal", "freeze", "unfreeze", "rescore"):
        response = organize(client_of, world, action, note="official")
        assert response.status_code == 302
    where = "Task identity › Development"
    log = entries()
    assert [(a, who) for a, who, _ in log] == [
        ("hide", "olga"),
        ("reveal", "olga"),
        ("freeze", "olga"),
        ("unfreeze", "olga"),
        ("rescore", "olga"),
    ]
    assert log[0][2] == where and log[2][2] == f"{where}: official"
    assert log[1][2].startswith(f"{where}, from ") and log[4][2] == f"{where}: 0 submissions"
    assert all(e.created_at is not None for e in AuditEntry.objects.all())


def test_rescoring_and_disqualifying_a_run_are_logged(world, client_of):
    run = Submission.objects.create(
        team=world.alpha, phase=world.phase, status=Submission.Status.FAILED
    )
    url = f"/submissions/{run.pk}/organize/"
    client_of.post(url, {"action": "rescore"})
    client_of.post(url, {"action": "disqualify", "reason": "copied <b>gold</b>"})
    assert entries() == [
        ("rescore", "olga", f"Submission #{run.pk} of Alpha in Task identity › Development"),
        (
            "disqualify",
            "olga",
            f"Submission #{run.pk} of Alpha in Task identity › Development: copied <b>gold</b>",
        ),
    ]
    page = client_of.get("/competitions/codi-test/organize/log/").content.decode()
    assert "copied &lt;b&gt;gold&lt;/b&gt;" in page and "<b>gold" not in page  # escaped


def test_a_changed_gold_key_is_logged_with_who_changed_it(world, organizer, texts):
    light = world.phase.subcorpora.get(slug="light")
    subcorpus_save(
        phase=world.phase,
        subcorpus=light,
        name="LIGHT",
        actor=organizer,
        key=SimpleUploadedFile("light.conllua", texts.response("light").encode()),
    )
    # saving the dataset again without a new key changes no key
    subcorpus_save(phase=world.phase, subcorpus=light, name="LIGHT", actor=organizer)
    [(action, who, detail)] = entries()
    assert action == "keys_changed" and who == "olga"
    assert detail.startswith("Task identity › Development › LIGHT: key ")


def test_the_log_page_is_for_the_competitions_organizers_only(world, client_of):
    audit_record(
        competition=world.competition, actor=None, action="publish", detail="Every item was met."
    )
    page = client_of.get("/competitions/codi-test/organize/log/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Published" in html and "operator" in html and "Every item was met." in html
    for user in (world.alice, world.mallory):
        other = Client()
        other.force_login(user)
        assert other.get("/competitions/codi-test/organize/log/").status_code == 404
    assert Client().get("/competitions/codi-test/organize/log/").status_code == 302  # log in


def test_an_unknown_action_is_refused_and_a_long_detail_is_cut(world):
    with pytest.raises(ValueError):
        audit_record(competition=world.competition, actor=None, action="delete_everything")
    entry = audit_record(
        competition=world.competition, actor=None, action="freeze", detail="x" * 5000
    )
    assert len(entry.detail) == 1000 and entry.detail.endswith("…")


def test_the_owner_adds_an_organizer_on_the_organizers_page(world, organizer, client_of):
    world.competition.owner = organizer
    world.competition.save()
    response = client_of.post(
        "/competitions/codi-test/organize/organizers/", {"action": "add", "username": "bob"}
    )
    assert response.status_code == 302
    assert world.competition.organizers.filter(username="bob").exists()
    bob = Client()
    bob.force_login(world.bob)
    page = bob.get("/competitions/codi-test/organize/organizers/")
    assert page.status_code == 200 and 'id="add-organizer"' not in page.content.decode()
    refused = bob.post(
        "/competitions/codi-test/organize/organizers/", {"action": "remove", "user": organizer.pk}
    )
    assert refused.status_code == 404
    client_of.post(
        "/competitions/codi-test/organize/organizers/", {"action": "remove", "user": world.bob.pk}
    )
    assert not world.competition.organizers.filter(username="bob").exists()
    assert [(a, who, d) for a, who, d in entries()] == [
        ("organizer_added", "olga", "bob"),
        ("organizer_removed", "olga", "bob"),
    ]


def test_load_competition_logs_the_keys_it_changed(tmp_path, texts):
    from django.core.management import call_command

    get_user_model().objects.create_user("org")
    key = tmp_path / "light.CONLLUA"
    key.write_text(texts.key("light"), encoding="utf-8")
    path = tmp_path / "c.yaml"
    path.write_text(
        """
slug: logged
title: Logged
organizers: [org]
tasks:
  - slug: identity
    kind: identity
    title: Identity
    phases:
      - slug: dev
        kind: development
        title: Development
        start: 2021-04-01T00:00:00Z
        subcorpora:
          - name: LIGHT
            key: light.CONLLUA
""",
        encoding="utf-8",
    )
    call_command("load_competition", str(path), stdout=io.StringIO())
    key.write_text(texts.response("light"), encoding="utf-8")
    call_command("load_competition", str(path), stdout=io.StringIO())
    [created, (action, who, detail)] = entries()
    assert created == ("organizer_added", None, "org, owner (the definition c.yaml)")
    assert action == "keys_changed" and who is None
    assert detail.startswith(
        "Identity › Development: gold keys or scorer options changed by load_competition "
    )


def test_organizers_changed_in_the_admin_are_logged(world, organizer, rf):
    """The admin's organizers box writes the same entries as the organizers page."""
    from django.contrib.admin.sites import site

    from competition.models import Competition

    staff = get_user_model().objects.create_user("root", is_staff=True, is_superuser=True)
    request = rf.post("/admin/")
    request.user = staff
    competition = world.competition

    class Form:  # what the change form hands over: the instance and its many-to-many save
        instance = competition

        def save_m2m(self):
            competition.organizers.set([world.bob])

    site._registry[Competition].save_related(request, Form(), [], change=True)
    assert entries() == [
        ("organizer_added", "root", "bob (in the admin)"),
        ("organizer_removed", "root", "olga (in the admin)"),
    ]
