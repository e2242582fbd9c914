"""The per-language view of a board and its team × dataset heatmap (leaderboard.selectors.
languages, the board_languages page): averages per language under the phase's
missing-dataset rule, shades that follow the values, and the board's own visibility."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from competition.models import Phase, SubCorpus
from leaderboard.ranking import Score as Cell
from leaderboard.selectors import leaderboard_board
from leaderboard.selectors.boards import Column
from leaderboard.selectors.languages import HeatCell, board_languages

ANON = AnonymousUser()
DATASETS = {"cs_pcedt": "Czech", "cs_pdt": "Czech", "en_gum": "English"}


@pytest.fixture
def crac(make):
    task = make.task(kind="corefud")
    phase = make.phase(task, kind="test_predicted", subcorpora=tuple(DATASETS))
    phase.missing = Phase.Missing.ZERO
    phase.save()
    for slug, language in DATASETS.items():
        SubCorpus.objects.filter(phase=phase, slug=slug).update(language=language)
    return phase


def url(phase: Phase) -> str:
    task = phase.task
    return reverse(
        "leaderboard:board_languages", args=[task.competition.slug, task.slug, phase.slug]
    )


def test_language_averages_follow_the_missing_rule(make, crac):
    """Czech is the mean of its two datasets; a run that skipped one counts it as 0 there
    (the zero rule), as the board's average over all datasets does."""
    competition = crac.task.competition
    make.run(crac, make.team(competition, "Full"), {"cs_pcedt": 0.6, "cs_pdt": 0.8, "en_gum": 0.5})
    make.run(crac, make.team(competition, "Skipper"), {"cs_pcedt": 0.9, "en_gum": 0.95})
    view = board_languages(board=leaderboard_board(phase=crac, viewer=ANON))
    assert [(g.name, [c.slug for c in g.columns]) for g in view.languages] == [
        ("Czech", ["cs_pcedt", "cs_pdt"]),
        ("English", ["en_gum"]),
    ]
    lines = {line.row.entry.team: line for line in view.rows}
    assert lines["Full"].languages[0].f1 == pytest.approx(0.7)
    assert lines["Full"].languages[1].f1 == pytest.approx(0.5)
    assert lines["Skipper"].languages[0].f1 == pytest.approx(0.45)
    assert [c.score is None for c in lines["Skipper"].cells] == [False, True, False]
    assert [c.level for c in lines["Full"].cells] == [6, 8, 5]


def test_shades_cover_zero_to_one():
    column = Column("a", "A", True)
    levels = [HeatCell(column, Cell(v, v, v)).level for v in (0.0, 0.0999, 0.1, 0.95, 1.0)]
    assert levels == [0, 0, 1, 9, 9]
    assert HeatCell(column, None).level is None


def test_the_page_prints_every_number_and_the_legend(client, make, crac):
    competition = crac.task.competition
    make.run(
        crac, make.team(competition, "<b>Bold</b>"), {"cs_pcedt": 0.6, "cs_pdt": 0.8, "en_gum": 0.5}
    )
    page = client.get(url(crac))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'class="lb-num lb-heat lb-heat-6">60.00<' in html
    assert ">70.00<" in html and html.count("lb-heat lb-heat-") == 3 + 10
    assert "&lt;b&gt;Bold&lt;/b&gt;" in html and "<b>Bold</b>" not in html
    assert client.get(url(crac) + "?metric=nope").status_code == 400


def test_a_hidden_board_shows_no_row(client, make, crac):
    crac.leaderboard_visibility = "hidden"
    crac.save()
    make.run(crac, make.team(crac.task.competition, "Secret"), {k: 0.5 for k in DATASETS})
    html = client.get(url(crac)).content.decode()
    assert "Secret" not in html and "hidden until the organizers reveal it" in html


def test_another_mode_and_metric_are_shown_as_asked(client, make, crac):
    """The view takes the board's parameters: here the CRAC 2026 analysis mode of long
    entities, whose rows sit beside the task's."""
    competition = crac.task.competition
    make.run(crac, make.team(competition, "Full"), {k: 0.5 for k in DATASETS})
    submission = crac.submissions.get()
    run = submission.runs.get()
    for slug, value in (("cs_pcedt", 0.2), ("en_gum", 0.9)):
        run.scores.create(
            submission=submission,
            subcorpus=crac.subcorpora.get(slug=slug),
            mode="entity range 100-999",
            metric="conll",
            recall=value,
            precision=value,
            f1=value,
        )
    html = client.get(url(crac) + "?mode=entity+range+100-999&metric=conll").content.decode()
    assert 'lb-heat-2">20.00<' in html and 'lb-heat-9">90.00<' in html
    assert '<option value="entity range 100-999" selected>' in html
