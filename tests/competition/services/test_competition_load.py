"""competition_load and manage.py load_competition: YAML definitions, idempotent."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from competition import services
from competition.errors import DefinitionError
from competition.models import Competition, Phase, SubCorpus, Submission, Task

pytestmark = pytest.mark.django_db

DEFINITION = """
slug: codi-mini
title: CODI-CRAC mini
description: |
  A small competition.
organizers: [org]
tasks:
  - slug: identity
    kind: identity
    title: "Task 1"
    phases:
      - slug: dev
        kind: development
        title: Development
        start: 2021-04-01T00:00:00Z
        daily_limit: 3
        subcorpora:
          - name: LIGHT
            key: data/light.CONLLUA
          - name: SWITCHBOARD
            available: false
      - slug: test-gold
        kind: test_gold
        title: Test (gold mentions)
        start: 2021-06-01T00:00:00Z
        end: 2021-06-10T23:59:59Z
        leaderboard: hidden
        counts: chosen
        subcorpora:
          - name: LIGHT
            key: data/light.CONLLUA
  - slug: bridging
    kind: bridging
    title: "Task 2"
    phases:
      - slug: dev
        kind: development
        title: Development
        start: 2021-04-01T00:00:00Z
        subcorpora:
          - name: LIGHT
            key: data/light.CONLLUA
baselines:
  - name: Heuristic
    description: A test baseline.
    phase: identity/test-gold
    files:
      LIGHT: runs/light.CONLLUA
"""


@pytest.fixture
def definition(tmp_path, texts) -> Path:
    get_user_model().objects.create_user("org")
    (tmp_path / "data").mkdir()
    (tmp_path / "runs").mkdir()
    (tmp_path / "data" / "light.CONLLUA").write_text(texts.key("light"), encoding="utf-8")
    (tmp_path / "runs" / "light.CONLLUA").write_text(texts.response("light"),
                                                     encoding="utf-8")
    path = tmp_path / "mini.yaml"
    path.write_text(DEFINITION, encoding="utf-8")
    return path


def test_it_loads_tasks_phases_and_sub_corpora(definition, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        competition = services.competition_load(path=definition)
    assert competition.slug == "codi-mini"
    assert [o.username for o in competition.organizers.all()] == ["org"]
    identity, bridging = competition.tasks.order_by("order")
    assert (identity.scorer_options, identity.primary_metric) == ([], "conll")
    assert (bridging.scorer_options, bridging.primary_metric) == (["keep_bridging"],
                                                                 "bridging_entity")
    gold = Phase.objects.get(task=identity, slug="test-gold")
    assert gold.leaderboard_visibility == "hidden" and gold.counts == "chosen"
    assert gold.end is not None and gold.end.isoformat().startswith("2021-06-10T23:59:59")
    dev = Phase.objects.get(task=identity, slug="dev")
    assert (dev.daily_limit, dev.total_limit, dev.end) == (3, 100, None)
    light, switchboard = dev.subcorpora.order_by("order")
    assert not switchboard.available and switchboard.key_file == ""
    assert light.documents == [{"name": "light_1", "tokens": 8}, {"name": "light_2", "tokens": 6}]


def test_gold_keys_are_copied_once_into_the_private_root(definition):
    services.competition_load(path=definition, with_baselines=False)
    source = (definition.parent / "data" / "light.CONLLUA").read_bytes()
    sha = hashlib.sha256(source).hexdigest()
    keys = SubCorpus.objects.filter(available=True)
    assert {sc.key_file for sc in keys} == {f"keys/{sha}.conllua"}
    assert {sc.sha256 for sc in keys} == {sha}
    assert (Path(settings.PRIVATE_ROOT) / "keys" / f"{sha}.conllua").read_bytes() == source
    assert not str(keys[0].key_file).startswith(str(settings.MEDIA_ROOT))


def test_loading_twice_updates_and_never_duplicates(definition, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    definition.write_text(DEFINITION.replace("title: CODI-CRAC mini", "title: Renamed"),
                          encoding="utf-8")
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    assert Competition.objects.get().title == "Renamed"
    assert (Task.objects.count(), Phase.objects.count(), SubCorpus.objects.count()) == (2, 3, 4)
    assert Submission.objects.filter(is_baseline=True).count() == 1


def test_baselines_are_submitted_by_the_organizer_team_and_scored(definition,
                                                                  django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    baseline = Submission.objects.get(is_baseline=True)
    assert baseline.team.is_organizer_team and baseline.run_name == "Heuristic"
    assert baseline.status == Submission.Status.SCORED
    assert baseline.scores.filter(metric="conll", document="", mode="task").count() == 1


@pytest.mark.parametrize("change, message", [
    (("kind: identity", "kind: coreference"), "'kind' is 'coreference'"),
    (("start: 2021-04-01T00:00:00Z\n        daily_limit", "start: 2021-04-01\n        daily_limit"),
     "time zone"),
    (("key: data/light.CONLLUA\n          - name: SWITCHBOARD",
      "key: data/missing.CONLLUA\n          - name: SWITCHBOARD"), "key file data/missing.CONLLUA"),
    (("organizers: [org]", "organizers: [nobody]"), "organizers nobody do not exist"),
    (("daily_limit: 3", "daily_limit: -1"), "'daily_limit' must be a whole number"),
    (("phase: identity/test-gold", "phase: identity/nope"), "phase 'identity/nope'"),
])
def test_it_explains_what_is_wrong_in_a_definition(definition, change, message):
    text = DEFINITION.replace(*change)
    assert text != DEFINITION
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError) as caught:
        services.competition_load(path=definition)
    assert message in caught.value.message
    assert str(definition) in caught.value.message


def test_a_refused_baseline_says_why(definition, texts):
    (definition.parent / "runs" / "light.CONLLUA").write_text(texts.key("ami"),
                                                              encoding="utf-8")
    with pytest.raises(DefinitionError) as caught:
        services.competition_load(path=definition)
    assert "baseline 'Heuristic' was refused" in caught.value.message
    assert "light_1" in caught.value.message


def test_the_command_loads_and_reports(definition, capsys, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_competition", str(definition))
    out = capsys.readouterr().out
    assert "Loaded codi-mini: 2 tasks, 3 phases, 1 baseline runs" in out


def test_the_command_fails_cleanly_on_a_bad_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("slug: [unclosed", encoding="utf-8")
    with pytest.raises(CommandError, match="not valid YAML"):
        call_command("load_competition", str(bad))
