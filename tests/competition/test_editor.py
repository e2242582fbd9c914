"""The organizers' editor: competitions made by staff for an owner, tasks, phases in their
time zone, sub-corpora whose keys the scorer reads at upload, per-competition organizers,
and the rules the loader keeps (nothing held by submissions is deleted; a changed key
re-scores)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from competition import services
from competition.definition import editor
from competition.definition.editor import EditorError
from competition.forms_editor import PhaseForm, aware
from competition.models import Competition, Phase, ScoringRun, SubCorpus, Submission
from competition.timezones import zone_display
from tests.conftest import KEY_DOCS, Doc, conllua

pytestmark = pytest.mark.django_db


def key_upload(name: str = "LIGHT.CONLLUA", docs=None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, conllua(docs or KEY_DOCS["light"]).encode())


def test_aoe_deadline_is_stored_in_utc_and_shown_with_its_zone():
    """23:59 AoE on 30 June is 11:59 UTC on 1 July; pages show it as typed, with the zone."""
    stored = aware(datetime(2026, 6, 30, 23, 59), "AoE")
    assert stored == datetime(2026, 7, 1, 11, 59, tzinfo=UTC)
    assert zone_display(stored, "AoE") == "2026-06-30 23:59 AoE (UTC−12)"
    assert zone_display(stored, "UTC") == "2026-07-01 11:59 UTC"
    assert zone_display(stored, "Europe/Prague") == "2026-07-01 13:59 Europe/Prague (UTC+2)"


def test_the_phase_form_reads_dates_in_the_chosen_zone():
    form = PhaseForm(
        {
            "slug": "test",
            "title": "Test",
            "kind": "test_predicted",
            "time_zone": "AoE",
            "start": "2026-06-01T00:00",
            "end": "2026-06-30T23:59",
            "leaderboard_visibility": "hidden",
            "run_details": "public",
            "daily_limit": 3,
            "total_limit": 10,
            "counts": "best",
            "missing": "unranked",
        }
    )
    assert form.is_valid(), form.errors
    fields = form.phase_fields()
    assert fields["end"] == datetime(2026, 7, 1, 11, 59, tzinfo=UTC)
    assert fields["revealed_at"] is None


def test_staff_create_a_competition_for_its_owner_and_others_may_not(client):
    User = get_user_model()
    User.objects.create_user("staffer", password="pw-staff-1", is_staff=True)
    owner = User.objects.create_user("olga", password="pw-olga-1")
    client.login(username="olga", password="pw-olga-1")
    response = client.post(
        reverse("competition:competition_new"),
        {"slug": "crac-2026", "title": "CRAC 2026", "owner": "olga"},
    )
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not Competition.objects.exists()

    client.login(username="staffer", password="pw-staff-1")
    response = client.post(
        reverse("competition:competition_new"),
        {"slug": "crac-2026", "title": "CRAC 2026", "owner": "nobody"},
    )
    assert "There is no user named &#x27;nobody&#x27;" in response.content.decode()
    response = client.post(
        reverse("competition:competition_new"),
        {"slug": "crac-2026", "title": "CRAC 2026", "owner": "olga"},
    )
    competition = Competition.objects.get(slug="crac-2026")
    assert response["Location"] == reverse("competition:edit", args=["crac-2026"])
    assert list(competition.organizers.all()) == [owner]
    assert competition.teams.filter(is_organizer_team=True).count() == 1


def test_an_organizer_of_one_competition_cannot_edit_another(client, world):
    """Organizers are per competition: olga organizes A, not the world's competition."""
    olga = get_user_model().objects.create_user("olga", password="pw-olga-1")
    mine = editor.competition_create(slug="a", title="A", owner="olga")
    client.login(username="olga", password="pw-olga-1")
    assert client.get(reverse("competition:edit", args=[mine.slug])).status_code == 200
    theirs = world.competition.slug
    for url in (
        reverse("competition:edit", args=[theirs]),
        reverse("competition:edit_task", args=[theirs, world.task.slug]),
        reverse("competition:edit_phase", args=[theirs, world.task.slug, world.phase.slug]),
        reverse(
            "competition:edit_subcorpus", args=[theirs, world.task.slug, world.phase.slug, "light"]
        ),
        reverse("competition:definition_yaml", args=[theirs]),
        reverse("competition:definition_zip", args=[theirs]),
    ):
        assert client.get(url).status_code == 404, url
        assert client.post(url, {"action": "delete"}).status_code in (404, 405), url
    assert world.competition.tasks.count() == 1
    assert olga not in world.competition.organizers.all()


def test_a_task_phase_and_subcorpus_are_made_through_the_pages(client):
    get_user_model().objects.create_user("olga", password="pw-olga-1")
    editor.competition_create(slug="a", title="A", owner="olga")
    client.login(username="olga", password="pw-olga-1")
    response = client.post(
        reverse("competition:edit", args=["a"]),
        {
            "action": "task",
            "task-slug": "identity",
            "task-title": "Identity",
            "task-kind": "identity",
            "task-primary_metric": "",
            "task-scorer_options": "",
        },
    )
    assert response["Location"] == reverse("competition:edit_task", args=["a", "identity"])
    response = client.post(
        response["Location"],
        {
            "action": "phase",
            "phase-slug": "test",
            "phase-title": "Test",
            "phase-kind": "test_predicted",
            "phase-time_zone": "AoE",
            "phase-start": "2026-06-01T00:00",
            "phase-end": "2026-06-30T23:59",
            "phase-leaderboard_visibility": "public",
            "phase-run_details": "public",
            "phase-daily_limit": "3",
            "phase-total_limit": "9",
            "phase-counts": "best",
            "phase-missing": "unranked",
        },
    )
    phase = Phase.objects.get(slug="test")
    assert phase.end == datetime(2026, 7, 1, 11, 59, tzinfo=UTC)
    assert phase.time_zone == "AoE" and phase.daily_limit == 3
    page = client.get(response["Location"]).content.decode()
    assert "2026-06-30 23:59 AoE (UTC−12)" in page
    response = client.post(
        response["Location"],
        {"action": "subcorpus", "sc-name": "LIGHT", "sc-available": "on", "sc-key": key_upload()},
    )
    assert response.status_code == 302
    light = SubCorpus.objects.get(phase=phase)
    assert [d["name"] for d in light.documents] == ["light_1", "light_2"]
    assert light.key_path.read_text() == conllua(KEY_DOCS["light"])


