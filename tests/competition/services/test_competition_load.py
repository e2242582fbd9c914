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
    (tmp_path / "runs" / "light.CONLLUA").write_text(texts.response("light"), encoding="utf-8")
    path = tmp_path / "mini.yaml"
    path.write_text(DEFINITION, encoding="utf-8")
    return path


def test_it_loads_tasks_phases_and_sub_corpora(definition, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        competition = services.competition_load(path=definition).competition
    assert competition.slug == "codi-mini"
    assert [o.username for o in competition.organizers.all()] == ["org"]
    identity, bridging = competition.tasks.order_by("order")
    assert (identity.scorer_options, identity.primary_metric) == ([], "conll")
    assert (bridging.scorer_options, bridging.primary_metric) == (
        ["keep_bridging"],
        "bridging_entity",
    )
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
    definition.write_text(
        DEFINITION.replace("title: CODI-CRAC mini", "title: Renamed"), encoding="utf-8"
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    assert Competition.objects.get().title == "Renamed"
    assert (Task.objects.count(), Phase.objects.count(), SubCorpus.objects.count()) == (2, 3, 4)
    assert Submission.objects.filter(is_baseline=True).count() == 1


def test_baselines_are_submitted_by_the_organizer_team_and_scored(
    definition, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    baseline = Submission.objects.get(is_baseline=True)
    assert baseline.team.is_organizer_team and baseline.run_name == "Heuristic"
    assert baseline.status == Submission.Status.SCORED
    assert baseline.scores.filter(metric="conll", document="", mode="task").count() == 1


@pytest.mark.parametrize(
    "change, message",
    [
        (("kind: identity", "kind: coreference"), "'kind' is 'coreference'"),
        (
            (
                "start: 2021-04-01T00:00:00Z\n        daily_limit",
                "start: 2021-04-01\n        daily_limit",
            ),
            "time zone",
        ),
        (
            (
                "key: data/light.CONLLUA\n          - name: SWITCHBOARD",
                "key: data/missing.CONLLUA\n          - name: SWITCHBOARD",
            ),
            "key file data/missing.CONLLUA",
        ),
        (("organizers: [org]", "organizers: [nobody]"), "organizers nobody do not exist"),
        (("daily_limit: 3", "daily_limit: -1"), "'daily_limit' must be a whole number"),
        (("phase: identity/test-gold", "phase: identity/nope"), "phase 'identity/nope'"),
    ],
)
def test_it_explains_what_is_wrong_in_a_definition(definition, change, message):
    text = DEFINITION.replace(*change)
    assert text != DEFINITION
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError) as caught:
        services.competition_load(path=definition)
    assert message in caught.value.message
    assert str(definition) in caught.value.message


def test_a_refused_baseline_says_why(definition, texts):
    (definition.parent / "runs" / "light.CONLLUA").write_text(texts.key("ami"), encoding="utf-8")
    with pytest.raises(DefinitionError) as caught:
        services.competition_load(path=definition)
    assert "baseline 'Heuristic' was refused" in caught.value.message
    assert "light_1" in caught.value.message


def test_the_command_loads_and_reports(definition, capsys, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_competition", str(definition))
    out = capsys.readouterr().out
    assert "Loaded codi-mini: 2 tasks, 3 phases, 1 baseline run (" in out


def test_the_command_fails_cleanly_on_a_bad_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("slug: [unclosed", encoding="utf-8")
    with pytest.raises(CommandError, match="not valid YAML"):
        call_command("load_competition", str(bad))


# --- reloading a changed file -------------------------------------------------------------

WITHOUT_BRIDGING = (
    DEFINITION[: DEFINITION.index("  - slug: bridging")]
    + DEFINITION[DEFINITION.index("baselines:") :]
)


def conll_f1(submission: Submission) -> float:
    return submission.scores.get(
        run__is_current=True, subcorpus__slug="light", mode="task", metric="conll", document=""
    ).f1


def test_what_the_file_no_longer_lists_is_removed_when_nothing_was_submitted(definition):
    services.competition_load(path=definition, with_baselines=False)
    text = WITHOUT_BRIDGING.replace(
        "          - name: SWITCHBOARD\n            available: false\n", ""
    )
    definition.write_text(text, encoding="utf-8")
    load = services.competition_load(path=definition, with_baselines=False)
    assert load.removed == ("bridging", "identity/dev/SWITCHBOARD")
    assert list(Task.objects.values_list("slug", flat=True)) == ["identity"]
    assert Phase.objects.count() == 2
    assert not SubCorpus.objects.filter(name="SWITCHBOARD").exists()
    again = services.competition_load(path=definition, with_baselines=False)
    assert again.removed == () and again.changed_phases == ()


def test_removing_a_phase_that_holds_submissions_is_refused_and_changes_nothing(
    definition, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    start = DEFINITION.index("      - slug: test-gold")
    text = DEFINITION[:start] + DEFINITION[DEFINITION.index("  - slug: bridging") :]
    text = text.replace("phase: identity/test-gold", "phase: identity/dev")
    text = text.replace("title: CODI-CRAC mini", "title: Renamed")
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError) as caught:
        services.competition_load(path=definition)
    message = caught.value.message
    assert "no longer lists phase identity/test-gold (1 submissions)" in message
    assert "delete them in the admin" in message
    assert Competition.objects.get().title == "CODI-CRAC mini"
    assert Phase.objects.filter(slug="test-gold").exists()
    assert Submission.objects.get(is_baseline=True).status == Submission.Status.SCORED


def test_a_sub_corpus_with_submitted_files_is_kept_with_its_scores(
    definition, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    test_gold = DEFINITION.index("      - slug: test-gold")
    text = DEFINITION[:test_gold] + DEFINITION[test_gold:].replace(
        "          - name: LIGHT\n            key: data/light.CONLLUA\n",
        "          - name: AMI\n            key: data/light.CONLLUA\n",
        1,
    )
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(
        DefinitionError,
        match=r"sub-corpus identity/test-gold/LIGHT "
        r"\(1 submissions\)",
    ):
        services.competition_load(path=definition)
    assert not SubCorpus.objects.filter(name="AMI").exists()


def test_a_corrected_gold_key_re_scores_its_phases(
    definition, texts, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    baseline = Submission.objects.get(is_baseline=True)
    before = conll_f1(baseline)
    assert before < 1
    # The correction makes the baseline's one "error" right.
    (definition.parent / "data" / "light.CONLLUA").write_text(
        texts.response("light"), encoding="utf-8"
    )
    with django_capture_on_commit_callbacks(execute=True):
        load = services.competition_load(path=definition)
    assert sorted(f"{p.task.slug}/{p.slug}" for p in load.changed_phases) == [
        "bridging/dev",
        "identity/dev",
        "identity/test-gold",
    ]
    assert [s.pk for s in load.rescored] == [baseline.pk]
    baseline.refresh_from_db()
    assert baseline.status == Submission.Status.SCORED
    assert conll_f1(baseline) == 1.0
    assert baseline.runs.count() == 2 and baseline.runs.filter(is_current=True).count() == 1
    unchanged = services.competition_load(path=definition)
    assert unchanged.changed_phases == () and unchanged.rescored == ()


def test_changed_scorer_options_re_score_the_task_s_phases(
    definition, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    text = DEFINITION.replace(
        "    kind: identity\n", "    kind: identity\n    scorer_options: [remove_singletons]\n"
    )
    definition.write_text(text, encoding="utf-8")
    with django_capture_on_commit_callbacks(execute=True):
        load = services.competition_load(path=definition)
    assert sorted(p.slug for p in load.changed_phases) == ["dev", "test-gold"]
    assert len(load.rescored) == 1
    run = Submission.objects.get(is_baseline=True).runs.get(is_current=True)
    assert run.options["task"][0] == "remove_singletons"


def test_the_command_can_leave_re_scoring_to_the_organizer(
    definition, texts, capsys, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_competition", str(definition))
    baseline = Submission.objects.get(is_baseline=True)
    before = conll_f1(baseline)
    (definition.parent / "data" / "light.CONLLUA").write_text(
        texts.response("light"), encoding="utf-8"
    )
    capsys.readouterr()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_competition", str(definition), "--no-rescore")
    out = capsys.readouterr().out
    assert "Gold keys or scorer options of identity/test-gold changed" in out
    assert "until it is re-scored" in out
    assert conll_f1(baseline) == before and baseline.runs.count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_competition", str(definition))
    assert "changed" not in capsys.readouterr().out  # the key is recorded: nothing changed


def test_a_slug_used_twice_is_refused(definition):
    text = DEFINITION.replace(
        "  - slug: bridging\n    kind: bridging", "  - slug: identity\n    kind: bridging"
    )
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError, match="task slug 'identity' is used twice"):
        services.competition_load(path=definition)


def test_the_organizer_page_marks_runs_scored_against_an_earlier_key(
    definition, texts, client, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    from competition.selectors import submissions_scored_on_old_input

    with django_capture_on_commit_callbacks(execute=True):
        services.competition_load(path=definition)
    baseline = Submission.objects.get(is_baseline=True)
    phase = baseline.phase
    page = reverse(
        "leaderboard:organize_phase",
        kwargs={"competition": "codi-mini", "task": "identity", "phase": "test-gold"},
    )
    client.force_login(get_user_model().objects.get(username="org"))
    assert submissions_scored_on_old_input(phase=phase) == set()
    assert "earlier key" not in client.get(page).content.decode()

    (definition.parent / "data" / "light.CONLLUA").write_text(
        texts.response("light"), encoding="utf-8"
    )
    services.competition_load(path=definition, rescore=False)
    assert submissions_scored_on_old_input(phase=phase) == {baseline.pk}
    html = client.get(page).content.decode()
    assert "1 scored submission</strong> was scored against a gold key" in html
    assert "earlier key" in html

    with django_capture_on_commit_callbacks(execute=True):
        client.post(page, {"action": "rescore"})
    assert submissions_scored_on_old_input(phase=phase) == set()
    assert "earlier key" not in client.get(page).content.decode()
    assert conll_f1(baseline) == 1.0


def test_a_phase_slug_used_twice_in_a_task_is_refused(definition):
    text = DEFINITION.replace("      - slug: test-gold\n", "      - slug: dev\n", 1)
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError, match="phase slug 'dev' is used twice in the task"):
        services.competition_load(path=definition)
    assert not Phase.objects.exists()
