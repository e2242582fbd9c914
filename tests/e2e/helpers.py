"""Small steps shared by the participant browser tests."""

from __future__ import annotations

from pathlib import Path

WIDTH = 1366
NO_OVERFLOW = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def log_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button:has-text('Log in')")
    page.wait_for_selector(f".who:has-text('{username}')")


def new_competition(page, base: str, slug: str, title: str, owner: str) -> None:
    """Staff (logged in) create a competition from the staff link: a draft, its editor open."""
    page.click("#new-competition-link")
    page.fill("input[name=slug]", slug)
    page.fill("input[name=title]", title)
    page.fill("input[name=owner]", owner)
    page.click("#new-competition button[type=submit]")
    page.wait_for_url(f"{base}/edit/{slug}/")


def log_out(page) -> None:
    page.click("button:has-text('Log out')")


def shot(page, artifacts_dir: Path, name: str) -> None:
    """A full-page screenshot at 1366 px, after checking that nothing is off-screen."""
    page.set_viewport_size({"width": WIDTH, "height": 900})
    assert page.evaluate(NO_OVERFLOW), f"{page.url} scrolls sideways at {WIDTH} px"
    page.screenshot(path=str(artifacts_dir / f"{name}.png"), full_page=True)


def part_shot(page, artifacts_dir: Path, selector: str, name: str) -> None:
    """A screenshot of one part of the page (for the guides: small images), at 1366 px."""
    page.set_viewport_size({"width": WIDTH, "height": 900})
    page.locator(selector).first.screenshot(path=str(artifacts_dir / f"part-{name}.png"))


def crac_2024_record() -> None:
    """CRAC 2024 as `make demo` loads it: published, its official results imported and its
    evaluation board frozen as the record."""
    from django.contrib.auth import get_user_model

    from competition.management.commands.demo_setup import DEFINITION_CRAC_2024, Command
    from competition.services import competition_load
    from competition.services.publish import competition_publish_waiving

    organizer = get_user_model().objects.create_user("organizer")
    loaded = competition_load(path=DEFINITION_CRAC_2024)
    competition_publish_waiving(competition=loaded.competition)
    Command().published_results(competition=loaded.competition, organizer=organizer)
