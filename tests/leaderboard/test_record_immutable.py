"""After a freeze nothing a participant or an organizer does changes the official record by
a byte: a CRAC-2026-shaped phase (two tracks, system cards, published averages, every mode
with its metrics, the empty-node measures included) is frozen, then cards are edited (API
and service), a new run arrives, a run is re-scored, a key is replaced, the definition is
reloaded with other rules, tracks and procedure, a team is renamed, a run disqualified and
the competition cloned. The frozen page, the frozen JSON, the results package (CSV, LaTeX)
and the final-runs export stay byte for byte what they were, and agree number for number."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import QueryDict
from django.urls import reverse
from rest_framework.test import APIClient

from competition.definition import apply
from competition.definition.current import competition_spec
from competition.definition.editions import competition_clone
from competition.definition.keys import key_store
from competition.definition.spec import KeyFile
from competition.models import PublishedAverage, ScoringRun, SubCorpus, Team, Track
from competition.services import cards
from competition.services.boards import board_entries_write
from leaderboard.board_views import board_page_content
from leaderboard.services import board_freeze
from scoring.vocabulary import EMPTY_NODE_MEASURES

PROCEDURE = "crac-2026"
QUERIES = ("", "track=open", "card.llm=yes", "mode=empty-nodes&metric=ARC", "runs=all")


def _value(base: float):
    """A distinct number per mode and metric, so that a table mixing them up would show."""
    return lambda mode, metric: round(base - 0.001 * (len(mode) + len(metric)), 6)


@pytest.fixture
def world(make):
    organizer = make.user("org")
    member = make.user("alice")
    competition = make.competition(slug="crac26", organizers=[organizer])
    task = make.task(competition, slug="coref", kind="corefud")
    task.procedure = PROCEDURE
    task.save()
    llm = Track.objects.create(task=task, slug="llm", name="LLM", order=0)
    Track.objects.create(task=task, slug="open", name="Open", order=1)
    phase = make.phase(task, kind="test_predicted", slug="test")
    _store_keys(phase)
    cards.card_defaults_set(competition=competition, required=False)
    teams = {
        "Alpha": make.team(competition, "Alpha", members=[member]),
        "Bravo": make.team(competition, "Bravo"),
        "Charlie": make.team(competition, "Charlie"),
    }
    open_track = Track.objects.get(task=task, slug="open")
    runs = {
        "Alpha": make.run_every_mode(
            phase,
            teams["Alpha"],
            {"light": _value(0.8), "ami": _value(0.7)},
            procedure=PROCEDURE,
            track=llm,
        ),
        "Bravo": make.run_every_mode(
            phase, teams["Bravo"], {"light": _value(0.6)}, procedure=PROCEDURE, track=llm
        ),
        "Charlie": make.run_every_mode(
            phase,
            teams["Charlie"],
            {"light": _value(0.5), "ami": _value(0.55)},
            procedure=PROCEDURE,
            track=open_track,
        ),
    }
    for name, llm_answer in (("Alpha", "yes"), ("Bravo", "no"), ("Charlie", "yes")):
        cards.card_answers_save(
            submission=runs[name],
            answers={"llm": llm_answer, "base-model": f"{name} model", "adaptation": "fine-tuned"},
        )
    PublishedAverage.objects.create(
        phase=phase, track=llm, metric="conll", team="Paper", average=0.7, source="A paper"
    )
    board_entries_write(submission_ids=[r.pk for r in runs.values()])
    return {
        "organizer": organizer,
        "member": member,
        "competition": competition,
        "task": task,
        "phase": phase,
        "runs": runs,
        "teams": teams,
    }


KEY = Path(__file__).parents[1] / "data/repros/compact-same-span-entity-order/key.conllu"


def _store_keys(phase) -> None:
    """Real CorefUD keys behind the phase's datasets, so that a definition reload reads them."""
    for sub in phase.subcorpora.all():
        stored = key_store(key=KeyFile(path=KEY, label=f"{sub.slug}.conllu"), task=phase.task)
        SubCorpus.objects.filter(pk=sub.pk).update(
            key_file=stored.key_file,
            sha256=stored.sha256,
            documents=list(stored.documents),
            content_sha256=stored.content_sha256,
        )


def _strip(html: str) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)


def _zip(content: bytes) -> dict[str, bytes]:
    archive = zipfile.ZipFile(io.BytesIO(content))
    return {name: archive.read(name) for name in sorted(archive.namelist())}


def artifacts(world, client, snapshot) -> dict[str, object]:
    competition, task, phase = world["competition"], world["task"], world["phase"]
    args = [competition.slug, task.slug, phase.slug]
    found: dict[str, object] = {}
    for text in QUERIES:
        content, error = board_page_content(
            phase=phase, viewer=AnonymousUser(), query=QueryDict(text)
        )
        assert not error, text
        found[f"board?{text}"] = content
    client.logout()
    found["page"] = _strip(client.get(reverse("leaderboard:board", args=args)).content.decode())
    found["json"] = client.get(
        reverse("leaderboard:frozen_board_json", args=[*args, snapshot.pk])
    ).content
    client.force_login(world["organizer"])
    package = client.get(reverse("leaderboard:results_package", args=args))
    assert package.status_code == 200
    found["package"] = _zip(package.content)
    final = client.get(reverse("leaderboard:final_submissions", args=args))
    assert final.status_code == 200
    found["final"] = _zip(b"".join(final.streaming_content))
    client.logout()
    return found


