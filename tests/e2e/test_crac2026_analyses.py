"""The CRAC 2026 pages in a real browser, on the CRAC 2026 demo competition scored for real:
the board's empty-node columns, its per-language view with the team × dataset heatmap, and a
run's analysis page with the empty-node measures and the analyses by entity range, entity
type and mention type; at 1366 px and at 390 px (a phone), nothing but the tables' own boxes
scrolls sideways."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from competition.models import Submission
from competition.services import competition_load
from competition.services.publish import competition_publish_waiving
from tests.e2e.helpers import NO_OVERFLOW

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
BOARD = "/competitions/crac-2026-demo/coreference/test/leaderboard/"


def shots(page, artifacts_dir: Path, name: str) -> None:
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        # what sticks out, outside the tables' own scrolling boxes (for the message)
        wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => !e.closest(".lb-scroll")
                         && e.getBoundingClientRect().right
                            > document.documentElement.clientWidth + 1)
            .slice(0, 8).map(e => e.tagName + '.' + e.className + '#' + e.id)""")
        assert page.evaluate(NO_OVERFLOW), f"{page.url} scrolls sideways at {width} px: {wide}"
        page.screenshot(path=str(artifacts_dir / f"{name}-{width}.png"), full_page=True)


def test_heatmap_and_analysis_of_a_crac_2026_run(page, live_server, artifacts_dir):
    get_user_model().objects.create_user("organizer")
    loaded = competition_load(path=ROOT / "fixtures" / "crac-2026-demo.yaml")
    competition_publish_waiving(competition=loaded.competition)  # as demo_setup does
    base = live_server.url
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(base + BOARD)
    page.wait_for_selector("#empty-nodes")
    heads = page.locator("#empty-nodes thead th").all_inner_texts()
    assert heads[3:] == [
        "ARC",
        "DEP",
        "WO",
        "DEP_WO",
        "FORM",
        "LEMMA",
        "UPOS",
        "XPOS",
        "FEATS",
        "ALL",
    ]
    assert "ARC" not in page.locator("#variants thead").inner_text()
    # String match: ARC 2/3 on the zero test case, 1 on GUM
    string_match = page.locator("#empty-nodes tbody tr", has_text="String match")
    assert string_match.locator("td").nth(3).inner_text() == "83.33"
    shots(page, artifacts_dir, "crac2026-board")

    page.click("text=By language & heatmap")
    page.wait_for_selector("#heatmap")
    languages = page.locator("#languages thead th").all_inner_texts()
    assert [h.split(" (")[0] for h in languages[3:]] == ["English", "(test case)", "All"]
    cells = page.locator("#heatmap tbody td")
    assert cells.count() == 4  # two runs × two datasets
    # every cell prints its number and carries a shade class matching it
    for index in range(cells.count()):
        cell = cells.nth(index)
        value = float(cell.inner_text())
        assert f"lb-heat-{min(9, int(value / 10))}" in cell.get_attribute("class")
    assert page.locator(".lb-heat-legend li").count() == 10
    shots(page, artifacts_dir, "crac2026-languages")

    run = Submission.objects.get(run_name="String match")
    page.goto(f"{base}/submissions/{run.pk}/analysis/")
    page.wait_for_selector("#breakdown-entity-range")
    ranges = [
        text.split(" (")
        for text in page.locator("#breakdown-entity-range tbody th").all_inner_texts()
    ]
    assert [name for name, _ in ranges][:2] == ["0-9", "10-99"]
    assert sum(int(size.rstrip(")")) for _, size in ranges) == 133  # gold entities
    kinds = [
        text.split(" (")[0]
        for text in page.locator("#breakdown-mention-type tbody th").all_inner_texts()
    ]
    assert set(kinds) <= {"pronoun", "zero", "nominal", "unknown"} and "pronoun" in kinds
    # the test case's file gives no UPOS: its anaphors are unknown, said under the table
    assert "unknown" in kinds
    assert "AMI has none" in page.locator("#mention-type-unknown").inner_text()
    assert page.locator("#breakdown-entity-type tbody tr").count() >= 3
    empty = page.locator("#metrics tr[data-mode='empty-nodes']")
    assert empty.count() == 10
    arc = page.locator("#metrics tr[data-mode='empty-nodes'][data-metric='ARC'] td")
    # zeros (TC-ZF-4): 66.67; en_gum: 100; average 83.33
    assert arc.last.inner_text().strip() == "83.33"
    assert page.locator("text=Empty nodes (CRAC 2026 measures)").count() == 1
    shots(page, artifacts_dir, "crac2026-analysis")
