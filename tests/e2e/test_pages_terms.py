"""A competition's pages, terms, team approval and announcements in a real browser.

The organizer writes the terms in Markdown (with a script, an onerror attribute and a
javascript: link that must stay inert), requires approval of teams and posts an announcement;
a participant reads and accepts the terms where the team is created, sees that the team waits
for approval, can submit once approved, and stops the announcement e-mails from the link in
the mail without logging in. Screenshots at 1366 px go to test-artifacts/."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from competition.models import AnnouncementOptOut, TermsAcceptance

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 1366
HOSTILE_TERMS = """# Terms of participation

1. Submit **your own** system output.
2. Do not annotate the test data by hand.

<script>window.__pwned = "script"</script>
<img src="x" onerror="window.__pwned = 'onerror'">
[a harmless-looking link](javascript:window.__pwned='link')

Questions: [write to us](mailto:organizers@example.org).
"""


def login(page, base, username, password):
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_selector(f"text={username}")


def no_overflow(page):
    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_terms_approval_and_announcements(
    browser, live_server, make_world, artifacts_dir, settings
):
    world = make_world()
    settings.SITE_URL = live_server.url
    organizer = world.bob  # bob organizes; mallory takes part
    world.competition.organizers.add(organizer)
    world.mallory.email = "mallory@example.org"
    world.mallory.save()
    base = live_server.url
    slug = world.competition.slug
    org = browser.new_context(viewport={"width": WIDTH, "height": 900}).new_page()
    part = browser.new_context(viewport={"width": WIDTH, "height": 900}).new_page()

    # The organizer writes the terms and the overview.
    login(org, base, "bob", "bob-pw-123!")
    org.goto(f"{base}/competitions/{slug}/pages/terms/edit/")
    org.fill("#page-body-input", HOSTILE_TERMS)
    org.click("button[value=preview]")
    assert "Submit your own system output" in org.inner_text("#page-preview")
    no_overflow(org)
    org.screenshot(path=str(artifacts_dir / "pages-edit-terms.png"), full_page=True)
    org.click("button[value=save]")
    org.wait_for_url(re.compile(r".*/pages/terms/$"))
    assert org.evaluate("window.__pwned") is None
    assert org.locator("#page-body script, #page-body img").count() == 0
    assert org.locator("#page-body a[href^='javascript' i]").count() == 0
    assert "<script>" in org.inner_text("#page-body")  # shown as text, not run
    org.goto(f"{base}/competitions/{slug}/pages/overview/edit/")
    org.fill("#page-body-input", "The **CODI-CRAC test** shared task: anaphora in dialogue.")
    org.click("button[value=save]")

    # ... requires approval of teams, and posts an announcement.
    org.goto(f"{base}/competitions/{slug}/organize/teams/")
    org.click("#approval-setting button[value=require]")
    org.wait_for_selector("text=Teams need your approval")

    # The participant must accept the terms before creating a team.
    login(part, base, "mallory", "mallory-pw-123!")
    part.goto(f"{base}/competitions/{slug}/team/")
    assert part.locator("#terms-to-accept .terms-text li").count() == 2
    assert part.is_disabled("text=Create team")
    assert part.evaluate("window.__pwned") is None
    no_overflow(part)
    part.screenshot(path=str(artifacts_dir / "pages-team-terms.png"), full_page=True)
    part.click("#accept-terms")
    part.wait_for_selector("text=You accepted the terms")
    assert TermsAcceptance.objects.filter(user=world.mallory).exists()
    part.fill("input[name='create-name']", "Gamma")
    part.click("text=Create team")
    part.wait_for_selector("h1:has-text('Team Gamma')")
    assert part.locator("#approval-status[data-status=pending]").count() == 1

    # Waiting for approval: the submit page says why it cannot submit.
    phase = f"{base}/competitions/{slug}/{world.task.slug}/{world.phase.slug}"
    part.goto(f"{phase}/submit/")
    assert "waits for the organizers' approval" in part.inner_text("#approval-status")
    no_overflow(part)
    part.screenshot(path=str(artifacts_dir / "pages-submit-pending.png"), full_page=True)

    # The organizer approves Gamma.
    org.goto(f"{base}/competitions/{slug}/organize/teams/")
    row = org.locator("#teams tr[data-team='Gamma']")
    assert row.get_attribute("data-status") == "pending"
    no_overflow(org)
    org.screenshot(path=str(artifacts_dir / "pages-organize-teams.png"), full_page=True)
    row.locator("button[value=approve]").click()
    org.locator("#teams tr[data-team='Gamma'][data-status=approved]").wait_for()
    part.goto(f"{phase}/submit/")
    assert part.locator("#approval-status").count() == 0

    # An announcement: on the competition page, and e-mailed to the team's members.
    org.goto(f"{base}/competitions/{slug}/announcements/")
    org.fill("#announcement-title", "Test data released")
    org.fill("#announcement-body", "The test inputs are on the **Data** page.")
    org.click("text=Publish and e-mail")
    org.wait_for_selector("text=is published")
    [message] = [
        m
        for m in mail.outbox
        if m.to == ["mallory@example.org"] and "Test data released" in m.subject
    ]  # (the approval was mailed too)
    part.goto(f"{base}/competitions/{slug}/")
    assert "Test data released" in part.inner_text("#announcements")
    assert "CODI-CRAC test shared task" in part.inner_text("#overview")
    no_overflow(part)
    part.screenshot(path=str(artifacts_dir / "pages-competition.png"), full_page=True)

    # The link in the mail works without logging in.
    link = re.search(r"(http://\S+/unsubscribe/\S+/)", message.body).group(1)
    stranger = browser.new_context(viewport={"width": WIDTH, "height": 900}).new_page()
    stranger.goto(link)
    stranger.click("text=Stop the e-mails")
    stranger.wait_for_selector("text=You will no longer receive")
    stranger.screenshot(path=str(artifacts_dir / "pages-unsubscribed.png"), full_page=True)
    assert AnnouncementOptOut.objects.filter(
        user=world.mallory, competition=world.competition
    ).exists()
    part.goto(f"{base}/competitions/{slug}/")
    assert "You do not receive announcements by e-mail" in part.inner_text("#announcements")
