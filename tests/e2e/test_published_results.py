"""An edition's official results, published as macro-averages only, shown on its evaluation
board at 1366 and 390 px, marked published with their source. Screenshots go to
test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from competition.services import competition_load, reference_results_import
from competition.services.publish import competition_publish_waiving

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_the_crac_2024_board_shows_its_official_results(browser, live_server, artifacts_dir):
    get_user_model().objects.create_user("organizer")
    loaded = competition_load(path=FIXTURES / "crac" / "crac-2024.yaml", with_baselines=False)
    competition_publish_waiving(competition=loaded.competition)
    reference_results_import(path=FIXTURES / "reference" / "crac-2024.yaml")
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/competitions/crac-2024/coreference/test/leaderboard/")
        table = page.locator("#published-averages")
        assert table.is_visible()
        assert "ufal.mff.cuni.cz/corefud/crac24" in table.inner_text()
        first = table.locator("tbody tr").first.inner_text()
        assert "CorPipe-2stage" in first and "73.90" in first and "75.65" in first
        headers = table.locator("thead th").all_inner_texts()
        assert headers[:2] == ["#", "System"] and headers[2:] == [
            "head match",
            "partial match",
            "exact match",
            "head, with singletons",
        ]
        page.screenshot(path=str(artifacts_dir / f"published-results-{width}.png"), full_page=True)
    context.close()
