"""The demo's finished CRAC edition: CRAC 2024 loaded as `make demo` loads it, its official
results imported and its evaluation board frozen, dated from its sources; the page's
official ranking of macro-averages is its main table (CorPipe-2stage first), the one system
paper's per-dataset row after it, unranked, each with its source, at 1366 and 390 px.
Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import crac_2024_record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_demo_crac_2024_board_is_frozen_with_its_published_rows(
    browser, live_server, artifacts_dir
):
    crac_2024_record()
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/competitions/crac-2024/coreference/test/leaderboard/")
        body = page.locator("body").inner_text()
        assert "Official results, frozen 2024-11-15" in body
        row = page.locator("#leaderboard tr", has_text="CorPipe-single").first
        cells = row.inner_text()
        assert "published" in cells and "70.17" in cells and "80.40" in cells
        assert row.locator("td.lb-rank").inner_text() == "–"
        assert "arXiv 2410.02756" in body and "crac2024-corpipe" in body
        averages = page.locator("#published-averages")
        assert averages.is_visible()
        assert "ufal.mff.cuni.cz/corefud/crac24" in averages.inner_text()
        first = averages.locator("tbody tr").first.inner_text()
        assert "CorPipe-2stage" in first and first.startswith("1")
        assert averages.bounding_box()["y"] < page.locator("#leaderboard").bounding_box()["y"]
        # nothing wider than the window but the tables' own scrolling boxes
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(artifacts_dir / f"demo-crac-2024-{width}.png"), full_page=True)
    context.close()
