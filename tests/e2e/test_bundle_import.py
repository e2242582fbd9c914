"""Staff import a CodaLab bundle in a real browser: from "New competition", "Import a
bundle", upload the zip, and read what was imported, proposed and not imported; the draft
opens in the editor. A hostile bundle is refused on the form, naming its member. A large
Codabench bundle is imported by a job: the request returns at once, the job's page shows its
progress while the site answers other pages, then the report.
Screenshots at 1366 px and 390 px in test-artifacts/."""

from __future__ import annotations

import io
import random
import zipfile

import pytest
from django.contrib.auth import get_user_model

from competition.definition.upload import definition_job_bytes
from competition.models import Competition, DefinitionJob, Submission
from tests.competition.bundles import published
from tests.competition.bundles.builders import codalab_bundle
from tests.competition.bundles.test_bundle_results import CODALAB_CSV
from tests.e2e.helpers import NO_OVERFLOW, log_in

MAIN_FITS = (
    "() => [...document.querySelectorAll('main *')].every("
    "e => e.getBoundingClientRect().right <= window.innerWidth + 1)"
)
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shots(page, artifacts_dir, name: str) -> None:
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(artifacts_dir / f"{name}-{width}.png"), full_page=True)
        # The page's own content fits; the site header's staff links at 390 px are the
        # header's (the same on every page for staff), not this page's.
        assert page.evaluate(MAIN_FITS), f"{page.url}: the content is wider than {width} px"
        if width == 1366:
            assert page.evaluate(NO_OVERFLOW), f"{page.url} scrolls sideways at {width} px"
    page.set_viewport_size({"width": 1366, "height": 900})


def test_staff_import_a_bundle_into_a_draft(page, live_server, tmp_path, artifacts_dir):
    User = get_user_model()
    User.objects.create_user("admin", password="admin-pass-123", is_staff=True)
    User.objects.create_user("olga", password="olga-pass-123")
    bundle = tmp_path / "corefud-codalab.zip"
    bundle.write_bytes(codalab_bundle())
    hostile = tmp_path / "hostile.zip"
    buffer = io.BytesIO(codalab_bundle())
    with zipfile.ZipFile(buffer, "a") as zf:
        zf.writestr("../escape.txt", b"x")
    hostile.write_bytes(buffer.getvalue())
    base = live_server.url
    log_in(page, base, "admin", "admin-pass-123")
    page.goto(f"{base}/new-competition/")
    page.click("#import-bundle-link")
    page.wait_for_selector("h1:has-text('Import a bundle')")
    shots(page, artifacts_dir, "bundle-form")

    page.set_input_files("input[name=bundle]", str(hostile))
    page.fill("input[name=owner]", "olga")
    page.click("#import-bundle button[type=submit]")
    error = page.locator(".form-errors")
    error.wait_for()
    assert "hostile.zip" in error.inner_text() and "'../escape.txt'" in error.inner_text()
    assert not Competition.objects.exists()
    shots(page, artifacts_dir, "bundle-refused")

    page.set_input_files("input[name=bundle]", str(bundle))
    page.fill("input[name=owner]", "olga")
    page.fill("input[name=slug]", "corefud-old")
    page.click("#import-bundle button[type=submit]")
    page.wait_for_selector("h1:has-text('Bundle imported')")
    imported = page.locator("#bundle-imported").inner_text()
    assert "recognised as the CorefUD scorer" in imported
    assert "input data input_dev.zip: participant data" in imported
    assert "proposed from the next phase's start" in page.locator("#bundle-proposed").inner_text()
    missing = page.locator("#bundle-not-imported").inner_text()
    assert "3f2b4c1a-9d8e-4f7a-b6c5-1234567890ab" in missing and "MRR" in missing
    assert "ingestion_program" in missing
    shots(page, artifacts_dir, "bundle-imported")

    results = tmp_path / "results-development.csv"
    results.write_text(CODALAB_CSV, encoding="utf-8")
    page.click("#import-results-link")
    page.wait_for_selector("h1:has-text('Import results')")
    page.select_option("select[name=phase]", label="CorefUD shared task (old server): Development")
    page.set_input_files("input[name=results]", str(results))
    page.fill("input[name=source]", "CodaLab competition 1234, results of Development")
    page.click("#import-results button[type=submit]")
    page.wait_for_selector("#results-imported")
    assert "Imported 2 published results" in page.locator("#results-imported").inner_text()
    assert "MRR" in page.locator("#results-imported").inner_text()
    assert Submission.objects.filter(is_reference=True).count() == 2
    shots(page, artifacts_dir, "bundle-results")
    # A column the import cannot place: the mapping, then "apply anyway".
    results.write_text(
        'submission_pk,User,CoNLL F1,Accuracy\n815,team-oslo,"58.10 (1)","0.91 (1)"\n',
        encoding="utf-8",
    )
    page.select_option("select[name=phase]", label="CorefUD shared task (old server): Development")
    page.set_input_files("input[name=results]", str(results))
    page.fill("input[name=source]", "CodaLab competition 1234, late entries")
    page.click("#import-results button[type=submit]")
    page.wait_for_selector("#results-unmapped")
    mapping = page.locator("#results-unmapped").inner_text()
    assert "Accuracy" in mapping and "nor a metric the scorer computes" in mapping
    shots(page, artifacts_dir, "bundle-results-unmapped")
    page.click("#apply-anyway button[type=submit]")
    page.wait_for_selector("#results-imported")
    assert "Imported 1 published results" in page.locator("#results-imported").inner_text()
    assert Submission.objects.filter(is_reference=True).count() == 3
    page.goto(f"{base}/edit/corefud-old/")
    page.wait_for_load_state()
    assert "/edit/corefud-old/" in page.url
    assert Competition.objects.get(slug="corefud-old").tasks.get().phases.count() == 2


