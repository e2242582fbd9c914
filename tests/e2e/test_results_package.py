"""The organizer downloads a phase's results package with one click on the organize page, at
1366 and 390 px; the zip holds the CSV and LaTeX tables of the scored runs, with a bootstrap
interval of each macro-average. Screenshots go to test-artifacts/."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest

from competition import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_organizer_downloads_the_results_package(
    browser, live_server, make_world, artifacts_dir
):
    world = make_world()
    world.competition.organizers.add(world.mallory)
    for team, user in ((world.alpha, world.alice), (world.beta, world.bob)):
        services.submission_create(
            team=team, phase=world.phase, user=user, files=world.uploads(), run_name="final"
        )
    base = live_server.url
    organize = (
        f"{base}/competitions/{world.competition.slug}/{world.task.slug}/"
        f"{world.phase.slug}/organize/"
    )
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "mallory")
    page.fill("input[name=password]", "mallory-pw-123!")
    page.click("button[type=submit]")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(organize)
        assert page.locator("#export-package").is_visible()
        page.screenshot(path=str(artifacts_dir / f"results-package-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.click("#export-package")  # a job: in-process here, done when the page opens
    with page.expect_download() as download:
        page.click("#package-download")
    archive = zipfile.ZipFile(download.value.path())
    names = set(archive.namelist())
    assert {"task.csv", "task.tex", "README.txt"} <= names
    rows = list(csv.DictReader(io.StringIO(archive.read("task.csv").decode())))
    assert sorted(r["team"] for r in rows) == ["Alpha", "Beta"]
    for row in rows:
        assert float(row["ci_low"]) <= float(row["average"]) <= float(row["ci_high"])
    assert "\\toprule" in archive.read("task.tex").decode()
    context.close()