def test_a_bad_key_is_refused_with_file_and_line_and_nothing_is_stored(client, settings):
    get_user_model().objects.create_user("olga", password="pw-olga-1")
    competition = editor.competition_create(slug="a", title="A", owner="olga")
    task, _ = editor.task_save(competition=competition, slug="t", kind="identity", title="T")
    phase = editor.phase_save(
        task=task, slug="p", kind="development", title="P", start=datetime(2026, 1, 1, tzinfo=UTC)
    )
    broken = conllua(KEY_DOCS["light"]).splitlines()
    opening = next(i for i, text in enumerate(broken) if "(EntityID=1|" in text)
    broken[opening] = broken[opening].replace("(EntityID=1|MarkableID=markable_1|Min=1", "_")
    line = opening + 1  # the next line closes a markable that is no longer opened
    client.login(username="olga", password="pw-olga-1")
    response = client.post(
        reverse("competition:edit_phase", args=["a", "t", "p"]),
        {
            "action": "subcorpus",
            "sc-name": "LIGHT",
            "sc-available": "on",
            "sc-key": SimpleUploadedFile("light_key.conllua", "\n".join(broken).encode()),
        },
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert f"light_key.conllua:{line + 1}: document &#x27;light_1&#x27;: IDENTITY cell" in page
    assert "expected as many" in page
    assert not SubCorpus.objects.filter(phase=phase).exists()
    keys = settings.PRIVATE_ROOT / "keys"
    assert not keys.exists() or not any(keys.iterdir())
    with pytest.raises(EditorError, match="key_required|gold key"):
        editor.subcorpus_save(phase=phase, name="AMI")


def test_a_task_scoring_the_scorer_refuses_is_refused():
    get_user_model().objects.create_user("olga")
    competition = editor.competition_create(slug="a", title="A", owner="olga")
    corefud, _ = editor.task_save(competition=competition, slug="c", kind="corefud", title="C")
    assert (corefud.procedure, corefud.primary_metric) == ("crac-2025", "conll")
    with pytest.raises(EditorError) as refused:
        editor.task_save(
            competition=competition,
            slug="t",
            kind="identity",
            title="T",
            scorer_options=["no_such_option"],
        )
    assert "no_such_option" in refused.value.message
    with pytest.raises(EditorError) as refused:
        editor.task_save(
            competition=competition,
            slug="t",
            kind="identity",
            title="T",
            primary_metric="bridging_entity",
        )
    assert "not produced" in refused.value.message


def test_a_task_cannot_take_a_word_of_the_sites_addresses(client):
    """competitions/<slug>/pages/... and the like come before a task's own pages: a task
    named "pages" would never be reached, so the name is refused with the list."""
    get_user_model().objects.create_user("olga")
    competition = editor.competition_create(slug="a", title="A", owner="olga")
    for word in ("pages", "team", "organize"):
        with pytest.raises(EditorError) as refused:
            editor.task_save(competition=competition, slug=word, kind="identity", title="T")
        assert refused.value.code == "slug_reserved" and "announcements" in refused.value.message
    assert not competition.tasks.exists()


def test_a_changed_key_rescores_and_what_was_submitted_stays(
    world, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    light = world.phase.subcorpora.get(slug="light")
    first = light.sha256

    # Dates and limits change: nothing is re-scored and the run stays.
    editor.phase_save(
        task=world.task,
        phase=world.phase,
        slug="dev",
        kind="development",
        title="Dev",
        start=world.phase.start,
        daily_limit=1,
    )
    assert ScoringRun.objects.filter(submission=submission).count() == 1

    corrected = [
        KEY_DOCS["light"][0],
        Doc("light_2", [["my", "lady", "sings"], ["she", "is", "happy"]], [(1, 2, 3), (4, 4, 3)]),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        saved = editor.subcorpus_save(
            phase=world.phase, subcorpus=light, name="LIGHT", key=key_upload(docs=corrected)
        )
    assert [s.pk for s in saved.rescored] == [submission.pk]
    assert ScoringRun.objects.filter(submission=submission).count() == 2
    assert [d["name"] for d in saved.subcorpus.documents] == ["light_1", "light_2"]
    assert saved.subcorpus.sha256 != first and len(saved.subcorpus.sha256) == 64

    with pytest.raises(EditorError, match="holds 1 submission;"):
        editor.subcorpus_delete(subcorpus=light)
    with pytest.raises(EditorError, match="holds 1 submission;"):
        editor.phase_delete(phase=world.phase)
    with pytest.raises(EditorError, match="holds 1 submission;"):
        editor.task_delete(task=world.task)
    assert Submission.objects.filter(pk=submission.pk).exists()


def test_a_phase_ending_before_it_starts_is_refused_on_its_field(world):
    start = datetime(2026, 5, 1, tzinfo=UTC)
    with pytest.raises(EditorError) as refused:
        editor.phase_save(
            task=world.task,
            slug="x",
            kind="development",
            title="X",
            start=start,
            end=start - timedelta(minutes=1),
        )
    assert refused.value.field == "end"
    assert not Phase.objects.filter(slug="x").exists()
