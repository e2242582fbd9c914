"""Drafts and publishing: the checklist, publish and back to draft, who may change the
organizers, and the front doors (the editor, load_competition, a definition upload) that
create drafts and never publish by themselves."""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.utils import timezone

from competition import services
from competition.definition import editor
from competition.definition import upload as definition_upload
from competition.errors import CompetitionError
from competition.models import AuditEntry, Competition, CompetitionPage, Phase, SubCorpus, Task
from competition.selectors_publish import checklist_unmet, publish_checklist
from competition.services import pages
from competition.services.publish import (
    competition_organizer_add,
    competition_organizer_remove,
    competition_publish,
    competition_unpublish,
)

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.fixture
def owner():
    return User.objects.create_user("owner", password="pw-12345!")


@pytest.fixture
def draft(owner) -> Competition:
    """What staff's "New competition" makes."""
    return editor.competition_create(slug="fresh", title="Fresh task", owner="owner")


def add_phase(competition, *, start, end=None, keyed=True, slug="dev") -> Phase:
    task, _ = Task.objects.get_or_create(
        competition=competition,
        slug="identity",
        defaults={"kind": "identity", "title": "Identity", "primary_metric": "conll"},
    )
    phase = Phase.objects.create(
        task=task, slug=slug, kind="development", title=slug.title(), start=start, end=end
    )
    SubCorpus.objects.create(
        phase=phase,
        name="LIGHT",
        slug="light",
        available=keyed,
        key_file="keys/light.conllua" if keyed else "",
    )
    return phase


def write_pages(competition, *kinds):
    for kind in kinds:
        CompetitionPage.objects.create(competition=competition, kind=kind, body=f"# {kind}")


def items_by_key(competition):
    return {item.key: item for item in publish_checklist(competition=competition)}


# --- a new competition is a draft --------------------------------------------------------


def test_staffs_new_competition_is_a_draft_owned_by_its_organizer(draft, owner):
    assert draft.published_at is None and draft.is_draft
    assert draft.owner == owner and list(draft.organizers.all()) == [owner]


def test_the_migration_leaves_every_existing_competition_published():
    """Competitions from before drafts (made here as the migration found them) are public."""
    from importlib import import_module

    from django.apps import apps

    migration = import_module("competition.migrations.0015_drafts_owners_audit")
    first, second = (User.objects.create_user(name) for name in ("first", "second"))
    old = Competition.objects.create(slug="old", title="Old")
    old.organizers.add(first)
    old.organizers.add(second)
    orphan = Competition.objects.create(slug="orphan", title="Orphan")
    migration.publish_existing(apps, None)
    old.refresh_from_db()
    orphan.refresh_from_db()
    assert old.published_at == old.created and old.owner == first
    assert orphan.published_at == orphan.created and orphan.owner is None


# --- the checklist -----------------------------------------------------------------------


def test_an_empty_draft_cannot_be_published_even_waiving_everything(draft, owner):
    items = items_by_key(draft)
    assert not items["tasks"].ok and not items["tasks"].waiver
    with pytest.raises(CompetitionError) as refused:
        competition_publish(
            competition=draft, actor=owner, waived=["tasks", "pages", "terms", "dates"]
        )
    assert refused.value.code == "publish_unmet"
    assert "At least one task with a phase" in refused.value.message
    draft.refresh_from_db()
    assert (
        draft.is_draft and not AuditEntry.objects.filter(action=AuditEntry.Action.PUBLISH).exists()
    )


