"""Pages and downloads: what each viewer gets, and that hidden scores never leak."""

import io
import json
import zipfile

import pandas as pd
import pytest
from django.urls import reverse

from competition.models import Score, SubmissionFile
from leaderboard.models import BoardSnapshot


@pytest.fixture
def world(make):
    organizer = make.user("org")
    alice = make.user("alice")
    bob = make.user("bob")
    competition = make.competition(slug="codi", organizers=[organizer])
    task = make.task(competition, slug="identity")
    phase = make.phase(task, slug="dev")
    team_a = make.team(competition, "Alpha", members=[alice])
    team_b = make.team(competition, "Bravo", members=[bob])
    docs = {"light": [(8, 10), (7, 10), (9, 10)], "ami": [(5, 10), (6, 10)]}
    a = make.run(phase, team_a, documents=docs, run_name="primary")
    b = make.run(phase, team_b, {"light": 0.31, "ami": 0.42}, run_name="bravo-run")
    return locals()


def url(world, name="board", **kwargs):
    return reverse(
        f"leaderboard:{name}",
        kwargs={"competition": "codi", "task": "identity", "phase": world["phase"].slug, **kwargs},
    )


def hide(phase, own=False):
    phase.leaderboard_visibility = "hidden"
    phase.show_own_scores_when_hidden = own
    phase.save()


def test_board_page_shows_teams_ranks_and_a_chart(client, world):
    response = client.get(url(world))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.index("Alpha") < html.index("Bravo")
    assert "80.00" in html  # Alpha light: 24/30; ami: 11/20 = 55.00; average 67.50
    assert "67.50" in html and "36.50" in html
    assert 'data-value="0.675"' in html
    board = response.context["board"]
    assert [r.rank for r in board.rows] == [1, 2]


def test_board_sorts_by_any_column_and_rejects_unknown_ones(client, world):
    response = client.get(url(world), {"sort": "light.f1", "order": "asc"})
    assert [r.entry.team for r in response.context["board"].rows] == ["Bravo", "Alpha"]
    bad = client.get(url(world), {"sort": "nope.f1"})
    assert bad.status_code == 400 and "unknown sort column" in bad.content.decode()


def test_board_csv_and_json_exports_match_the_page(client, world):
    csv = client.get(url(world, "board_csv"))
    assert csv["Content-Type"].startswith("text/csv")
    frame = pd.read_csv(io.StringIO(csv.content.decode()))
    assert list(frame["team"]) == ["Alpha", "Bravo"]
    assert frame.loc[0, "avg.f1"] == pytest.approx(0.675)
    assert frame.loc[1, "light.recall"] == pytest.approx(0.31)
    data = json.loads(client.get(url(world, "board_json"), {"runs": "all"}).content)
    assert data["board"]["runs"] == "all" and data["board"]["metric"] == "conll"
    assert [r["team"] for r in data["rows"]] == ["Alpha", "Bravo"]
    assert data["rows"][0]["rank"] == 1


@pytest.mark.parametrize("name", ["board", "board_csv", "board_json"])
def test_hidden_scores_do_not_leak_through_page_or_exports(client, world, name):
    hide(world["phase"])
    for user in (None, world["alice"]):
        if user:
            client.force_login(user)
        body = client.get(url(world, name), {"runs": "all"}).content.decode()
        assert "Alpha" not in body and "Bravo" not in body
        assert "0.675" not in body and "67.50" not in body and "0.31" not in body


def test_own_scores_when_hidden_show_only_ones_own_team(client, world):
    hide(world["phase"], own=True)
    client.force_login(world["alice"])
    body = client.get(url(world, "board_json")).content.decode()
    assert "Alpha" in body and "Bravo" not in body and "0.31" not in body
    assert json.loads(body)["rows"][0]["rank"] is None


