"""Editions in a real browser: an organizer clones a competition as the draft of its next
edition (dates moved a year, keys left behind), then fills a phase of the copy with the
datasets and keys of the original's phase."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.e2e.helpers import log_in, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organizer_clones_a_competition_and_copies_a_phases_datasets(
    page, live_server, make_world, artifacts_dir
):
    from django.contrib.auth import get_user_model

    from competition.models import Competition

    world = make_world()
    olga = get_user_model().objects.create_user("olga", password="olga-pw-123!")
    world.competition.organizers.add(olga)
    base = live_server.url

    log_in(page, base, "olga", "olga-pw-123!")
    page.goto(f"{base}/edit/{world.competition.slug}/")
    page.fill("#id_clone-slug", "codi-next")
    page.fill("#id_clone-title", "CODI-CRAC next")
    page.fill("#id_clone-days", "365")
    # (no full-page screenshot before the click: Chromium then misses a button this low)
    page.click("#clone-form button")
    page.wait_for_selector("text=was made as a draft copy")
    assert page.url.endswith("/edit/codi-next/")
    clone = Competition.objects.get(slug="codi-next")
    phase = clone.tasks.get().phases.get()
    assert phase.start == world.phase.start + timedelta(days=365)
    assert not phase.subcorpora.filter(available=True).exists()
    shot(page, artifacts_dir, "clone-made")

    # The copy's phase takes the original's datasets, keys included.
    phase.subcorpora.all().delete()
    page.goto(f"{base}/edit/codi-next/{world.task.slug}/{phase.slug}/")
    page.click("text=Copy the datasets of another phase")
    page.select_option("#id_copy-source", str(world.phase.pk))
    page.click("#copy-subcorpora button")
    page.wait_for_selector("text=3 sub-corpora were copied.")
    shot(page, artifacts_dir, "copy-datasets-done")
    assert sorted(phase.subcorpora.filter(available=True).values_list("slug", flat=True)) == [
        "ami",
        "light",
    ]