def test_each_open_or_upcoming_phase_needs_its_keys_or_says_keys_later(draft, owner):
    now = timezone.now()
    add_phase(draft, start=now - timedelta(days=9), end=now - timedelta(days=2), slug="old")
    dev = add_phase(draft, start=now - timedelta(days=1), keyed=False)
    test = add_phase(draft, start=now + timedelta(days=30), keyed=False, slug="test")
    write_pages(draft, "overview", "evaluation", "data", "terms")
    items = items_by_key(draft)
    # A closed phase takes no runs: not listed; the one to open later is, as the open one.
    assert [key for key in items if key.startswith("keys:")] == [
        f"keys:{dev.pk}",
        f"keys:{test.pk}",
    ]
    keys = items[f"keys:{dev.pk}"]
    assert not keys.ok and "1 of 1 datasets without a gold key: LIGHT" in keys.detail
    assert keys.waiver.startswith("Keys later")
    upcoming = items[f"keys:{test.pk}"]
    assert upcoming.label.startswith("Upcoming phase Identity › Test (opens ")
    assert not upcoming.ok and upcoming.waiver.startswith("Keys later")
    with pytest.raises(CompetitionError, match="has its gold keys"):
        competition_publish(competition=draft, actor=owner, waived=[f"keys:{dev.pk}"])
    competition_publish(
        competition=draft, actor=owner, waived=[f"keys:{dev.pk}", f"keys:{test.pk}"]
    )
    draft.refresh_from_db()
    assert draft.published_at is not None
    entry = AuditEntry.objects.get(action=AuditEntry.Action.PUBLISH)
    assert entry.actor == owner
    assert entry.detail.startswith("Waived: Open phase Identity › Dev has its gold keys; ")
    assert "Upcoming phase Identity › Test (opens " in entry.detail


def test_pages_and_terms_are_present_or_explicitly_waived(draft, owner):
    add_phase(draft, start=timezone.now() - timedelta(days=1))
    write_pages(draft, "overview")
    items = items_by_key(draft)
    assert not items["pages"].ok and items["pages"].detail == "Not written: Evaluation, Data"
    assert not items["terms"].ok
    assert [i.key for i in checklist_unmet(items=list(items.values()))] == ["pages", "terms"]
    with pytest.raises(CompetitionError):
        competition_publish(competition=draft, actor=owner, waived=["pages"])
    write_pages(draft, "evaluation", "data", "terms")
    assert all(item.ok for item in publish_checklist(competition=draft))
    competition_publish(competition=draft, actor=owner)
    assert draft.published_at is not None  # the caller's object says so, not only the row
    assert AuditEntry.objects.get(action=AuditEntry.Action.PUBLISH).detail == "Every item was met."


def test_phase_dates_out_of_order_cannot_be_waived(draft, owner):
    now = timezone.now()
    add_phase(draft, start=now + timedelta(days=5), end=now + timedelta(days=1))
    item = items_by_key(draft)["dates"]
    assert not item.ok and not item.waiver and "Identity › Dev" in item.detail
    with pytest.raises(CompetitionError, match="closes after it opens"):
        competition_publish(competition=draft, actor=owner, waived=["dates", "pages", "terms"])


def test_only_its_organizers_or_staff_publish(draft):
    add_phase(draft, start=timezone.now() - timedelta(days=1))
    stranger = User.objects.create_user("stranger")
    with pytest.raises(CompetitionError) as refused:
        competition_publish(competition=draft, actor=stranger, waived=["pages", "terms"])
    assert refused.value.code == "not_organizer"
    staff = User.objects.create_user("staff", is_staff=True)
    competition_publish(competition=draft, actor=staff, waived=["pages", "terms"])
    with pytest.raises(CompetitionError) as again:
        competition_publish(competition=draft, actor=staff, waived=["pages", "terms"])
    assert again.value.code == "already_published"


# --- back to draft -----------------------------------------------------------------------


@pytest.fixture
def published(draft, owner) -> Competition:
    add_phase(draft, start=timezone.now() - timedelta(days=1))
    write_pages(draft, "overview", "evaluation", "data", "terms")
    return competition_publish(competition=draft, actor=owner)


