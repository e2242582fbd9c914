"""Tracks in the organizers' editor: added, renamed, ordered, and removed only while no run
names them; the board and the API follow the order and the names."""

from __future__ import annotations

import pytest
from django.urls import reverse

from competition import services
from competition.definition import editor
from competition.definition.editor import EditorError
from competition.models import Track

pytestmark = pytest.mark.django_db


@pytest.fixture
def organized(world, client):
    world.competition.organizers.add(world.mallory)
    client.force_login(world.mallory)
    return world


def task_url(world):
    return reverse("competition:edit_task", args=[world.competition.slug, world.task.slug])


def test_tracks_are_added_renamed_ordered_and_removed_through_the_page(organized, client):
    world = organized
    url = task_url(world)
    assert "No tracks" in client.get(url).content.decode()
    client.post(
        url,
        {
            "action": "track_add",
            "track-slug": "",
            "track-name": "LLM",
            "track-description": "Runs built on a large language model.",
        },
    )
    client.post(url, {"action": "track_add", "track-slug": "free", "track-name": "Unconstrained"})
    assert [(t.slug, t.name, t.order) for t in world.task.tracks.order_by("order")] == [
        ("llm", "LLM", 0),
        ("free", "Unconstrained", 1),
    ]

    # The same name twice is refused on the add form.
    html = client.post(url, {"action": "track_add", "track-name": "llm"}).content.decode()
    assert "already has a track named" in html and world.task.tracks.count() == 2

    free = Track.objects.get(task=world.task, slug="free")
    client.post(url, {"action": "track_up", "track": free.pk})
    assert list(world.task.tracks.order_by("order").values_list("slug", flat=True)) == [
        "free",
        "llm",
    ]
    client.post(
        url,
        {"action": "track_save", "track": free.pk, "name": "Open", "description": "Anything goes."},
    )
    free.refresh_from_db()
    assert (free.slug, free.name, free.description) == ("free", "Open", "Anything goes.")

    # A run names the LLM track: it stays; the other goes.
    llm = Track.objects.get(task=world.task, slug="llm")
    services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads(), track="LLM"
    )
    page = client.get(url).content.decode()
    assert "1 run: cannot be removed" in page
    response = client.post(url, {"action": "track_delete", "track": llm.pk}, follow=True)
    assert "holds 1 submission;" in response.content.decode()
    assert Track.objects.filter(pk=llm.pk).exists()
    client.post(url, {"action": "track_delete", "track": free.pk})
    assert list(world.task.tracks.values_list("slug", flat=True)) == ["llm"]


def test_another_tasks_track_is_not_found(organized, client, make_world):
    world = organized
    from competition.models import Competition, Task

    other = Task.objects.create(
        competition=Competition.objects.create(slug="x", title="X"),
        slug="t",
        kind="identity",
        title="T",
        primary_metric="conll",
    )
    foreign = Track.objects.create(task=other, slug="llm", name="LLM")
    response = client.post(task_url(world), {"action": "track_delete", "track": foreign.pk})
    assert response.status_code == 404 and Track.objects.filter(pk=foreign.pk).exists()


def test_track_rules_in_the_service(world):
    llm = editor.track_save(task=world.task, name="LLM")
    assert llm.slug == "llm"
    with pytest.raises(EditorError) as refused:
        editor.track_save(task=world.task, slug="llm", name="Other")
    assert refused.value.code == "slug_taken"
    with pytest.raises(EditorError) as refused:
        editor.track_save(task=world.task, name="  ")
    assert refused.value.code == "track_name_required"
    with pytest.raises(EditorError) as refused:
        editor.track_save(task=world.task, track=llm, name="x" * 101)
    assert refused.value.message == "A track's name has at most 100 characters."
    second = editor.track_save(task=world.task, name="Unconstrained")
    editor.track_move(track=second, step=-5)  # clamps at the top
    assert [t.slug for t in world.task.tracks.order_by("order")] == ["unconstrained", "llm"]


def test_the_board_names_its_track_and_the_api_lists_tracks(world, client):
    editor.track_save(task=world.task, name="LLM")
    editor.track_save(task=world.task, name="Unconstrained")
    board = reverse(
        "leaderboard:board", args=[world.competition.slug, world.task.slug, world.phase.slug]
    )
    html = client.get(board, {"track": "Unconstrained"}).content.decode()
    assert '<span id="board-track">Unconstrained track</span>' in html
    assert "<title>Leaderboard · Development · Unconstrained track" in html
    phase = client.get(f"/api/phases/{world.phase.pk}/").json()
    assert phase["tracks"] == [
        {"slug": "llm", "name": "LLM", "description": ""},
        {"slug": "unconstrained", "name": "Unconstrained", "description": ""},
    ]
    bad = client.get(f"/api/phases/{world.phase.pk}/leaderboard/", {"track": "gpt"})
    assert bad.status_code == 400 and "LLM, Unconstrained" in bad.json()["detail"]


