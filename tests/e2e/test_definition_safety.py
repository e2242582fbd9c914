"""An organizer uploads definitions in a real browser: one whose page names a file of the
server is refused with the upload's own name and key (nothing of the server shown), one with
a gold key in the wrong format is refused saying what was expected, and a large one is loaded
by a job whose progress the page shows. Screenshots at 1366 and 390 px in test-artifacts/."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from competition import services
from competition.models import CompetitionPage, DefinitionJob
from tests.e2e.helpers import NO_OVERFLOW

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
COREFUD_KEY = ROOT / "fixtures" / "corefud" / "key" / "en_gum-corefud-test.conllu"


def log_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()


def shots(page, artifacts_dir: Path, name: str) -> None:
    """The page at 1366 and at 390 px, its content never off-screen."""
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(artifacts_dir / f"{name}-{width}.png"), full_page=True)
        assert page.evaluate(NO_OVERFLOW), f"{page.url} scrolls sideways at {width} px"
    page.set_viewport_size({"width": 1366, "height": 900})


def upload(page, archive: Path) -> None:
    page.set_input_files("input[name=definition]", str(archive))
    page.click("#upload-definition button[type=submit]")
    page.wait_for_load_state()


def test_unsafe_definitions_are_refused_and_a_large_one_is_loaded_by_a_job(
    page, live_server, tmp_path, artifacts_dir, settings
):
    get_user_model().objects.create_user("organizer", password="org-pass-123")
    services.competition_load(path=ROOT / "fixtures" / "corefud-demo.yaml", with_baselines=False)
    base = live_server.url
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, base, "organizer", "org-pass-123")
    page.goto(f"{base}/edit/corefud-demo/")
    with page.expect_download() as download:
        page.click("#download-zip")
    archive = tmp_path / "corefud-demo.zip"
    download.value.save_as(archive)
    with zipfile.ZipFile(archive) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    text = members["competition.yaml"].decode()

    # A page naming a file of the server.
    stolen = tmp_path / "stolen.zip"
    with zipfile.ZipFile(stolen, "w") as zf:
        zf.writestr(
            "competition.yaml",
            text.replace("organizers:", "pages:\n  terms: {file: /etc/passwd}\norganizers:"),
        )
    upload(page, stolen)
    error = page.locator("#upload-definition .field-error").inner_text()
    assert error == (
        "stolen.zip: pages.terms: '/etc/passwd' points outside the upload "
        "(expected a path relative to the definition, inside the zip)"
    )
    assert "root:" not in page.content()
    assert not CompetitionPage.objects.filter(kind="terms").exists()
    shots(page, artifacts_dir, "definition-refused-path")

    # A CONLL-UA task given a CorefUD key.
    wrong = tmp_path / "wrong.zip"
    with zipfile.ZipFile(wrong, "w") as zf:
        zf.writestr(
            "competition.yaml",
            text.replace("kind: corefud", "kind: identity").replace("  procedure: crac-2025\n", ""),
        )
        for name, data in members.items():
            if name != "competition.yaml":
                zf.writestr(name, data)
    upload(page, wrong)
    error = page.locator("#upload-definition .field-error").inner_text()
    assert error.startswith(
        "wrong.zip: tasks[0].phases[0].subcorpora[0]: "
        "en_gum-corefud-test.conllu is compact CONLL-U (CorefUD), but "
        "the task coreference reads exploded CONLL-UA"
    )
    shots(page, artifacts_dir, "definition-refused-key")

    # A large upload: loaded by a job, its progress on the page until it is done.
    settings.DEFINITION_JOB_BYTES = 1000
    changed = tmp_path / "changed.zip"
    with zipfile.ZipFile(changed, "w") as zf:
        for name, data in members.items():
            zf.writestr(
                name,
                data
                if name != "competition.yaml"
                else text.replace("daily_limit: 10", "daily_limit: 4").encode(),
            )
    upload(page, changed)
    assert "is being read by a job" in page.inner_text(".messages")
    row = page.locator("#definition-jobs tr[data-status]").first
    row.wait_for()
    shots(page, artifacts_dir, "definition-job")
    page.locator("#definition-jobs tr[data-status=done]").wait_for(timeout=30_000)
    assert "The definition was loaded." in page.inner_text("#definition-jobs")
    assert DefinitionJob.objects.get().status == "done"
    shots(page, artifacts_dir, "definition-job-done")