def test_publishing_is_undone_while_no_participant_has_joined(published, owner):
    services.organizer_team_get_or_create(competition=published)  # baselines: not a participant
    pages.terms_accept(competition=published, user=owner)  # an organizer reading its terms
    competition_unpublish(competition=published, actor=owner)
    published.refresh_from_db()
    assert published.is_draft
    assert [e.action for e in AuditEntry.objects.order_by("id")] == [
        "organizer_added",  # its owner, when staff created it
        "publish",
        "unpublish",
    ]
    with pytest.raises(CompetitionError) as refused:
        competition_unpublish(competition=published, actor=owner)
    assert refused.value.code == "not_published"


def test_a_team_of_participants_makes_it_final(published, owner):
    CompetitionPage.objects.filter(competition=published, kind="terms").delete()  # no terms
    services.team_create(
        competition=published, name="Alpha", user=User.objects.create_user("alice")
    )
    with pytest.raises(CompetitionError) as refused:
        competition_unpublish(competition=published, actor=owner)
    assert refused.value.code == "participants_joined" and "1 participant" in refused.value.message
    published.refresh_from_db()
    assert not published.is_draft


def test_a_participants_terms_acceptance_makes_it_final(published, owner):
    pages.terms_accept(competition=published, user=User.objects.create_user("bob"))
    with pytest.raises(CompetitionError, match="cannot go back to draft"):
        competition_unpublish(competition=published, actor=owner)


# --- organizers --------------------------------------------------------------------------


def test_the_owner_adds_and_removes_organizers_and_the_log_says_who(draft, owner):
    carol = User.objects.create_user("carol")
    competition_organizer_add(competition=draft, actor=owner, username=" carol ")
    assert draft.organizers.filter(pk=carol.pk).exists()
    with pytest.raises(CompetitionError) as twice:
        competition_organizer_add(competition=draft, actor=owner, username="carol")
    assert twice.value.code == "already_organizer"
    with pytest.raises(CompetitionError) as unknown:
        competition_organizer_add(competition=draft, actor=owner, username="nobody")
    assert unknown.value.code == "unknown_organizer"
    # an organizer who is not the owner may not change the organizers
    dave = User.objects.create_user("dave")
    with pytest.raises(CompetitionError) as refused:
        competition_organizer_add(competition=draft, actor=carol, username="dave")
    assert refused.value.code == "not_owner"
    with pytest.raises(CompetitionError):
        competition_organizer_remove(competition=draft, actor=carol, user=owner)
    with pytest.raises(CompetitionError) as keeps:
        competition_organizer_remove(competition=draft, actor=owner, user=owner)
    assert keeps.value.code == "remove_owner"
    competition_organizer_remove(competition=draft, actor=owner, user=carol)
    assert list(draft.organizers.all()) == [owner]
    with pytest.raises(CompetitionError) as gone:
        competition_organizer_remove(competition=draft, actor=owner, user=dave)
    assert gone.value.code == "not_an_organizer"
    log = [
        (e.action, e.actor and e.actor.username, e.detail)
        for e in AuditEntry.objects.order_by("id")
    ]
    assert log == [
        ("organizer_added", None, "owner, owner (the new-competition page)"),
        ("organizer_added", "owner", "carol"),
        ("organizer_removed", "owner", "carol"),
    ]


def test_staff_manage_the_organizers_of_a_competition_without_owner(draft):
    draft.owner = None
    draft.save()
    staff = User.objects.create_user("staff", is_staff=True)
    erin = User.objects.create_user("erin")
    competition_organizer_add(competition=draft, actor=staff, username="erin")
    competition_organizer_remove(competition=draft, actor=staff, user=erin)
    assert AuditEntry.objects.filter(actor=staff).count() == 2


# --- load_competition and the definition upload -------------------------------------------

DEFINITION = """
slug: loaded
title: Loaded task
organizers: [owner]
{extra}
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
"""