def test_analysis_page_has_metrics_documents_and_svg_bars(client, world):
    a = world["a"]
    client.force_login(world["alice"])
    response = client.get(reverse("leaderboard:analysis", args=[a.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="documents"' in html and "light_doc2" in html
    assert html.count("<rect") >= 3
    assert 'data-value="0.8"' in html  # LIGHT bar: 24/30
    docs = pd.read_csv(
        io.StringIO(client.get(reverse("leaderboard:documents_csv", args=[a.pk])).content.decode())
    )
    assert len(docs) == 5 and set(docs["subcorpus"]) == {"light", "ami"}
    assert docs["f1"].max() == pytest.approx(0.9)


def test_analysis_and_document_exports_404_when_hidden(client, world):
    hide(world["phase"])
    client.force_login(world["bob"])
    a = world["a"]
    for name in ("analysis", "documents_csv", "documents_json"):
        assert client.get(reverse(f"leaderboard:{name}", args=[a.pk])).status_code == 404
    client.force_login(world["alice"])  # own team, but the phase does not show own scores
    assert client.get(reverse("leaderboard:analysis", args=[a.pk])).status_code == 404


def test_compare_page_shows_p_values_and_samples(client, world, make):
    other = make.run(
        world["phase"], world["team_b"], documents={"light": [(1, 10)] * 3, "ami": [(1, 10)] * 2}
    )
    response = client.get(
        reverse("leaderboard:compare"),
        {"a": world["a"].pk, "b": other.pk, "samples": 500, "seed": 7},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "500 samples" in html and "seed 7" in html
    results = {r.subcorpus: r.comparison for r in response.context["results"]}
    assert results["avg"].samples == 500 and results["avg"].score_a > results["avg"].score_b
    documents = response.context["documents"]
    assert len(documents) == 5 and documents[0]["document"] == "light_doc2"  # 0.9 - 0.1
    assert documents[0]["difference"] == pytest.approx(0.8)
    hide(world["phase"])
    assert (
        client.get(reverse("leaderboard:compare"), {"a": world["a"].pk, "b": other.pk}).status_code
        == 404
    )
    assert client.get(reverse("leaderboard:compare"), {"a": "x"}).status_code == 400


def test_organizer_pages_are_404_for_everyone_else(client, world):
    a = world["a"]
    for user in (None, world["alice"]):
        if user:
            client.force_login(user)
        assert client.get(url(world, "organize_phase")).status_code == 404
        assert client.get(url(world, "final_submissions")).status_code == 404
        assert client.post(url(world, "organize_phase"), {"action": "freeze"}).status_code == 404
        assert (
            client.post(
                reverse("leaderboard:organize_submission", args=[a.pk]), {"action": "disqualify"}
            ).status_code
            == 404
        )
    assert not BoardSnapshot.objects.exists()
    a.refresh_from_db()
    assert not a.disqualified


def test_organizer_freezes_reveals_hides_and_disqualifies(client, world, make):
    client.force_login(world["organizer"])
    phase = world["phase"]
    assert client.get(url(world, "organize_phase")).status_code == 200
    client.post(url(world, "organize_phase"), {"action": "freeze", "note": "official"})
    snapshot = BoardSnapshot.objects.get(phase=phase, active=True)
    assert snapshot.note == "official"
    make.run(phase, world["team_b"], {"light": 0.99, "ami": 0.99})
    client.logout()
    page = client.get(url(world)).content.decode()
    assert "Official results, frozen" in page and "99.00" not in page
    client.force_login(world["organizer"])
    assert "99.00" in client.get(url(world), {"live": "1"}).content.decode()

    client.post(url(world, "organize_phase"), {"action": "hide"})
    phase.refresh_from_db()
    assert phase.leaderboard_visibility == "hidden" and phase.revealed_at is None
    client.post(url(world, "organize_phase"), {"action": "reveal"})
    phase.refresh_from_db()
    assert phase.revealed_at is not None

    client.post(
        reverse("leaderboard:organize_submission", args=[world["a"].pk]),
        {"action": "disqualify", "reason": "used test data"},
    )
    world["a"].refresh_from_db()
    assert world["a"].disqualified
    organizer_view = client.get(url(world), {"live": "1"}).content.decode()
    assert "lb-disqualified" in organizer_view
    client.logout()
    client.post(url(world, "organize_phase"), {"action": "unfreeze"})  # 404, ignored
    assert BoardSnapshot.objects.filter(active=True).exists()


def test_organizer_rescore_keeps_history_and_queues(
    client, world, django_capture_on_commit_callbacks
):
    client.force_login(world["organizer"])
    with django_capture_on_commit_callbacks() as callbacks:
        client.post(
            reverse("leaderboard:organize_submission", args=[world["a"].pk]), {"action": "rescore"}
        )
    world["a"].refresh_from_db()
    assert world["a"].status == "queued" and len(callbacks) == 1
    assert world["a"].runs.filter(is_current=True).count() == 1  # old scores stay until done
    with django_capture_on_commit_callbacks() as callbacks:
        client.post(url(world, "organize_phase"), {"action": "rescore"})
    assert len(callbacks) == 1  # b (a is queued already)


def test_final_submissions_zip_has_responses_and_never_keys(client, world, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    settings.PRIVATE_ROOT = tmp_path / "private"
    (tmp_path / "private" / "keys").mkdir(parents=True)
    (tmp_path / "private" / "keys" / "light.CONLLUA").write_text("GOLD KEY SECRET")
    for submission, text in ((world["a"], "alpha response"), (world["b"], "bravo response")):
        for sub in world["phase"].subcorpora.all():
            rel = f"submissions/{submission.pk}/{sub.slug}.conllua"
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text(f"{text} {sub.slug}")
            SubmissionFile.objects.create(
                submission=submission,
                subcorpus=sub,
                path=rel,
                original_name=f"{sub.slug}.conllua",
                size=10,
                sha256="0" * 64,
            )
    client.force_login(world["organizer"])
    response = client.get(url(world, "final_submissions"))
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    names = archive.namelist()
    assert "MANIFEST.csv" in names and "scores.csv" in names and len(names) == 6
    contents = b"".join(archive.read(n) for n in names)
    assert b"alpha response light" in contents and b"GOLD KEY" not in contents


def test_final_runs_zip_carries_every_final_runs_scores(client, world, make):
    """scores.csv: one line per final run × sub-corpus × metric of the task mode, the
    primary metric marked, values of the current scoring; a team's other runs are not in
    it, and only organizers get the zip."""
    import csv

    phase = world["phase"]
    make.run(phase, world["team_a"], {"light": 0.1, "ami": 0.1})  # worse: not final
    client.force_login(world["bob"])
    assert client.get(url(world, "final_submissions")).status_code == 404
    client.force_login(world["organizer"])
    response = client.get(url(world, "final_submissions"))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    rows = list(csv.DictReader(io.StringIO(archive.read("scores.csv").decode())))
    primary = [r for r in rows if r["primary"] == "yes"]
    assert {(r["submission_id"], r["subcorpus"]) for r in primary} == {
        (str(world["a"].pk), "light"),
        (str(world["a"].pk), "ami"),
        (str(world["b"].pk), "light"),
        (str(world["b"].pk), "ami"),
    }
    expected = {
        (s.submission_id, s.subcorpus.slug): s.f1
        for s in Score.objects.filter(
            submission__in=[world["a"], world["b"]],
            metric=phase.task.primary_metric,
            document="",
            mode="task",
            run__is_current=True,
        ).select_related("subcorpus")
    }
    for r in primary:
        assert float(r["f1"]) == pytest.approx(expected[(int(r["submission_id"]), r["subcorpus"])])
        assert r["metric"] == phase.task.primary_metric


def test_competition_overview_lists_phases_and_gap_table(client, world, make):
    task = world["task"]
    pred = make.phase(task, kind="test_predicted", slug="pred")
    gold = make.phase(task, kind="test_gold", slug="gold")
    make.run(pred, world["team_a"], {"light": 0.5, "ami": 0.5})
    make.run(gold, world["team_a"], {"light": 0.7, "ami": 0.7})
    html = client.get(reverse("leaderboard:competition", args=["codi"])).content.decode()
    assert "Predicted versus gold" in html and "-20.00" in html
    assert reverse("leaderboard:board", args=["codi", "identity", "pred"]) in html


def test_a_disqualified_run_is_404_for_other_participants_but_not_its_team(client, world):
    a = world["a"]
    a.disqualified = True
    a.save()
    client.force_login(world["bob"])
    assert client.get(reverse("leaderboard:analysis", args=[a.pk])).status_code == 404
    assert "Alpha" not in client.get(url(world, "board_csv"), {"runs": "all"}).content.decode()
    client.force_login(world["alice"])
    assert client.get(reverse("leaderboard:analysis", args=[a.pk])).status_code == 200


def test_a_hidden_gold_phase_shows_no_gold_numbers_in_the_gap_table(client, world, make):
    task = world["task"]
    pred = make.phase(task, kind="test_predicted", slug="pred")
    gold = make.phase(task, kind="test_gold", slug="gold", visibility="hidden")
    make.run(pred, world["team_a"], {"light": 0.5, "ami": 0.5})
    make.run(gold, world["team_a"], {"light": 0.77, "ami": 0.77})
    for page in (
        reverse("leaderboard:competition", args=["codi"]),
        reverse("leaderboard:board", args=["codi", "identity", "pred"]),
    ):
        html = client.get(page).content.decode()
        assert "50.00" in html and "77.00" not in html


def test_the_analysis_block_tag_renders_for_the_submission_page(rf, world):
    from django.contrib.auth.models import AnonymousUser
    from django.template import Context, Template

    request = rf.get("/")
    request.user = AnonymousUser()
    template = Template("{% load leaderboard_tags %}{% submission_analysis_block s %}")
    html = template.render(Context({"request": request, "s": world["a"]}))
    assert 'id="metrics"' in html and 'id="documents"' in html and "<rect" in html
    hide(world["phase"])
    assert 'id="metrics"' not in template.render(Context({"request": request, "s": world["a"]}))


def test_compare_with_one_run_offers_the_visible_runs_of_its_phase(client, world):
    response = client.get(reverse("leaderboard:compare"), {"a": world["a"].pk})
    assert response.status_code == 200
    assert [r.entry.submission_id for r in response.context["choices"]] == [world["b"].pk]
    assert f"b={world['b'].pk}" in response.content.decode()
    hide(world["phase"])
    assert client.get(reverse("leaderboard:compare"), {"a": world["a"].pk}).status_code == 404


def test_organizer_cancels_a_queued_submission(client, world, make):
    queued = make.run(world["phase"], world["team_b"], status="queued")
    client.force_login(world["organizer"])
    client.post(reverse("leaderboard:organize_submission", args=[queued.pk]), {"action": "cancel"})
    queued.refresh_from_db()
    assert queued.status == "cancelled"
    response = client.post(
        reverse("leaderboard:organize_submission", args=[world["a"].pk]),
        {"action": "cancel"},
        follow=True,
    )
    assert "needs" in response.content.decode()  # a scored run cannot be cancelled
    world["a"].refresh_from_db()
    assert world["a"].status == "scored"


def test_csv_exports_defuse_spreadsheet_formulas_in_team_names(client, world, make):
    evil = make.team(world["competition"], '=HYPERLINK("http://x")')
    make.run(world["phase"], evil, {"light": 0.1, "ami": 0.1}, run_name="+cmd")
    frame = pd.read_csv(io.StringIO(client.get(url(world, "board_csv")).content.decode()))
    assert '\'=HYPERLINK("http://x")' in list(frame["team"])
    assert "'+cmd" in list(frame["run_name"])
    assert not any(str(v).startswith(("=", "+")) for v in frame["team"])


def test_a_hidden_board_says_so(client, world):
    hide(world["phase"])
    html = client.get(url(world)).content.decode()
    assert "hidden until the organizers reveal it" in html


def test_final_runs_zip_has_one_run_per_team_and_track_under_its_own_file_names(
    client, world, make, settings, tmp_path
):
    """In a task with tracks a team's final run is chosen per track; the zip holds each
    such run's files as uploaded, under the names they were uploaded with."""
    import csv

    from competition.models import Track

    settings.MEDIA_ROOT = tmp_path
    phase = world["phase"]
    llm = Track.objects.create(task=world["task"], slug="llm", name="LLM", order=0)
    free = Track.objects.create(
        task=world["task"], slug="unconstrained", name="Unconstrained", order=1
    )
    world["a"].track = llm
    world["a"].save()
    world["b"].track = llm
    world["b"].save()
    a_free = make.run(phase, world["team_a"], {"light": 0.2, "ami": 0.2}, track=free)
    make.run(phase, world["team_a"], {"light": 0.1, "ami": 0.1}, track=free)  # worse
    for submission in (world["a"], world["b"], a_free):
        for sub in phase.subcorpora.all():
            rel = f"submissions/{submission.pk}/{sub.slug}.conllua"
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text(f"# newdoc id = {submission.pk}-{sub.slug}\n")
            SubmissionFile.objects.create(
                submission=submission,
                subcorpus=sub,
                path=rel,
                original_name=f"en_{sub.slug}-corefud-test.conllu",
                size=10,
                sha256="0" * 64,
            )
    client.force_login(world["organizer"])
    response = client.get(url(world, "final_submissions"))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    manifest = list(csv.DictReader(io.StringIO(archive.read("MANIFEST.csv").decode())))
    runs = {(r["team"], r["track"], r["submission_id"]) for r in manifest}
    assert runs == {
        ("Alpha", "llm", str(world["a"].pk)),
        ("Bravo", "llm", str(world["b"].pk)),
        ("Alpha", "unconstrained", str(a_free.pk)),
    }
    member = f"alpha-unconstrained-{a_free.pk}/en_light-corefud-test.conllu"
    assert member in archive.namelist()
    assert archive.read(member).decode() == f"# newdoc id = {a_free.pk}-light\n"
    assert not [n for n in archive.namelist() if n.upper().endswith(".CONLLUA")]
    scores = list(csv.DictReader(io.StringIO(archive.read("scores.csv").decode())))
    assert {(r["submission_id"], r["track"]) for r in scores} == {
        (str(world["a"].pk), "llm"),
        (str(world["b"].pk), "llm"),
        (str(a_free.pk), "unconstrained"),
    }


def test_export_member_names_stay_inside_their_folder():
    from leaderboard.views_organize import member_name

    taken: set[str] = set()
    assert member_name("../../etc/passwd", "light", taken) == "passwd"
    assert member_name("C:\\x\\passwd", "ami", taken) == "ami-passwd"  # taken: prefixed
    assert member_name("..", "swbd", taken) == "swbd-response"
    assert member_name("a\x00b.conllu", "x", taken) == "ab.conllu"
