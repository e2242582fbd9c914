"""System cards in a real browser: the submit form of a final (test) phase asks the
competition's questions (selects for yes/no and choices, the required ones marked and
required by the browser); the run is stored with its answers, its page shows them, and the
board shows them as columns and filters by them, ranks kept. Screenshots at 1366 and 390 px
(test-artifacts/system-cards-*.png); nothing scrolls sideways but the board's own table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.helpers import NO_OVERFLOW, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shots(page, artifacts_dir: Path, name: str) -> None:
    """The page at 1366 px and at 390 px (a phone), with nothing off-screen at either."""
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => !e.closest(".lb-scroll")
                         && e.getBoundingClientRect().right
                            > document.documentElement.clientWidth + 1)
            .slice(0, 8).map(e => e.tagName + '.' + e.className + '#' + e.id)""")
        assert page.evaluate(NO_OVERFLOW), f"{page.url} scrolls sideways at {width} px: {wide}"
        page.screenshot(
            path=str(artifacts_dir / f"system-cards-{name}-{width}.png"), full_page=True
        )
    page.set_viewport_size({"width": 1366, "height": 900})


def test_a_final_run_answers_its_card_on_the_form_and_the_board_filters_by_it(
    page, live_server, make_world, tmp_path, artifacts_dir
):
    from competition.models import Phase, Submission
    from competition.services import cards

    world = make_world()
    cards.card_defaults_set(competition=world.competition, required=True)
    Phase.objects.filter(pk=world.phase.pk).update(kind=Phase.Kind.TEST_PREDICTED)
    base = live_server.url
    phase_path = f"/competitions/{world.competition.slug}/{world.task.slug}/{world.phase.slug}"
    files = {}
    for slug in ("light", "ami"):
        files[slug] = tmp_path / f"{slug.upper()}.CONLLUA"
        files[slug].write_text(world.response_text(slug), encoding="utf-8")

    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(f"{base}{phase_path}/submit/")
    card = page.locator("#submit-card")
    assert "A run of this phase needs the questions marked" in card.inner_text()
    assert card.locator("label[for='id_card.llm']").inner_text() == "Is the system LLM-based? *"
    options = page.locator("select[name='card.adaptation'] option").all_inner_texts()
    assert options == ["–", "fine-tuned", "few-shot", "zero-shot", "not applicable"]
    assert page.locator("input[name='card.code']").get_attribute("type") == "url"
    for slug, path in files.items():
        page.set_input_files(f"input[name=file_{slug}]", str(path))
    page.fill("input[name=run_name]", "llm-run")
    page.select_option("select[name='card.llm']", "yes")
    page.fill("input[name='card.base-model']", "Llama 3.1 8B")
    page.fill("input[name='card.parameters']", "8B")
    page.select_option("select[name='card.adaptation']", "few-shot")
    page.fill("input[name='card.external-data']", "none")
    page.fill("input[name='card.weights-licence']", "Llama 3.1 Community Licence")
    shots(page, artifacts_dir, "submit-form")

    # The code link is left out: the browser holds the form back, nothing is sent.
    page.click("#submit-button")
    assert page.evaluate(
        "() => document.querySelector(\"input[name='card.code']\").matches(':invalid')"
    )
    assert "/submit/" in page.url and not Submission.objects.exists()

    page.fill("input[name='card.code']", "https://example.org/our-code")
    page.click("#submit-button")
    page.wait_for_url(re.compile(r".*/submissions/\d+/$"), timeout=90_000)
    page.locator("#submission-status[data-status=scored]").wait_for(timeout=90_000)
    run = Submission.objects.get()
    assert cards.card_of(submission=run)["adaptation"] == "few-shot"
    assert page.locator("#card-missing").count() == 0
    assert page.locator("#card-base-model").input_value() == "Llama 3.1 8B"

    page.goto(f"{base}{phase_path}/leaderboard/")
    table = page.locator("#leaderboard")
    assert "Is the system LLM-based?" in table.inner_text() and "Llama 3.1 8B" in table.inner_text()
    page.select_option("select[name='card.llm']", "yes")
    page.wait_for_selector("#card-filter-note")
    assert "1 of 1 rows" in page.locator("#card-filter-note").inner_text()
    shots(page, artifacts_dir, "board")
    page.select_option("select[name='card.llm']", "no")
    page.wait_for_selector("#card-filter-note:has-text('0 of 1 rows')")
    assert page.locator("#leaderboard").count() == 0
