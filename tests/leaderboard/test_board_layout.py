"""A CODI-CRAC board (four sub-corpora, one not yet available, baselines with descriptions
and long team names) fits a 1366-px screen: its table does not scroll sideways, every
column of it, the submission time included, is on screen."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
FITS = (
    "() => [...document.querySelectorAll('.lb-scroll')].every(e => e.scrollWidth <= e.clientWidth)"
)


def test_a_four_sub_corpus_board_fits_a_laptop_screen(make, page, live_server):
    competition = make.competition()
    phase = make.phase(
        make.task(competition),
        subcorpora=("light", "ami", "persuasion"),
        unavailable=("switchboard",),
    )
    organizers = make.team(competition, name="Organizers", organizer=True)
    for name, description in (
        ("Previous annotation", "The CODI-CRAC 2022 re-annotation of the same documents"),
        ("String match", "Gold markables with the same text form one entity"),
        ("All singletons", "Every gold markable as an entity of its own"),
    ):
        make.run(
            phase,
            organizers,
            {"light": 0.9714, "ami": 0.9706, "persuasion": 0.9298},
            is_baseline=True,
            run_name=name,
            description=description,
        )
    team = make.team(competition, name="Universität des Saarlandes — Coreference Lab")
    make.run(
        phase,
        team,
        {"light": 0.6512, "ami": 0.5745, "persuasion": 0.6804},
        run_name="mention-ranker-v2",
        description="A neural mention ranker with speaker "
        "features, trained on the three sub-corpora",
    )
    url = (
        f"{live_server.url}/competitions/{competition.slug}/{phase.task.slug}/"
        f"{phase.slug}/leaderboard/"
    )
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(url)
    page.locator("#leaderboard .lb-date").first.wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "board-four-subcorpora.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    assert page.evaluate(FITS), "the board's table scrolls sideways at 1366 px"
    right = page.evaluate(
        "Math.max(...[...document.querySelectorAll('#leaderboard td')]"
        ".map(td => td.getBoundingClientRect().right))"
    )
    assert right <= 1366
