"""The board's Mode select names modes in words (the procedure's own labels), the task's
own mode first, the others grouped, not as the scorer's raw option names."""

from __future__ import annotations

from django.template import Context, Template

from competition.models import Task
from leaderboard.mode_choices import mode_groups

CRAC_2026_MODES = ["task", "exact", "empty-nodes", "partial", "with-singletons"]


def _labels(groups):
    return [(g.label, [(c.value, c.label) for c in g.choices]) for g in groups]


def test_it_names_crac_modes_by_the_procedure_and_groups_them_primary_first():
    task = Task(kind="corefud", procedure="crac-2026", primary_metric="conll")
    assert _labels(mode_groups(task=task, modes=CRAC_2026_MODES)) == [
        ("Primary", [("task", "head match (primary)")]),
        ("Other mention matching", [("exact", "exact match"), ("partial", "partial match")]),
        ("Singletons", [("with-singletons", "head, with singletons")]),
        ("Empty nodes", [("empty-nodes", "empty nodes")]),
    ]


def test_a_codi_crac_task_scored_from_its_options_gets_its_kinds_words():
    task = Task(kind="identity", procedure="", primary_metric="conll")
    modes = ["task", "remove_singletons remove_split_antecedent", "only_split_antecedent"]
    assert _labels(mode_groups(task=task, modes=modes)) == [
        ("Primary", [("task", "the task's setting (primary)")]),
        ("Singletons", [(modes[1], "without singletons and split antecedents")]),
        ("Split antecedents", [("only_split_antecedent", "split antecedents only")]),
    ]


def test_an_unknown_mode_keeps_its_name_in_an_other_group():
    task = Task(kind="bridging", procedure="", primary_metric="bridging_entity")
    groups = mode_groups(task=task, modes=["task", "keep_bridging_v2"])
    assert _labels(groups)[-1] == ("Other modes", [("keep_bridging_v2", "keep bridging v2")])


def test_the_select_renders_optgroups_with_the_chosen_mode_selected():
    task = Task(kind="corefud", procedure="crac-2024", primary_metric="conll")
    html = Template("{% load mode_tags %}{% mode_options task modes chosen %}").render(
        Context(
            {"task": task, "modes": ["task", "partial", "with-singletons"], "chosen": "partial"}
        )
    )
    assert html.index('<optgroup label="Primary">') < html.index("Other mention matching")
    assert '<option value="partial" selected>partial match</option>' in html
    assert ">task<" not in html and ">with-singletons<" not in html


def test_the_board_page_shows_the_modes_in_words(client, world, django_capture_on_commit_callbacks):
    from competition import services

    with django_capture_on_commit_callbacks(execute=True):  # scored in-process
        services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    url = (
        f"/competitions/{world.competition.slug}/{world.task.slug}/{world.phase.slug}/leaderboard/"
    )
    html = client.get(url).content.decode()
    select = html.split('name="mode"')[1].split("</select>")[0]
    assert '<optgroup label="Primary">' in select
    assert ">without singletons and split antecedents</option>" in select
    html = client.get(url + "?mode=only_split_antecedent").content.decode()
    assert "mode <em>split antecedents only</em>" in html