@pytest.fixture
def definition(tmp_path, texts, owner):
    (tmp_path / "light.CONLLUA").write_text(texts.key("light"), encoding="utf-8")

    def write(extra: str = "") -> Path:
        path = tmp_path / "loaded.yaml"
        path.write_text(DEFINITION.format(extra=extra), encoding="utf-8")
        return path

    return write


def load(path: Path, *args: str) -> str:
    out = io.StringIO()
    call_command("load_competition", str(path), *args, stdout=out)
    return out.getvalue()


def test_load_competition_creates_a_draft_and_publishes_only_when_asked(definition, owner):
    out = load(definition())
    competition = Competition.objects.get(slug="loaded")
    assert competition.is_draft and competition.owner == owner
    assert "loaded is a draft" in out and "--publish" in out
    load(definition())  # loading again publishes nothing
    competition.refresh_from_db()
    assert competition.is_draft
    out = load(definition(), "--publish")
    competition.refresh_from_db()
    assert competition.published_at is not None
    assert "Waived: Overview, evaluation and data pages are written" in out
    entry = AuditEntry.objects.get(action="publish")
    assert entry.actor is None and "Waived" in entry.detail
    load(definition())  # loading never unpublishes
    competition.refresh_from_db()
    assert competition.published_at is not None


def test_published_false_keeps_a_draft_even_with_publish(definition):
    with pytest.raises(CommandError, match="published: false"):
        load(definition("published: false"), "--publish")
    assert Competition.objects.get(slug="loaded").is_draft
    with pytest.raises(CommandError, match="'published' must be true or false"):
        load(definition("published: maybe"))


def test_published_true_in_a_definition_publishes_nothing_by_itself(definition):
    load(definition("published: true"))
    assert Competition.objects.get(slug="loaded").is_draft


def zipped(path: Path) -> SimpleUploadedFile:
    """The definition and its key, as the editor's upload takes them."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.write(path, "competition.yaml")
        archive.write(path.parent / "light.CONLLUA", "light.CONLLUA")
    return SimpleUploadedFile("loaded.zip", buffer.getvalue())


def test_uploading_a_definition_never_publishes_nor_unpublishes(definition, owner):
    load(definition())
    competition = Competition.objects.get(slug="loaded")
    definition_upload.competition_definition_upload(
        competition=competition, upload=zipped(definition("published: true"))
    )
    competition.refresh_from_db()
    assert competition.is_draft
    competition_publish(competition=competition, actor=owner, waived=["pages", "terms"])
    definition_upload.competition_definition_upload(
        competition=competition, upload=zipped(definition("published: false"))
    )
    competition.refresh_from_db()
    assert competition.published_at is not None


def test_nobody_but_its_organizers_takes_part_in_a_draft(draft, owner):
    """The pages answer 404 first; the services refuse too, whatever calls them."""
    add_phase(draft, start=timezone.now() - timedelta(days=1))
    write_pages(draft, "terms")
    eve = User.objects.create_user("eve")
    for attempt in (
        lambda: services.team_create(competition=draft, name="E", user=eve),
        lambda: pages.terms_accept(competition=draft, user=eve),
    ):
        with pytest.raises(CompetitionError) as refused:
            attempt()
        assert refused.value.code == "no_competition"
    assert pages.terms_accept(competition=draft, user=owner) is not None
    team = services.team_create(competition=draft, name="Owners' test team", user=owner)
    assert team.memberships.get().user == owner


def test_the_organizers_test_team_does_not_count_but_a_mixed_team_does(published, owner):
    CompetitionPage.objects.filter(competition=published, kind="terms").delete()
    services.team_create(competition=published, name="Our test runs", user=owner)
    competition_unpublish(competition=published, actor=owner)
    competition_publish(competition=published, actor=owner, waived=["terms"])
    team = published.teams.get(name="Our test runs")
    fred = User.objects.create_user("fred")
    team.memberships.create(user=fred, competition=published)
    with pytest.raises(CompetitionError, match="1 participant"):
        competition_unpublish(competition=published, actor=owner)
