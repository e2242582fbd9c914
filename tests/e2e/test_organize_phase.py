"""The organizer's phase page in a real browser at 1366 and 1920 px: every action of the
submissions table is reachable without scrolling sideways; Disqualify works; Re-score phase
returns at once and shows n of m runs re-scored until done; the final runs download as a zip
with the responses and scores.csv. Screenshots go to test-artifacts/."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest

from competition import services
from competition.models import Submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OVERFLOW = """() => {
  const width = window.innerWidth;
  const wide = [...document.querySelectorAll('*')].filter(el => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.right > width + 0.5;
  }).map(el => el.tagName + (el.id ? '#' + el.id : '') + '.' + el.className);
  const scrollers = [...document.querySelectorAll('.lb-scroll')]
    .filter(el => el.scrollWidth > el.clientWidth).map(el => el.className);
  return {page: document.documentElement.scrollWidth, width, wide, scrollers};
}"""


def _runs(world, count: int) -> list[Submission]:
    runs = []
    for n in range(count):
        team, user = (world.alpha, world.alice) if n % 2 == 0 else (world.beta, world.bob)
        runs.append(
            services.submission_create(
                team=team,
                phase=world.phase,
                user=user,
                files=world.uploads(),
                run_name=f"xlm-roberta-large-finetuned-on-everything-{n}",
            )
        )
    return runs


def _check_fits(page):
    fit = page.evaluate(OVERFLOW)
    assert fit["page"] <= fit["width"], fit
    assert fit["wide"] == [] and fit["scrollers"] == [], fit
    for button in page.locator("#organize-submissions button").all():
        box = button.bounding_box()
        assert box is not None and box["x"] + box["width"] <= fit["width"], box


def test_organizer_page_fits_disqualifies_rescores_with_progress_and_exports(
    browser, live_server, make_world, artifacts_dir
):
    world = make_world()
    world.phase.daily_limit = 20
    world.phase.save()
    organizer = world.mallory
    world.competition.organizers.add(organizer)
    runs = _runs(world, 6)
    base = live_server.url
    organize = (
        f"{base}/competitions/{world.competition.slug}/{world.task.slug}/"
        f"{world.phase.slug}/organize/"
    )
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(90_000)  # on a loaded 2-core machine the in-process re-score
    # thread and the server's requests share one SQLite file and both cores
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "mallory")
    page.fill("input[name=password]", "mallory-pw-123!")
    page.click("button[type=submit]")

    for width in (1920, 1366):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(organize)
        _check_fits(page)
        page.screenshot(path=str(artifacts_dir / f"organize-phase-{width}.png"), full_page=True)

    # Disqualify the first run, with a reason, at 1366 px.
    target = runs[0]
    row = page.locator(f"#organize-submissions tr[data-submission='{target.pk}']")
    row.locator("input[name=reason]").fill("Trained on the test set")
    row.locator("button[value=disqualify]").click()
    page.wait_for_selector(f"text=Submission #{target.pk} disqualified")
    target.refresh_from_db()
    assert target.disqualified and target.disqualified_reason == "Trained on the test set"
    _check_fits(page)

    # Re-score the phase: the page answers at once with the progress, which ends at m of m.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button[value=rescore]")
    page.wait_for_url("**/organize/rescore/*/")
    total = int(page.inner_text("#rescore-total"))
    assert total == 6
    page.locator("#rescore-state:has-text('Done.')").wait_for(timeout=120_000)
    assert page.inner_text("#rescore-done") == "6"
    assert page.evaluate("document.getElementById('rescore-bar').value") == 6
    _check_fits(page)
    page.screenshot(path=str(artifacts_dir / "organize-rescore-progress.png"), full_page=True)
    for run in runs:
        assert run.runs.count() == 2

    # The bulk export: responses and scores.csv of the final runs.
    page.goto(organize)
    with page.expect_download() as download:
        page.click("#export-final")
    archive = zipfile.ZipFile(download.value.path())
    names = archive.namelist()
    assert "scores.csv" in names and "MANIFEST.csv" in names
    rows = list(csv.DictReader(io.StringIO(archive.read("scores.csv").decode())))
    primary = {(r["team"], r["subcorpus"]) for r in rows if r["primary"] == "yes"}
    assert primary == {("Alpha", "light"), ("Alpha", "ami"), ("Beta", "light"), ("Beta", "ami")}
    responses = sorted(n for n in names if n.endswith(".CONLLUA"))
    assert len(responses) == 4  # the final run of each team, one file per sub-corpus
    # Each file as uploaded, under the name it was uploaded with; the manifest says whose.
    manifest = {
        r["file"]: r for r in csv.DictReader(io.StringIO(archive.read("MANIFEST.csv").decode()))
    }
    assert manifest[responses[0]]["uploaded_as"] == responses[0].rsplit("/", 1)[1]
    assert archive.read(responses[0]).decode() == world.response_text(
        manifest[responses[0]]["subcorpus"]
    )
