"""Draft → checklist → publish, and back to draft, in a real browser.

Staff create a competition: it is a draft, marked so for its owner and absent for a visitor.
The owner previews it as a participant, opens the publishing checklist, cannot publish with
unmet items, waives them knowingly and publishes; the visitor sees it then. The owner takes it
back to draft (nobody has joined), publishes again, and once a participant has joined the page
says it can no longer go back. The audit log lists it all. Screenshots at 1366 and 390 px.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from competition.models import AuditEntry, Competition, Phase, SubCorpus, Task, Team
from tests.e2e.helpers import NO_OVERFLOW, log_in, log_out, new_competition

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "spring-2027"
TITLE = "Spring 2027 anaphora task"


def shots(page, artifacts_dir, name: str) -> None:
    """The page at 1366 px and at 390 px (a phone), with nothing off-screen at either."""
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(artifacts_dir / f"{name}-{width}.png"), full_page=True)
        assert page.evaluate(NO_OVERFLOW), f"{page.url} scrolls sideways at {width} px"
    page.set_viewport_size({"width": 1366, "height": 900})


def as_user(page, base: str, username: str) -> None:
    page.context.clear_cookies()
    log_in(page, base, username, f"{username}-pass-123")


def visitor_status(browser, url: str) -> int:
    context = browser.new_context()
    try:
        return context.new_page().goto(url).status
    finally:
        context.close()


def test_a_draft_is_checked_published_and_taken_back(browser, live_server, artifacts_dir):
    User = get_user_model()
    User.objects.create_user("admin", password="admin-pass-123", is_staff=True)
    olga = User.objects.create_user("olga", password="olga-pass-123")
    base = live_server.url
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.on("dialog", lambda dialog: dialog.accept())

    # Staff create the competition: a draft.
    log_in(page, base, "admin", "admin-pass-123")
    new_competition(page, base, SLUG, TITLE, owner="olga")
    assert "Draft" in page.inner_text("#draft-mark")
    log_out(page)
    competition = Competition.objects.get(slug=SLUG)
    assert competition.is_draft and competition.owner == olga
    assert visitor_status(browser, f"{base}/competitions/{SLUG}/") == 404

    # The owner shapes it (here directly: the editor has its own tests): one open phase
    # whose key comes later.
    task = Task.objects.create(
        competition=competition,
        slug="identity",
        kind="identity",
        title="Identity anaphora",
        primary_metric="conll",
    )
    phase = Phase.objects.create(
        task=task,
        slug="dev",
        kind="development",
        title="Development",
        start=timezone.now() - timedelta(days=1),
        end=timezone.now() + timedelta(days=60),
    )
    SubCorpus.objects.create(phase=phase, name="LIGHT", slug="light", available=False)

    log_in(page, base, "olga", "olga-pass-123")
    home = page.locator(f"article:has-text('{TITLE}')")
    assert home.locator(".badge.draft").inner_text() == "Draft"
    shots(page, artifacts_dir, "draft-home")
    page.click(f"text={TITLE}")
    assert "only the organizers and staff see" in page.inner_text("#draft-mark")
    shots(page, artifacts_dir, "draft-competition")

    # The preview shows the page as a participant will see it: no organizer controls.
    page.click("#preview-competition")
    assert "Preview" in page.inner_text("#preview-notice")
    assert page.locator("#edit-competition").count() == 0
    assert page.locator("#publish-link").count() == 0  # nor the organizers' links
    shots(page, artifacts_dir, "draft-preview")
    page.goto(f"{base}/competitions/{SLUG}/")

    # The checklist: the phase's key, the pages and the terms are missing.
    page.click("#publish-competition")
    page.wait_for_url(f"{base}/competitions/{SLUG}/organize/publish/")
    checklist = page.locator("#checklist")
    assert checklist.locator("li.check.ok[data-key=tasks]").count() == 1
    assert checklist.locator("li.check.ok[data-key=dates]").count() == 1
    keys = checklist.locator(f"li.check.waivable[data-key='keys:{phase.pk}']")
    assert "1 of 1 datasets without a gold key: LIGHT" in keys.inner_text()
    assert checklist.locator("li.check.waivable[data-key=pages]").count() == 1
    assert checklist.locator("li.check.waivable[data-key=terms]").count() == 1
    shots(page, artifacts_dir, "draft-checklist")

    # Publishing without waiving is refused and says why; waived, it is published.
    page.click("#publish-button")
    assert "cannot be published yet" in page.inner_text(".messages")
    assert Competition.objects.get(slug=SLUG).is_draft
    page.check(f"input[name=waive][value='keys:{phase.pk}']")
    page.check("input[name=waive][value=pages]")
    page.check("input[name=waive][value=terms]")
    page.click("#publish-button")
    page.wait_for_url(f"{base}/competitions/{SLUG}/")
    assert "is published" in page.inner_text(".messages")
    assert page.locator("#draft-mark").count() == 0
    assert visitor_status(browser, f"{base}/competitions/{SLUG}/") == 200

    # Nobody has joined: it may go back to draft.
    page.click("#publish-link")
    shots(page, artifacts_dir, "published-may-unpublish")
    page.click("#unpublish-button")
    page.wait_for_selector("#checklist")
    assert "is a draft again" in page.inner_text(".messages")
    assert visitor_status(browser, f"{base}/competitions/{SLUG}/") == 404

    # Published again; once a participant has joined there is no way back.
    for key in (f"keys:{phase.pk}", "pages", "terms"):
        page.check(f"input[name=waive][value='{key}']")
    page.click("#publish-button")
    page.wait_for_url(f"{base}/competitions/{SLUG}/")
    dana = User.objects.create_user("dana")
    team = Team.objects.create(competition=competition, name="Delta")
    team.memberships.create(user=dana, competition=competition)
    page.click("#publish-link")
    assert "cannot go back to draft: 1 participant team" in page.inner_text("#no-unpublish")
    assert page.locator("#unpublish-button").count() == 0

    # The audit log says who did what.
    page.click("#audit-log-link")
    rows = page.locator("#audit-log tbody tr")
    assert [rows.nth(i).get_attribute("data-action") for i in range(rows.count())] == [
        "publish",
        "unpublish",
        "publish",
        "organizer_added",  # the competition made, with its owner (newest first)
    ]
    assert "olga" in rows.first.inner_text() and "Waived" in rows.first.inner_text()
    shots(page, artifacts_dir, "audit-log")
    assert AuditEntry.objects.filter(actor=olga).count() == 3


def test_the_owner_adds_an_organizer_who_then_sees_the_draft(browser, live_server, artifacts_dir):
    User = get_user_model()
    olga = User.objects.create_user("olga", password="olga-pass-123")
    User.objects.create_user("pavel", password="pavel-pass-123")
    competition = Competition.objects.create(slug=SLUG, title=TITLE, owner=olga)
    competition.organizers.add(olga)
    base = live_server.url
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.on("dialog", lambda dialog: dialog.accept())

    as_user(page, base, "pavel")
    assert page.goto(f"{base}/competitions/{SLUG}/").status == 404

    as_user(page, base, "olga")
    page.goto(f"{base}/competitions/{SLUG}/organize/organizers/")
    page.fill("input[name=username]", "nobody")
    page.click("#add-organizer button[type=submit]")
    assert "There is no user named 'nobody'" in page.inner_text("#add-organizer")
    page.fill("input[name=username]", "pavel")
    page.click("#add-organizer button[type=submit]")
    page.locator("tr[data-organizer=pavel]").wait_for()
    assert "(owner)" in page.inner_text("tr[data-organizer=olga]")
    shots(page, artifacts_dir, "organizers")

    # The new organizer sees the draft, but does not change the organizers.
    as_user(page, base, "pavel")
    assert page.goto(f"{base}/competitions/{SLUG}/").status == 200
    page.goto(f"{base}/competitions/{SLUG}/organize/organizers/")
    assert page.locator("#add-organizer").count() == 0
    assert page.locator("tr[data-organizer=olga] button").count() == 0

    # The owner removes him again: the draft is gone for him.
    as_user(page, base, "olga")
    page.goto(f"{base}/competitions/{SLUG}/organize/organizers/")
    page.click("tr[data-organizer=pavel] button:has-text('Remove')")
    page.wait_for_selector("text=pavel no longer organizes")
    assert not competition.organizers.filter(username="pavel").exists()
    as_user(page, base, "pavel")
    assert page.goto(f"{base}/competitions/{SLUG}/").status == 404
