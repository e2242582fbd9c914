"""Editions: a competition cloned as a draft of its next edition (through the one writer),
and the datasets of one phase copied into another; only organizers of both may do it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from competition import services
from competition.definition import editions, editor
from competition.definition import upload as definition_upload
from competition.definition.editor import EditorError
from competition.definition.spec import PHASE_FIELDS
from competition.models import Competition, Phase, Score, Submission, Track
from competition.selectors_publish import checklist_unmet, publish_checklist
from competition.services import pages
from competition.services.publish import competition_publish_waiving

pytestmark = pytest.mark.django_db


def _scores(submission: Submission) -> dict:
    return {
        (s.subcorpus.slug, s.mode, s.metric, s.document): (s.recall, s.precision, s.f1)
        for s in Score.objects.filter(submission=submission).select_related("subcorpus")
    }


@pytest.fixture
def olga(world):
    user = get_user_model().objects.create_user("olga", password="pw-olga-1")
    world.competition.organizers.add(user)
    return user


def test_a_clone_is_a_copy_with_moved_dates_that_scores_as_its_original(
    world, olga, django_capture_on_commit_callbacks
):
    pages.page_save(competition=world.competition, kind="terms", body="Be *fair*.")
    pages.team_approval_require(competition=world.competition, required=True)
    Track.objects.create(task=world.task, slug="llm", name="LLM", order=0)
    world.phase.end = world.phase.start + timedelta(days=30)
    world.phase.save()

    clone = editions.competition_clone(
        source=world.competition,
        user=olga,
        slug="next",
        title="Next edition",
        days=0,
        with_keys=True,
    )
    assert (clone.slug, clone.title) == ("next", "Next edition")
    assert clone.published_at is None  # a draft, whatever its original is
    assert set(clone.organizers.values_list("username", flat=True)) == {"olga"}
    assert clone.pages.get(kind="terms").body == "Be *fair*."
    assert clone.participation_rules.team_approval is True
    task = clone.tasks.get()
    assert (task.slug, task.kind, task.scorer_options, task.primary_metric) == (
        world.task.slug,
        world.task.kind,
        world.task.scorer_options,
        world.task.primary_metric,
    )
    assert list(task.tracks.values_list("slug", "name")) == [("llm", "LLM")]
    phase = task.phases.get()
    assert (phase.start, phase.end) == (world.phase.start, world.phase.end)
    copied = {sc.slug: sc for sc in phase.subcorpora.all()}
    original = {sc.slug: sc for sc in world.phase.subcorpora.all()}
    assert set(copied) == set(original)
    for slug, sc in copied.items():
        assert sc.available == original[slug].available
        if sc.available:
            assert sc.key_path.read_bytes() == original[slug].key_path.read_bytes()
        else:
            assert not sc.key_file
    assert not Submission.objects.filter(phase__task__competition=clone).exists()
    assert clone.teams.filter(is_organizer_team=True).count() == 1

    # The same upload scores the same on both (the clone published, as its organizers would).
    competition_publish_waiving(competition=clone)
    pages.team_approval_require(competition=world.competition, required=False)
    pages.team_approval_require(competition=clone, required=False)
    pages.terms_accept(competition=clone, user=world.bob)
    twin = services.team_create(competition=clone, name="Alpha", user=world.bob)
    pages.terms_accept(competition=world.competition, user=world.alice)
    with django_capture_on_commit_callbacks(execute=True):
        first = services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads(),
            track="llm",
        )
        second = services.submission_create(
            team=twin, phase=phase, user=world.bob, files=world.uploads(), track="llm"
        )
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == second.status == Submission.Status.SCORED
    ours, theirs = _scores(first), _scores(second)
    assert ours and ours.keys() == theirs.keys()
    for key, values in ours.items():
        for a, b in zip(values, theirs[key], strict=True):
            assert a == pytest.approx(b, abs=1e-9)


def test_dates_move_by_the_chosen_days_and_keys_are_dropped_unless_asked(world, olga):
    world.phase.end = world.phase.start + timedelta(days=10)
    world.phase.leaderboard_visibility = "hidden"
    world.phase.save()
    # A reveal scheduled in the editor (a date typed in the phase's form) moves with the dates.
    editor.phase_save(
        task=world.task,
        phase=world.phase,
        slug=world.phase.slug,
        **{
            **{name: getattr(world.phase, name) for name in PHASE_FIELDS},
            "revealed_at": world.phase.start + timedelta(days=12),
        },
    )
    world.phase.refresh_from_db()
    assert world.phase.reveal_scheduled
    clone = editions.competition_clone(
        source=world.competition, user=olga, slug="y2027", title="2027", days=365
    )
    phase = clone.tasks.get().phases.get()
    assert phase.start == world.phase.start + timedelta(days=365)
    assert phase.end == world.phase.end + timedelta(days=365)
    assert phase.revealed_at == world.phase.revealed_at + timedelta(days=365)
    assert phase.time_zone == world.phase.time_zone
    subcorpora = list(phase.subcorpora.order_by("order"))
    assert [sc.name for sc in subcorpora] == [
        sc.name for sc in world.phase.subcorpora.order_by("order")
    ]
    assert all(
        not sc.available and not sc.key_file and not sc.sha256 and not sc.documents
        for sc in subcorpora
    )
    # The source is untouched.
    assert world.phase.subcorpora.filter(available=True).count() == 2
    # The clone's phase opens in a year without keys: its checklist says so (waivable).
    unmet = [
        item
        for item in checklist_unmet(items=publish_checklist(competition=clone))
        if item.key.startswith("keys:")
    ]
    assert [item.key for item in unmet] == [f"keys:{phase.pk}"]
    assert unmet[0].label.startswith("Upcoming phase") and unmet[0].waiver


def test_a_board_revealed_by_hand_stays_hidden_in_the_clone(world, olga):
    Phase.objects.filter(pk=world.phase.pk).update(
        leaderboard_visibility="hidden", end=world.phase.start + timedelta(days=10)
    )
    world.phase.refresh_from_db()
    services.phase_reveal(phase=world.phase, actor=olga)  # "Reveal now"
    world.phase.refresh_from_db()
    assert world.phase.revealed_at is not None and not world.phase.reveal_scheduled
    # Saving the phase's form unchanged keeps the reveal a reveal by hand, to the microsecond.
    revealed = world.phase.revealed_at
    editor.phase_save(
        task=world.task,
        phase=world.phase,
        slug=world.phase.slug,
        **{
            **{name: getattr(world.phase, name) for name in PHASE_FIELDS},
            "revealed_at": revealed.replace(second=0, microsecond=0),
        },
    )
    world.phase.refresh_from_db()
    assert world.phase.revealed_at == revealed and not world.phase.reveal_scheduled

    clone = editions.competition_clone(
        source=world.competition, user=olga, slug="y2027", title="2027", days=365
    )
    phase = clone.tasks.get().phases.get()
    assert phase.leaderboard_visibility == "hidden"
    assert phase.revealed_at is None and not phase.leaderboard_is_public(
        at=phase.end + timedelta(days=30)
    )
    # The definition download leaves a reveal by hand out; uploading it back keeps it.
    data, _ = definition_upload.competition_definition(competition=world.competition)
    assert "revealed_at" not in data["tasks"][0]["phases"][0]


def test_a_reveal_set_for_later_is_scheduled_and_carried(world, olga):
    Phase.objects.filter(pk=world.phase.pk).update(leaderboard_visibility="hidden")
    later = world.phase.start + timedelta(days=40)
    services.phase_reveal(phase=world.phase, at=later, actor=olga)
    world.phase.refresh_from_db()
    assert world.phase.reveal_scheduled
    clone = editions.competition_clone(
        source=world.competition, user=olga, slug="y2027", title="2027", days=365
    )
    assert clone.tasks.get().phases.get().revealed_at == later + timedelta(days=365)


def test_another_organizers_competition_cannot_be_cloned_or_copied_from(world, client):
    User = get_user_model()
    eve = User.objects.create_user("eve", password="pw-eve-123")
    mine = editor.competition_create(slug="eves", title="Eve's", owner="eve")
    task, _ = editor.task_save(competition=mine, slug="t", kind="identity", title="T")
    target = editor.phase_save(
        task=task, slug="dev", kind="development", title="Dev", start=world.phase.start
    )
    with pytest.raises(EditorError, match="do not organize"):
        editions.competition_clone(
            source=world.competition, user=eve, slug="stolen", title="Stolen", with_keys=True
        )
    with pytest.raises(EditorError, match="do not organize"):
        editions.phase_subcorpora_copy(phase=target, source=world.phase, user=eve)
    assert world.phase not in editions.phase_copy_sources(phase=target, user=eve)
    assert not Competition.objects.filter(slug="stolen").exists()
    assert not target.subcorpora.exists()

    client.login(username="eve", password="pw-eve-123")
    response = client.post(
        reverse("competition:edit", args=[world.competition.slug]),
        {
            "action": "clone",
            "clone-slug": "stolen",
            "clone-title": "S",
            "clone-days": 0,
            "clone-with_keys": "on",
        },
    )
    assert response.status_code == 404
    response = client.post(
        reverse("competition:edit_phase", args=["eves", "t", "dev"]),
        {"action": "copy", "copy-source": world.phase.pk, "copy-with_keys": "on"},
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not target.subcorpora.exists()
    assert not Competition.objects.filter(slug="stolen").exists()


def test_the_datasets_of_another_phase_are_copied_with_their_keys(world, olga, client):
    target = editor.phase_save(
        task=world.task, slug="test", kind="test_predicted", title="Test", start=world.phase.start
    )
    client.login(username="olga", password="pw-olga-1")
    url = reverse("competition:edit_phase", args=[world.competition.slug, world.task.slug, "test"])
    page = client.get(url).content.decode()
    assert "Copy the datasets of another phase" in page
    response = client.post(
        url, {"action": "copy", "copy-source": world.phase.pk, "copy-with_keys": "on"}
    )
    assert response.status_code == 302
    copied = {sc.slug: sc for sc in target.subcorpora.all()}
    for sc in world.phase.subcorpora.all():
        assert copied[sc.slug].available == sc.available
        assert copied[sc.slug].language == sc.language
        if sc.available:
            assert copied[sc.slug].key_path.read_bytes() == sc.key_path.read_bytes()
            assert [d["name"] for d in copied[sc.slug].documents]
    # Again: the names are taken, nothing more is written.
    with pytest.raises(EditorError, match="already has a sub-corpus named"):
        editions.phase_subcorpora_copy(phase=target, source=world.phase, user=olga)
    assert target.subcorpora.count() == len(copied)


def test_the_clone_form_makes_the_copy_and_refuses_a_taken_slug(world, olga, client):
    client.login(username="olga", password="pw-olga-1")
    url = reverse("competition:edit", args=[world.competition.slug])
    assert "Clone this competition" in client.get(url).content.decode()
    response = client.post(
        url,
        {
            "action": "clone",
            "clone-slug": world.competition.slug,
            "clone-title": "Again",
            "clone-days": 7,
        },
    )
    assert "already used" in response.content.decode()
    response = client.post(
        url, {"action": "clone", "clone-slug": "again", "clone-title": "Again", "clone-days": 7}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("competition:edit", args=["again"])
    phase = Competition.objects.get(slug="again").tasks.get().phases.get()
    assert phase.start == world.phase.start + timedelta(days=7)


def test_a_clone_asks_the_same_system_card_questions(world, olga):
    from competition.services import cards

    cards.card_defaults_set(competition=world.competition, required=True)
    cards.card_question_save(
        competition=world.competition, slug="gpu-hours", text="GPU hours used", kind="text"
    )
    clone = editions.competition_clone(
        source=world.competition, user=olga, slug="cards", title="With cards"
    )
    fields = ("slug", "text", "kind", "choices", "required", "on_board")
    assert list(clone.card_questions.values_list(*fields)) == list(
        world.competition.card_questions.values_list(*fields)
    )
    assert clone.card_questions.count() == 8


def test_the_corefud_demo_clones_with_its_procedures_tracks_and_keys(db):
    """A loaded definition (CorefUD procedures, tracks) clones whole, keys and all."""
    from pathlib import Path

    from django.core.management import call_command

    staff = get_user_model().objects.create_user("sam", password="pw-sam-123", is_staff=True)
    get_user_model().objects.create_user("organizer", password="pw-org-123")
    call_command("load_competition", str(Path("fixtures/corefud-demo.yaml")))
    source = Competition.objects.get()
    clone = editions.competition_clone(
        source=source, user=staff, slug="demo-next", title="Demo, next", days=-3, with_keys=True
    )
    pairs = zip(source.tasks.order_by("order"), clone.tasks.order_by("order"), strict=True)
    for before, after in pairs:
        assert (after.procedure, after.scorer_options, after.primary_metric) == (
            before.procedure,
            before.scorer_options,
            before.primary_metric,
        )
        assert list(after.tracks.values_list("slug", flat=True)) == list(
            before.tracks.values_list("slug", flat=True)
        )
        for old, new in zip(
            before.phases.order_by("order"), after.phases.order_by("order"), strict=True
        ):
            assert new.start == old.start - timedelta(days=3)
            assert list(new.subcorpora.values_list("slug", "available", "sha256")) == list(
                old.subcorpora.values_list("slug", "available", "sha256")
            )
