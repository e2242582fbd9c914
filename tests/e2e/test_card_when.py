"""System-card questions asked only when another answer says so, in a real browser: the
submit form shows the base model only once the system is said to be LLM-based; the
organizer's System card box offers own questions and the "show on the board" choice, its
checkbox on the line of its label. Screenshots: test-artifacts/card-when-*.png."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.e2e.helpers import NO_OVERFLOW, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_base_model_is_asked_of_llm_systems_only_and_the_editor_offers_own_questions(
    page, live_server, make_world, artifacts_dir
):
    from competition.models import Phase
    from competition.services import cards

    world = make_world()
    cards.card_defaults_set(competition=world.competition, required=True)
    Phase.objects.filter(pk=world.phase.pk).update(kind=Phase.Kind.TEST_PREDICTED)
    olga = get_user_model().objects.create_user("olga", password="olga-pw-123!")
    world.competition.organizers.add(olga)
    base = live_server.url
    phase_path = f"/competitions/{world.competition.slug}/{world.task.slug}/{world.phase.slug}"

    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(f"{base}{phase_path}/submit/")
    model = page.locator("input[name='card.base-model']")
    assert not model.is_visible()  # nothing said yet
    page.select_option("select[name='card.llm']", "no")
    assert not model.is_visible() and page.locator("input[name='card.code']").is_visible()
    page.select_option("select[name='card.llm']", "yes")
    assert model.is_visible()
    assert "only if llm: yes" in page.locator("#submit-card").inner_text()
    assert model.get_attribute("required") is None  # the service decides, from the whole card
    page.screenshot(path=str(artifacts_dir / "card-when-submit.png"), full_page=True)

    page.click("button:has-text('Log out')")
    log_in(page, base, "olga", "olga-pw-123!")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/edit/{world.competition.slug}/")
        box = page.locator("#system-card")
        assert "only if llm: yes" in box.inner_text() and "on the board" in box.inner_text()
        check = page.locator("#card-required").bounding_box()
        label = page.locator("label[for=card-required]").bounding_box()
        assert check and label
        # on the label's first line, at its start (not centred under it)
        middle = check["y"] + check["height"] / 2
        assert label["y"] <= middle <= label["y"] + 24, (check, label)
        form = page.locator("#card-defaults").bounding_box()
        assert form and check["x"] - form["x"] < 8, (check, form)
        page.click("#card-question-add summary")
        assert page.locator("#id_cq-on_board").is_visible()
        assert page.evaluate(NO_OVERFLOW), f"the editor scrolls sideways at {width} px"
        box.screenshot(path=str(artifacts_dir / f"card-when-editor-{width}.png"))
