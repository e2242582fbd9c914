"""A CRAC edition loaded from its definition without gold keys, in a real browser: the phase
page lists its datasets, the upload form is shown disabled with the reason, the organizer
adds one dataset's key on its edit page, and the form opens."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from competition import services
from competition.models import Competition
from competition.services.publish import competition_publish_waiving
from tests.e2e.helpers import log_in, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a-long-passphrase-42"
POST_TASK = "/competitions/crac-2025/coreference/post-task/"


def login(page, base: str, username: str) -> None:
    page.context.clear_cookies()
    log_in(page, base, username, PASSWORD)


def test_an_edition_without_keys_takes_runs_once_the_organizer_adds_one(
    page, live_server, artifacts_dir
):
    users = get_user_model().objects
    users.create_user("organizer", password=PASSWORD)
    services.competition_load(
        path=ROOT / "fixtures" / "crac" / "crac-2025.yaml", with_baselines=False
    )
    competition = Competition.objects.get(slug="crac-2025")
    competition_publish_waiving(competition=competition)
    dana = users.create_user("dana", password=PASSWORD)
    services.team_create(competition=competition, name="Delta", user=dana)
    base = live_server.url

    login(page, base, "dana")
    page.goto(base + POST_TASK)
    listed = page.inner_text("main")
    assert all(name in listed for name in ("ca_ancora", "hbo_ptnk", "ko_ecmt", "tr_itcc"))
    page.goto(base + POST_TASK + "submit/")
    blocked = page.locator("#submit-blocked")
    assert blocked.get_attribute("data-code") == "no_gold_keys"
    assert "none of its datasets has a gold key" in blocked.inner_text()
    assert page.locator("fieldset.disabled-form[disabled]").count() == 1
    shot(page, artifacts_dir, "crac-2025-no-keys")

    login(page, base, "organizer")
    page.goto(f"{base}/edit/crac-2025/coreference/post-task/en_gum/")
    assert "No gold key" in page.inner_text("main")
    page.check("input[name=sc-available]")
    page.set_input_files(
        "input[name=sc-key]",
        str(ROOT / "fixtures" / "corefud" / "key" / "en_gum-corefud-test.conllu"),
    )
    page.click("#edit-subcorpus button[type=submit]")
    page.wait_for_url(f"{base}/edit/crac-2025/coreference/post-task/")
    assert "en_gum was saved" in page.inner_text("body")

    login(page, base, "dana")
    page.goto(base + POST_TASK + "submit/")
    assert page.locator("#submit-blocked").count() == 0
    assert page.locator("fieldset.disabled-form[disabled]").count() == 0
    shot(page, artifacts_dir, "crac-2025-one-key")
