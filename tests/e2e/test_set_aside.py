"""A run set aside after the organizers replaced a gold key, in a real browser at 1366 and
390 px: the team's run page says so in neutral words (no error box), the organizers' page
marks it "set aside" with the message and a Re-score button. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from competition import services
from competition.definition import editor
from competition.models import Submission
from tests.conftest import KEY_DOCS, Doc, conllua
from tests.e2e.helpers import NO_OVERFLOW, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_set_aside_run_on_the_teams_and_the_organizers_pages(
    browser, live_server, make_world, artifacts_dir
):
    world = make_world()
    world.competition.organizers.add(world.mallory)
    run = services.submission_create(
        team=world.alpha,
        phase=world.phase,
        user=world.alice,
        files=world.uploads(),
        run_name="baseline-xl",
    )
    assert Submission.objects.get(pk=run.pk).status == Submission.Status.SCORED
    renamed = [
        Doc("light_9", KEY_DOCS["light"][0].sentences, KEY_DOCS["light"][0].mentions),
        KEY_DOCS["light"][1],
    ]
    editor.subcorpus_save(
        phase=world.phase,
        subcorpus=world.phase.subcorpora.get(slug="light"),
        name="LIGHT",
        key=SimpleUploadedFile("LIGHT.CONLLUA", conllua(renamed).encode()),
    )
    assert Submission.objects.get(pk=run.pk).status == Submission.Status.SET_ASIDE
    base = live_server.url
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)

    log_in(page, base, "alice", "alice-pw-123!")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/submissions/{run.pk}/")
        assert page.inner_text("#submission-status") == "Set aside"
        note = page.inner_text("#submission-set-aside")
        assert "replaced the gold key of LIGHT" in note and "does not count" in note
        assert page.locator(".error-box").count() == 0
        page.screenshot(path=str(artifacts_dir / f"set-aside-team-{width}.png"), full_page=True)
        box = page.locator("#submission-set-aside").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width  # the message fits
        if width == 1366:  # (at 390 px the Files table below scrolls, as on every run page)
            assert page.evaluate(NO_OVERFLOW)
    page.click("button:has-text('Log out')")

    log_in(page, base, "mallory", "mallory-pw-123!")
    organize = (
        f"{base}/competitions/{world.competition.slug}/{world.task.slug}/"
        f"{world.phase.slug}/organize/"
    )
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(organize)
        row = page.locator(f"#organize-submissions tr[data-submission='{run.pk}']")
        assert row.locator(f"[data-set-aside='{run.pk}']").inner_text() == "set aside"
        assert "do not fit the new key" in row.inner_text()
        assert row.locator("button[value=rescore]").count() == 1
        page.screenshot(
            path=str(artifacts_dir / f"set-aside-organizer-{width}.png"), full_page=True
        )
    context.close()
