"""A visitor's first five minutes at 390 and 1366 px: the home page says what the site is
and shows CRAC 2024 as a finished CorefUD edition with its official record; the
competition's phase table fits the screen (stacked on a phone), the leaderboard link first
and on screen, its 21 datasets folded to a count; the link leads to the frozen board. No page
scrolls sideways. Screenshots go to test-artifacts/first-visit-<width>-<page>.png."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import crac_2024_record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCROLL = "document.documentElement.scrollWidth"


def _fits(page, width: int, artifacts_dir, name: str) -> None:
    assert page.evaluate(SCROLL) <= width, f"{page.url} scrolls sideways at {width} px"
    page.screenshot(path=str(artifacts_dir / f"first-visit-{width}-{name}.png"), full_page=True)


def _on_screen(page, locator, width: int) -> None:
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    assert locator.is_visible() and box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box


def test_a_visitor_finds_a_corefud_edition_its_phase_table_and_its_board(
    browser, live_server, artifacts_dir
):
    crac_2024_record()
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    for width in (390, 1366):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/")
        assert "platform for anaphora and coreference shared tasks" in page.inner_text(
            "#site-purpose"
        )
        card = page.locator("#competition-crac-2024")
        facts = card.inner_text()
        assert "finished" in facts and "CorefUD" in facts and "1 team ·" in facts
        _fits(page, width, artifacts_dir, "home")

        card.locator("h3 a").click()
        page.wait_for_url(f"{live_server.url}/competitions/crac-2024/")
        table = page.locator("table.phase-table").first
        # the evaluation phase's row
        row = table.locator("tbody tr:has(a.leaderboard-link[href*='/test/'])")
        link = row.locator("a.leaderboard-link")
        _on_screen(page, link, width)
        # the leaderboard link comes right after the phase's name, before its facts
        cells = row.locator("td")
        assert cells.nth(1).locator("a.leaderboard-link").count() == 1
        datasets = row.locator("details.dataset-list")
        assert datasets.locator("summary").inner_text().endswith("datasets")
        assert not datasets.locator("span").first.is_visible()  # names one click away
        datasets.locator("summary").click()
        assert datasets.locator("span").first.is_visible()
        _fits(page, width, artifacts_dir, "competition")

        link.click()
        page.wait_for_url("**/leaderboard/")
        assert "Official results, frozen" in page.locator("body").inner_text()
        _fits(page, width, artifacts_dir, "board")
    context.close()
