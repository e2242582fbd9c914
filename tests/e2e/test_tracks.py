"""Tracks in a real browser: the organizer adds, orders and renames a task's tracks in the
editor; a participant uploads a run to a track and sees the track on the run's page and the
board named after it; the organizer's phase page lists the run with its track and score; the
Data section tells a participant without accepted terms what is missing. Screenshots at 1366
and 390 px in test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from competition.definition import editor
from competition.services.pages import page_save
from tests.conftest import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDE, PHONE = 1366, 390
# The elements that reach past the right edge (to say what overflows).
WIDEST = (
    "() => [...document.querySelectorAll('body *')].filter(e => "
    "e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)"
    ".slice(0, 5).map(e => e.tagName + '.' + e.className + '#' + e.id)"
)


def log_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()


def shots(
    page, artifacts_dir: Path, name: str, *, must_fit: bool = True, part: str | None = None
) -> None:
    """The page at 1366 px (nothing off-screen) and at 390 px, where the whole page fits
    (``must_fit``) or at least ``part`` does (the site's header and some pages are the phone
    layout's own work)."""
    page.set_viewport_size({"width": WIDE, "height": 900})
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDE
    page.screenshot(path=str(artifacts_dir / f"tracks-{name}.png"), full_page=True)
    page.set_viewport_size({"width": PHONE, "height": 800})
    page.screenshot(path=str(artifacts_dir / f"tracks-{name}-390.png"), full_page=True)
    if must_fit:
        wide = page.evaluate(WIDEST)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE, (name, wide)
    if part is not None:
        right = page.evaluate(
            f"() => document.querySelector({part!r}).getBoundingClientRect().right"
        )
        assert right <= PHONE, (name, part, right)
    page.set_viewport_size({"width": WIDE, "height": 900})


def test_tracks_from_the_editor_to_the_board(page, live_server, tmp_path, artifacts_dir):
    world = build_world()
    world.competition.organizers.add(world.mallory)
    base = live_server.url
    slug, task, phase = world.competition.slug, world.task.slug, world.phase.slug
    page.set_viewport_size({"width": WIDE, "height": 900})

    # The organizer adds two tracks, moves the second up and renames it.
    log_in(page, base, "mallory", "mallory-pw-123!")
    page.goto(f"{base}/edit/{slug}/{task}/")
    page.click("#tracks summary")
    page.fill("input[name=track-name]", "LLM")
    page.fill("textarea[name=track-description]", "Built on a large language model.")
    page.click("#add-track button[type=submit]")
    page.click("#tracks summary")
    page.fill("input[name=track-slug]", "unconstrained")
    page.fill("input[name=track-name]", "Anything")
    page.click("#add-track button[type=submit]")
    page.click("[data-track=unconstrained] button[value=track_up]")
    page.fill("[data-track=unconstrained] input[name=name]", "Unconstrained")
    page.click("[data-track=unconstrained] button[value=track_save]")
    names = page.locator(".ed-track input[name=name]")
    assert [names.nth(i).input_value() for i in range(names.count())] == ["Unconstrained", "LLM"]
    page.locator("#tracks").scroll_into_view_if_needed()
    shots(page, artifacts_dir, "editor", must_fit=False, part="#tracks")
    page.click("button.link")  # log out

    # Alice uploads a run to the LLM track.
    light, ami = tmp_path / "LIGHT.conllua", tmp_path / "AMI.conllua"
    light.write_text(world.response_text("light"), encoding="utf-8")
    ami.write_text(world.response_text("ami"), encoding="utf-8")
    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(f"{base}/competitions/{slug}/{task}/{phase}/submit/")
    page.set_input_files("input[name=file_light]", str(light))
    page.set_input_files("input[name=file_ami]", str(ami))
    page.select_option("select[name=track]", "llm")
    page.click("text=Upload and validate")
    page.wait_for_selector("#submission-status[data-status=scored]", timeout=30000)
    assert page.inner_text("#submission-track").startswith("LLM")
    shots(page, artifacts_dir, "submission", must_fit=False)  # phone layouts: issue item 7
    page.click("text=Leaderboard of this phase (LLM track)")
    assert page.inner_text("#board-track") == "LLM track"
    assert "Alpha" in page.inner_text("table")
    page.click(".lb-tracks >> text=Unconstrained track")
    assert page.inner_text("#board-track") == "Unconstrained track"
    assert "Alpha" not in page.inner_text("main")
    shots(page, artifacts_dir, "board", must_fit=False)
    page.click("button.link")

    # The organizer's phase page: the run's track and score.
    log_in(page, base, "mallory", "mallory-pw-123!")
    page.goto(f"{base}/competitions/{slug}/{task}/{phase}/organize/")
    row = page.locator("#organize-submissions tbody tr").first
    assert row.locator(".lb-track").inner_text() == "LLM"
    assert row.locator(".lb-org-score").inner_text().strip().replace(".", "").isdigit()
    shots(page, artifacts_dir, "organize", must_fit=False, part="#organize-submissions-box")

    # Deadline reminders: turned on on the teams page.
    page.goto(f"{base}/competitions/{slug}/organize/teams/")
    page.click("#reminder-setting button")
    assert "Deadline reminders are on" in page.inner_text("#reminder-setting")
    shots(page, artifacts_dir, "reminders", must_fit=False, part="#reminder-setting")
    page.click("button.link")

    # Terms in force: the data waits for them, and the Data section says so.
    page_save(competition=world.competition, kind="terms", body="Research use only.")
    editor.phase_data_attach(
        phase=world.phase,
        description="Inputs",
        upload=SimpleUploadedFile("light_input.conllu", b"# x\n"),
    )
    log_in(page, base, "bob", "bob-pw-123!")
    page.goto(f"{base}/competitions/{slug}/{task}/{phase}/")
    assert "accept the competition's terms" in page.inner_text("#data-access")
    assert page.locator("#data a:has-text('light_input.conllu')").count() == 0
    shots(page, artifacts_dir, "data-access", must_fit=False, part="#data")