def test_the_submission_and_organize_pages_show_the_track_and_the_score(
    world, client, django_capture_on_commit_callbacks
):
    editor.track_save(task=world.task, name="LLM")
    with django_capture_on_commit_callbacks(execute=True):
        run = services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads(),
            track="llm",
        )
    run.refresh_from_db()
    assert run.status == "scored"
    client.force_login(world.alice)
    html = client.get(reverse("competition:submission", args=[run.pk])).content.decode()
    assert '<dd id="submission-track">LLM' in html
    assert "Leaderboard of this phase (LLM track)" in html

    world.competition.organizers.add(world.mallory)
    client.force_login(world.mallory)
    organize = reverse(
        "leaderboard:organize_phase",
        args=[world.competition.slug, world.task.slug, world.phase.slug],
    )
    html = client.get(organize).content.decode()
    row = html[html.index(f'data-submission="{run.pk}"') :]
    row = row[: row.index("</tr>")]
    assert '<td class="lb-track" data-label="Track">LLM</td>' in row
    from competition.models import Score

    f1s = Score.objects.filter(
        submission=run, metric="conll", mode="task", document="", run__is_current=True
    ).values_list("f1", flat=True)
    assert len(f1s) == 2  # LIGHT and AMI; SWITCHBOARD has no key
    assert f"{100 * sum(f1s) / 2:.2f}" in row


def test_the_overview_and_the_competition_api_list_the_tracks(world, client):
    editor.track_save(task=world.task, name="LLM")
    html = client.get(
        reverse("leaderboard:competition", args=[world.competition.slug])
    ).content.decode()
    assert "one board per track" in html and "?track=llm" in html
    body = client.get(f"/api/competitions/{world.competition.slug}/").json()
    assert body["tasks"][0]["tracks"] == [{"slug": "llm", "name": "LLM", "description": ""}]


def test_the_phase_page_names_the_tracks(world, client):
    editor.track_save(task=world.task, name="LLM", description="Built on an LLM.")
    html = client.get(
        reverse(
            "competition:phase", args=[world.competition.slug, world.task.slug, world.phase.slug]
        )
    ).content.decode()
    assert "<strong>LLM</strong>" in html and "Built on an LLM." in html


def test_a_tracks_board_export_names_the_track(world, client, django_capture_on_commit_callbacks):
    import csv
    import io

    editor.track_save(task=world.task, name="LLM")
    editor.track_save(task=world.task, name="Unconstrained")
    with django_capture_on_commit_callbacks(execute=True):
        services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads(),
            track="Unconstrained",
        )
    url = reverse(
        "leaderboard:board_csv", args=[world.competition.slug, world.task.slug, world.phase.slug]
    )
    rows = list(
        csv.DictReader(io.StringIO(client.get(url, {"track": "unconstrained"}).content.decode()))
    )
    assert [(r["team"], r["track"]) for r in rows] == [("Alpha", "unconstrained")]
    assert list(csv.DictReader(io.StringIO(client.get(url).content.decode()))) == []


def test_the_editor_and_a_definition_write_tracks_by_the_same_rules(world):
    """The editor's track section writes through the definition's writer: what it leaves is
    what the definition download says, a definition applied back changes nothing, and a
    track that holds a run is kept by both."""
    from competition.definition import apply
    from competition.definition.current import competition_spec
    from competition.definition.spec import SpecError, TrackSpec

    llm = editor.track_save(task=world.task, name="LLM", description="Built on an LLM.")
    free = editor.track_save(task=world.task, slug="free", name="Unconstrained")
    editor.track_move(track=free, step=-1)
    editor.track_save(
        task=world.task, track=llm, name="Large models", description="Built on an LLM."
    )
    spec = competition_spec(competition=world.competition)
    tracks = next(t for t in spec.tasks if t.slug == world.task.slug).tracks
    assert [(t.slug, t.name, t.description) for t in tracks] == [
        ("free", "Unconstrained", ""),
        ("llm", "Large models", "Built on an LLM."),
    ]
    before = list(world.task.tracks.order_by("order").values_list("pk", "slug", "order"))
    apply.tracks_apply(task=world.task, tracks=tracks)
    assert (
        list(world.task.tracks.order_by("order").values_list("pk", "slug", "order")) == before
    )  # matched by slug: the same rows

    services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads(), track="free"
    )
    with pytest.raises(SpecError) as refused:
        apply.tracks_apply(task=world.task, tracks=(TrackSpec.checked(slug="llm", name="LLM"),))
    assert refused.value.code == "held" and "Unconstrained" in refused.value.message
    with pytest.raises(EditorError) as refused_here:
        editor.track_delete(track=world.task.tracks.get(slug="free"))
    assert refused_here.value.message == (
        "The track Unconstrained holds 1 submission; "
        "deleting it would delete them and their scores."
    )
    assert sorted(world.task.tracks.values_list("slug", flat=True)) == ["free", "llm"]