def large_codabench_bundle(parts: int, *, kit_bytes: int = 0) -> bytes:
    """A CRAC organizer's Codabench bundle (`published.codabench_crac`'s layout) with
    ``parts`` datasets in each phase, so that reading its keys takes a while, and a starting
    kit of ``kit_bytes`` that do not compress (a trained baseline model, say)."""
    members = {
        "competition.yaml": published.CODABENCH_CRAC_YAML.replace(
            "en_gum CoNLL F1", "en_part1 CoNLL F1"
        ).encode(),
        "scoring_program/metadata.yaml": b"command: python3 $program/corefud-scorer.py a b\n",
        "scoring_program/corefud-scorer.py": b"# never run\n",
        "pages/terms.md": b"# Terms\n\nResearch use only.\n",
        "pages/overview.md": b"# Overview\n",
        "pages/evaluation.md": b"# Evaluation\n",
        "pages/timeline.md": b"# Timeline\n",
        "starting_kit/README.md": b"One file per dataset.\n",
        "starting_kit/baseline-model.bin": random.Random(38).randbytes(kit_bytes),
        "public_data/README.md": b"See the CorefUD site.\n",
    }
    for index in range(1, parts + 1):
        for split, folder in (("dev", "dev_phase"), ("test", "final_phase")):
            name = f"{folder}/reference_data/en_part{index}-corefud-{split}.conllu"
            # Each its own file (a key read once is not read again).
            members[name] = published.GUM_KEY.replace(
                b"# newdoc id = ", f"# newdoc id = {split}{index}-".encode()
            )
    return published.folder_zip(members)


@pytest.mark.slow
def test_a_large_bundle_is_imported_by_a_job_with_its_progress(
    page, live_server, tmp_path, artifacts_dir
):
    User = get_user_model()
    User.objects.create_user("admin", password="admin-pass-123", is_staff=True)
    User.objects.create_user("olga", password="olga-pass-123")
    bundle = tmp_path / "crac-codabench.zip"
    bundle.write_bytes(large_codabench_bundle(12, kit_bytes=38 * 1024 * 1024))
    # 40 MB: above the size a definition upload is loaded in the request (32 MiB).
    assert bundle.stat().st_size > 40_000_000 > definition_job_bytes()
    base = live_server.url
    log_in(page, base, "admin", "admin-pass-123")
    page.goto(f"{base}/new-competition/bundle/")
    page.set_input_files("input[name=bundle]", str(bundle))
    page.fill("input[name=owner]", "olga")
    page.click("#import-bundle button[type=submit]")
    page.wait_for_url("**/new-competition/bundle/job/*/")
    # The request only kept the upload: the job runs on, and the page says how far it is.
    progress = page.locator("#bundle-job-progress")
    progress.wait_for()
    first = progress.inner_text()
    assert first.startswith(("Waiting for a worker", "Loading")), first
    shots(page, artifacts_dir, "bundle-job-progress")
    # Meanwhile the site serves other pages.
    other = page.context.new_page()
    other.goto(f"{base}/new-competition/bundle/")
    assert other.locator("h1").inner_text() == "Import a bundle"
    other.close()
    texts = {first}
    for _ in range(600):
        if page.locator("#bundle-job[data-status=done], #bundle-job[data-status=failed]").count():
            break
        if progress.count():
            texts.add(progress.inner_text())
        page.wait_for_timeout(100)
    assert page.locator("#bundle-job").get_attribute("data-status") == "done", page.locator(
        "#bundle-job"
    ).inner_text()
    assert any("Loading" in text for text in texts), texts  # seen while it ran
    job = DefinitionJob.objects.get()
    assert job.competition.slug == "crac-2026-shared-task"
    assert (
        "draft competition crac-2026-shared-task" in page.locator("#bundle-job-done").inner_text()
    )
    imported = page.locator("#bundle-imported").inner_text()
    assert "12 gold keys" in imported and "phases[0].end" in imported
    assert "no exact equivalent" not in page.locator("#bundle-proposed").inner_text()
    shots(page, artifacts_dir, "bundle-job-done")
    page.click("text=Open the editor")
    page.wait_for_url(f"{base}/edit/crac-2026-shared-task/")
