"""A system card locked by the end of its phase, in a real browser: the team sees its
answers with the date and the reason they are locked, and no form; an organizer sees a
form that asks why the card changes, and the change with its reason is in the audit log.
Screenshots at 1366 and 390 px (test-artifacts/card-lock-*.png); nothing scrolls sideways."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.e2e.helpers import NO_OVERFLOW, log_in, log_out

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shots(page, artifacts_dir: Path, name: str) -> None:
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate(NO_OVERFLOW), f"{page.url} scrolls sideways at {width} px"
        page.screenshot(path=str(artifacts_dir / f"card-lock-{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})


def test_a_locked_card_is_shown_with_its_reason_and_an_organizer_overrides_it(
    page, live_server, make_world, artifacts_dir
):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from competition import services
    from competition.models import AuditEntry, Phase
    from competition.services import cards

    world = make_world()
    cards.card_defaults_set(competition=world.competition, required=False)
    run = services.submission_create(
        team=world.alpha,
        phase=world.phase,
        user=world.alice,
        files=world.uploads(),
        card={"llm": "no", "base-model": "XLM-R large", "adaptation": "fine-tuned"},
    )
    Phase.objects.filter(pk=world.phase.pk).update(
        end=timezone.now() - timedelta(hours=2), time_zone="AoE"
    )
    olga = get_user_model().objects.create_user("olga", password="pw-olga-1")
    world.competition.organizers.add(olga)
    base = live_server.url

    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(f"{base}/submissions/{run.pk}/")
    notice = page.locator("#card-locked").inner_text()
    assert notice.startswith("Locked: The phase Development ended on ")
    assert "AoE (UTC−12): its system cards are locked" in notice
    assert "only the organizers can correct them now" in notice
    assert page.locator("#card-form").count() == 0
    answers = page.locator("#card-answers").inner_text()
    assert "XLM-R large" in answers and "fine-tuned" in answers
    page.locator("#system-card").scroll_into_view_if_needed()
    shots(page, artifacts_dir, "team")
    log_out(page)

    log_in(page, base, "olga", "pw-olga-1")
    page.goto(f"{base}/submissions/{run.pk}/")
    assert "as an organizer you can still correct them" in page.locator("#card-locked").inner_text()
    page.select_option("#card-llm", "yes")
    shots(page, artifacts_dir, "organizer")
    page.click("#card-form button[type=submit]")  # no reason: the browser holds it back
    assert page.evaluate(
        "() => document.querySelector('#card-override-reason').matches(':invalid')"
    )
    assert cards.card_of(submission=run)["llm"] == "no"
    page.fill("#card-override-reason", "The team's paper describes an LLM-based system.")
    page.click("#card-form button[type=submit]")
    page.wait_for_selector("text=The system card was saved.")
    assert cards.card_of(submission=run)["llm"] == "yes"

    page.goto(f"{base}/competitions/{world.competition.slug}/organize/log/")
    log = page.locator("body").inner_text()
    assert "Locked system card changed" in log
    assert "describes an LLM-based system" in log and "llm: no → yes" in log
    assert AuditEntry.objects.filter(action=AuditEntry.Action.CARD_OVERRIDE).count() == 1
    shots(page, artifacts_dir, "audit-log")
