"""System cards on boards: the questions the organizers put on boards are columns of the page,
the API and the exports; ``card.<slug>=`` filters the rows and each kept row keeps its rank
on the whole board; a run the board does not show never shows its card; the final-runs zip
carries every final run's card."""

import csv
import io
import json
import zipfile

import pandas as pd
import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from competition.models import SystemCardAnswer
from competition.services import cards


@pytest.fixture
def world(make):
    organizer = make.user("org")
    competition = make.competition(slug="codi", organizers=[organizer])
    task = make.task(competition, slug="identity")
    phase = make.phase(task, slug="dev")
    teams = {name: make.team(competition, name) for name in ("Alpha", "Bravo", "Charlie", "Delta")}
    runs = {
        "Alpha": make.run(phase, teams["Alpha"], {"light": 0.9, "ami": 0.8}, run_name="a1"),
        "Bravo": make.run(phase, teams["Bravo"], {"light": 0.7, "ami": 0.7}, run_name="b1"),
        "Charlie": make.run(phase, teams["Charlie"], {"light": 0.6, "ami": 0.5}, run_name="c1"),
        "Delta": make.run(phase, teams["Delta"], {"light": 0.4, "ami": 0.3}, run_name="d1"),
    }
    cards.card_defaults_set(competition=competition, required=False)
    for team, (llm, model, adaptation) in {
        "Alpha": ("yes", "Llama 3.1 8B", "fine-tuned"),
        "Bravo": ("no", "xlm-roberta-large", "fine-tuned"),
        "Charlie": ("yes", "=HYPERLINK(1)", "zero-shot"),
    }.items():
        cards.card_answers_save(
            submission=runs[team],
            answers={
                "llm": llm,
                "base-model": model,
                "adaptation": adaptation,
                "weights-licence": "secret-ish",  # not on boards
            },
        )
    return {"organizer": organizer, "phase": phase, "runs": runs, "competition": competition}


def url(world, name="board"):
    return reverse(
        f"leaderboard:{name}",
        kwargs={"competition": "codi", "task": "identity", "phase": world["phase"].slug},
    )


def test_the_board_shows_the_on_board_questions_as_columns(client, world):
    html = client.get(url(world)).content.decode()
    assert "Is the system LLM-based?" in html and "How was the model adapted" in html
    assert "Llama 3.1 8B" in html and "xlm-roberta-large" in html
    assert "Licence of the model weights" not in html and "secret-ish" not in html
    assert 'name="card.llm"' in html and 'name="card.adaptation"' in html
    assert 'id="card-filter-note"' not in html


def test_a_filter_keeps_the_ranks_of_the_whole_board(client, world):
    response = client.get(url(world), {"card.llm": "Yes"})
    board = response.context["board"]
    assert [(r.entry.team, r.rank) for r in board.rows] == [("Alpha", 1), ("Charlie", 3)]
    html = response.content.decode()
    assert 'id="card-filter-note"' in html and "2 of 4 rows" in html
    assert "Ranks (#) are those on the whole board" in html
    assert '<option value="yes" selected>' in html
    # two filters at once; a text question by its exact answer, in any case
    board = client.get(
        url(world), {"card.adaptation": "fine-tuned", "card.base-model": "XLM-RoBERTa-large"}
    ).context["board"]
    assert [(r.entry.team, r.rank) for r in board.rows] == [("Bravo", 2)]
    bad = client.get(url(world), {"card.weights-licence": "secret-ish"})
    assert bad.status_code == 400
    assert "unknown system-card question &#x27;weights-licence&#x27;" in bad.content.decode()


def test_the_api_and_the_exports_carry_the_answers_and_the_filter(client, world):
    body = APIClient().get(reverse("api-leaderboard", args=[world["phase"].pk]), {"card.llm": "no"})
    assert body.status_code == 200, body.content
    data = body.json()
    assert data["board"]["card_filter"] == {"llm": "no"}
    assert data["board"]["rows_unfiltered"] == 4
    assert [q["slug"] for q in data["board"]["card_questions"]] == [
        "llm",
        "base-model",
        "adaptation",
    ]
    assert [(r["team"], r["rank"], r["card"]["llm"]) for r in data["rows"]] == [("Bravo", 2, "no")]

    frame = pd.read_csv(io.StringIO(client.get(url(world, "board_csv")).content.decode()))
    assert list(frame["team"]) == ["Alpha", "Bravo", "Charlie", "Delta"]
    assert list(frame["card.llm"].fillna("")) == ["yes", "no", "yes", ""]
    assert frame.loc[2, "card.base-model"] == "'=HYPERLINK(1)"  # no formula in a spreadsheet
    assert "card.weights-licence" not in frame.columns
    exported = json.loads(client.get(url(world, "board_json"), {"card.llm": "yes"}).content)
    assert [(r["team"], r["rank"], r["card.adaptation"]) for r in exported["rows"]] == [
        ("Alpha", 1, "fine-tuned"),
        ("Charlie", 3, "zero-shot"),
    ]


def test_a_hidden_or_disqualified_runs_card_never_shows(client, world, make):
    world["runs"]["Bravo"].disqualified = True
    world["runs"]["Bravo"].save()
    for name in ("board", "board_csv", "board_json"):
        body = client.get(url(world, name)).content.decode()
        assert "xlm-roberta-large" not in body and "Llama 3.1 8B" in body
    phase = world["phase"]
    phase.leaderboard_visibility = "hidden"
    phase.save()
    for name in ("board", "board_csv", "board_json"):
        body = client.get(url(world, name), {"runs": "all"}).content.decode()
        assert "Llama 3.1 8B" not in body and "HYPERLINK" not in body


def test_a_changed_answer_shows_on_the_kept_public_board(client, world):
    assert "Llama 3.1 8B" in client.get(url(world)).content.decode()
    SystemCardAnswer.objects.filter(value="Llama 3.1 8B").update(value="Qwen2.5 7B")
    html = client.get(url(world)).content.decode()
    assert "Qwen2.5 7B" in html and "Llama 3.1 8B" not in html


def test_the_final_runs_zip_carries_each_runs_card(client, world):
    client.force_login(world["organizer"])
    response = client.get(url(world, "final_submissions"))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    rows = list(csv.DictReader(io.StringIO(archive.read("system-cards.csv").decode())))
    by_team = {r["team"]: r for r in rows}
    assert set(by_team) == {"Alpha", "Bravo", "Charlie", "Delta"}
    assert by_team["Alpha"]["weights-licence"] == "secret-ish"  # organizers see every answer
    assert by_team["Alpha"]["submission_id"] == str(world["runs"]["Alpha"].pk)
    assert by_team["Charlie"]["base-model"] == "'=HYPERLINK(1)"
    assert by_team["Delta"]["llm"] == ""
    assert list(rows[0]) == [
        "team",
        "track",
        "submission_id",
        "run_name",
        *(q["slug"] for q in cards.CRAC_QUESTIONS),
    ]