def every_later_action(world, client, make):
    competition, task, phase, runs = (
        world["competition"],
        world["task"],
        world["phase"],
        world["runs"],
    )
    alpha = runs["Alpha"]
    # a card edited through the API and through the service the run's page calls (a lock
    # may refuse them: the record must not move either way)
    api = APIClient()
    api.force_authenticate(world["member"])
    api.put(
        f"/api/submissions/{alpha.pk}/card/",
        {"answers": {"llm": "no", "base-model": "changed"}},
        format="json",
    )
    try:
        cards.card_answers_save(submission=runs["Charlie"], answers={"llm": "no"})
    except cards.CardError:
        pass
    # a new run, better than everyone
    late = make.run_every_mode(
        phase,
        make.team(competition, "Late"),
        {"light": 0.99, "ami": 0.99},
        procedure=PROCEDURE,
        track=Track.objects.get(task=task, slug="llm"),
    )
    # a run re-scored with other numbers
    ScoringRun.objects.filter(submission=alpha).update(is_current=False)
    rescored = ScoringRun.objects.create(
        submission=alpha, scorer_version="test-2", procedure=PROCEDURE, keys={"1": "f" * 64}
    )
    make.scores_every_mode(rescored, {"light": 0.1, "ami": 0.1}, procedure=PROCEDURE)
    board_entries_write(submission_ids=[alpha.pk, late.pk])
    # the definition reloaded with other rules, a renamed track and another procedure
    spec = competition_spec(competition=competition)
    task_spec = spec.tasks[0]
    assert task_spec.phases is not None and task_spec.tracks is not None
    phases = tuple(replace(p, counts="latest", missing="zero") for p in task_spec.phases)
    tracks = tuple(replace(t, name=f"{t.name} (renamed)") for t in task_spec.tracks)
    spec = replace(
        spec,
        tasks=(
            replace(
                task_spec,
                procedure="crac-2025",
                scorer_options=None,
                phases=phases,
                tracks=tracks,
            ),
        ),
    )
    apply.competition_apply(spec=spec, rescore=False, with_baselines=False)
    # a key replaced
    SubCorpus.objects.filter(phase=phase, slug="ami").update(
        sha256="f" * 64, content_sha256="e" * 64
    )
    # a card question reworded, a team renamed, a run disqualified, a published average added
    competition.card_questions.filter(slug="llm").update(text="Reworded?")
    Team.objects.filter(pk=world["teams"]["Bravo"].pk).update(name="Bravo Renamed")
    runs["Charlie"].disqualified = True
    runs["Charlie"].save()
    PublishedAverage.objects.create(
        phase=phase, metric="conll", team="Later paper", average=0.9, source="Another"
    )
    # the competition cloned as next year's edition
    competition_clone(
        source=competition, user=world["organizer"], slug="crac27", title="Next", days=365
    )


def test_nothing_after_the_freeze_moves_the_record(world, client, make):
    snapshot = board_freeze(phase=world["phase"], user=world["organizer"], note="official")
    before = artifacts(world, client, snapshot)
    every_later_action(world, client, make)
    world["phase"].refresh_from_db()
    after = artifacts(world, client, snapshot)
    assert set(after) == set(before)
    for name in before:
        assert after[name] == before[name], name
    agree_number_for_number(before)


def _csv(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode())))


def agree_number_for_number(found: dict) -> None:
    document = json.loads(found["json"])
    package, final = found["package"], found["final"]
    frozen = {
        (e["submission_id"], n["mode"], n["metric"], n["subcorpus"]): n["f1"]
        for e in document["entries"]
        for n in e["scores"]
    }
    assert document["procedure"] == PROCEDURE
    assert {e["team"]: e["card"]["llm"] for e in document["entries"]} == {
        "Alpha": "yes",
        "Bravo": "no",
        "Charlie": "yes",
    }
    # the package: each track's coreference table and each empty-node measure's table
    checked = 0
    for track in ("llm", "open"):
        for stem in ("task", *(f"empty-nodes/{m}" for m in EMPTY_NODE_MEASURES)):
            mode, _, metric = stem.partition("/")
            for row in _csv(package[f"{track}/{stem}.csv"]):
                for slug in ("light", "ami"):
                    key = (int(row["submission_id"]), mode, metric or "conll", slug)
                    if row[slug] == "":
                        assert key not in frozen and slug in row["skipped"].split()
                        continue
                    assert float(row[slug]) == pytest.approx(frozen[key], abs=1e-12)
                    checked += 1
            tex = package[f"{track}/{stem}.tex"].decode()
            assert "\\label{" in tex and "\\caption{" in tex
    assert checked == 5 * (1 + len(EMPTY_NODE_MEASURES))  # 5 scored cells a table
    # the final-runs export: every measure of every counted run, the frozen numbers
    lines = _csv(final["scores.csv"])
    assert {line["mode"] for line in lines} >= {"task", "empty-nodes", "exact"}
    for line in lines:
        key = (int(line["submission_id"]), line["mode"], line["metric"], line["subcorpus"])
        assert float(line["f1"]) == pytest.approx(frozen[key], abs=1e-12)
    cards_csv = {r["team"]: r["llm"] for r in _csv(final["system-cards.csv"])}
    assert cards_csv == {"Alpha": "yes", "Bravo": "no", "Charlie": "yes"}
    # the page shows the same numbers, in percent
    page = found["board?"]
    alpha = next(e for e in document["entries"] if e["team"] == "Alpha")
    light = frozen[(alpha["submission_id"], "task", "conll", "light")]
    assert f"{100 * light:.2f}" in page
