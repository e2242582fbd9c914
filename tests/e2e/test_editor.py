"""The organizers' editor in a real browser: staff create a competition for its owner, who
adds a task, a phase with an AoE deadline and a sub-corpus with its uploaded key; a
participant sees the deadline in AoE and submits. The owner downloads the definition zip and
uploads it back, changed. Data attached to a phase is downloaded by participants once
released, and not before. Screenshots at 1366 px in test-artifacts/."""

from __future__ import annotations

import re
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from competition import services
from competition.definition import editor
from competition.models import Competition, Phase, PhaseDataFile, SubCorpus
from tests.conftest import KEY_DOCS, RESPONSE_DOCS, conllua

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
WIDTH = 1366


def log_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()


def fits(page) -> None:
    """Nothing off-screen at 1366 px: no horizontal scrolling."""
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH


def shot(page, artifacts_dir: Path, name: str, *, part: str | None = None) -> None:
    """The whole page; with ``part``, also that element alone (``doc-<name>.png``, the
    pictures of docs/organizers.md)."""
    fits(page)
    page.screenshot(path=str(artifacts_dir / f"{name}.png"), full_page=True)
    if part is not None:
        page.locator(part).screenshot(path=str(artifacts_dir / f"doc-{name}.png"))


def test_an_organizer_builds_a_competition_and_a_participant_submits(
    page, live_server, tmp_path, artifacts_dir
):
    User = get_user_model()
    User.objects.create_user("admin", password="admin-pass-123", is_staff=True)
    User.objects.create_user("olga", password="olga-pass-123")
    User.objects.create_user("dana", password="dana-pass-123")
    key = tmp_path / "light_gold.conllua"
    key.write_text(conllua(KEY_DOCS["light"]), encoding="utf-8")
    response = tmp_path / "LIGHT.CONLLUA"
    response.write_text(conllua(RESPONSE_DOCS["light"]), encoding="utf-8")
    base = live_server.url
    page.set_viewport_size({"width": WIDTH, "height": 900})

    # Staff create the competition and name its owner.
    log_in(page, base, "admin", "admin-pass-123")
    page.click("#new-competition-link")
    page.fill("input[name=slug]", "crac-2026")
    page.fill("input[name=title]", "CRAC 2026 shared task")
    page.fill("input[name=owner]", "olga")
    shot(page, artifacts_dir, "editor-new-competition")
    page.click("#new-competition button[type=submit]")
    page.wait_for_url(f"{base}/edit/crac-2026/")
    page.click("button.link")  # log out

    # The owner adds a task, a phase with an AoE deadline, and a sub-corpus with its key.
    log_in(page, base, "olga", "olga-pass-123")
    page.goto(f"{base}/competitions/crac-2026/")
    page.click("#edit-competition")
    page.fill("input[name=task-slug]", "identity")
    page.fill("input[name=task-title]", "Identity anaphora")
    page.select_option("select[name=task-kind]", "identity")
    page.click("#add-task button[type=submit]")
    page.wait_for_url(f"{base}/edit/crac-2026/identity/")
    end = timezone.now() + timedelta(days=30)
    page.fill("input[name=phase-slug]", "test")
    page.fill("input[name=phase-title]", "Evaluation")
    page.select_option("select[name=phase-kind]", "test_predicted")
    assert page.input_value("select[name=phase-time_zone]") == "AoE"
    page.fill("input[name=phase-start]", "2026-01-01T00:00")
    page.fill("input[name=phase-end]", f"{end:%Y-%m-%d}T23:59")
    page.fill("input[name=phase-daily_limit]", "3")
    shot(page, artifacts_dir, "editor-add-phase", part="#phases")
    page.click("#add-phase button[type=submit]")
    page.wait_for_url(f"{base}/edit/crac-2026/identity/test/")
    phase = Phase.objects.get(slug="test")
    assert phase.time_zone == "AoE" and phase.daily_limit == 3
    assert (phase.end.hour, phase.end.minute) == (11, 59)  # 23:59 AoE is 11:59 UTC next day

    # A broken key is refused with its file and line; the right one is stored.
    broken = tmp_path / "broken_gold.conllua"
    broken.write_text(
        conllua(KEY_DOCS["light"]).replace("(EntityID=1|MarkableID=markable_1|Min=1", "_", 1),
        encoding="utf-8",
    )
    page.fill("input[name=sc-name]", "LIGHT")
    page.set_input_files("input[name=sc-key]", str(broken))
    page.click("#add-subcorpus button[type=submit]")
    error = page.locator("#add-subcorpus .field-error")
    assert re.match(r"broken_gold\.conllua:\d+: document 'light_1'", error.inner_text())
    assert not SubCorpus.objects.exists()
    shot(page, artifacts_dir, "editor-key-refused", part="#subcorpora")
    page.fill("input[name=sc-name]", "LIGHT")
    page.set_input_files("input[name=sc-key]", str(key))
    page.click("#add-subcorpus button[type=submit]")
    page.locator("tr[data-subcorpus=light]").wait_for()
    assert "2 documents" in page.locator("tr[data-subcorpus=light]").inner_text()
    shot(page, artifacts_dir, "editor-phase")

    # The owner publishes the draft: its pages and terms are waived on the checklist.
    page.goto(f"{base}/competitions/crac-2026/organize/publish/")
    page.check("input[name=waive][value=pages]")
    page.check("input[name=waive][value=terms]")
    page.click("#publish-button")
    page.wait_for_url(f"{base}/competitions/crac-2026/")
    page.click("button.link")

    # A participant sees the phase, its AoE deadline, and submits.
    log_in(page, base, "dana", "dana-pass-123")
    page.goto(f"{base}/competitions/crac-2026/team/")
    page.fill("input[name=create-name]", "Delta")
    page.click("form:has(input[name=create-name]) button[type=submit]")
    page.goto(f"{base}/competitions/crac-2026/")
    assert f"{end:%Y-%m-%d} 23:59 AoE (UTC−12)" in page.inner_text("main")
    assert page.locator("#edit-competition").count() == 0
    page.click("text=Evaluation")
    assert page.inner_text("#phase-end") == f"{end:%Y-%m-%d} 23:59 AoE (UTC−12)"
    shot(page, artifacts_dir, "phase-page")
    page.click("a.button:has-text('Submit')")
    page.set_input_files("input[name=file_light]", str(response))
    page.click("text=Upload and validate")
    page.wait_for_url(re.compile(r".*/submissions/\d+/$"), timeout=90_000)
    page.locator("#submission-status[data-status=scored]").wait_for(timeout=90_000)
    assert page.goto(f"{base}/edit/crac-2026/").status == 404  # not hers to edit


def test_an_organizer_downloads_the_definition_zip_and_uploads_it_changed(
    page, live_server, tmp_path, artifacts_dir
):
    get_user_model().objects.create_user("organizer", password="org-pass-123")
    services.competition_load(path=ROOT / "fixtures" / "corefud-demo.yaml", with_baselines=False)
    base = live_server.url
    page.set_viewport_size({"width": WIDTH, "height": 900})
    log_in(page, base, "organizer", "org-pass-123")
    page.goto(f"{base}/edit/corefud-demo/")
    shot(page, artifacts_dir, "editor-competition")
    with page.expect_download() as download:
        page.click("#download-zip")
    archive = tmp_path / "corefud-demo.zip"
    download.value.save_as(archive)
    with zipfile.ZipFile(archive) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    assert "competition.yaml" in members and len(members) == 4  # the YAML and three keys

    # Changed: a new title and a tighter daily limit; a path out of the zip is refused.
    text = members["competition.yaml"].decode()
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr(
            "competition.yaml",
            text.replace("keys/coreference/test/en_gum-corefud-test.conllu", "../../../etc/passwd"),
        )
    page.set_input_files("input[name=definition]", str(bad))
    page.click("#upload-definition button[type=submit]")
    error = page.locator("#upload-definition .field-error").inner_text()
    assert error.startswith(
        "bad.zip: tasks[0].phases[0].subcorpora[0].key: "
        "'../../../etc/passwd' points outside the upload"
    )
    shot(page, artifacts_dir, "editor-definition-refused", part="#definition")

    members["competition.yaml"] = (
        text.replace("daily_limit: 10", "daily_limit: 4")
        .replace("title: CorefUD demo", "title: CorefUD 2027")
        .encode()
    )
    changed = tmp_path / "changed.zip"
    with zipfile.ZipFile(changed, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    page.set_input_files("input[name=definition]", str(changed))
    page.click("#upload-definition button[type=submit]")
    page.locator(".message.success").wait_for()
    assert "The definition was loaded." in page.inner_text(".messages")
    competition = Competition.objects.get(slug="corefud-demo")
    assert competition.title.startswith("CorefUD 2027")
    assert Phase.objects.get(slug="test").daily_limit == 4
    assert SubCorpus.objects.count() == 6  # three datasets in each of the two phases
    shot(page, artifacts_dir, "editor-definition-loaded")


def test_data_is_downloaded_once_released_and_not_before(
    page, live_server, tmp_path, artifacts_dir, make_world
):
    world = make_world()
    world.competition.organizers.add(world.bob)
    base = live_server.url
    phase_path = f"{world.competition.slug}/{world.task.slug}/{world.phase.slug}"
    dev = tmp_path / "light_dev_inputs.conllua"
    dev.write_text("# newdoc id = light_dev\n1\tthe\t_\n", encoding="utf-8")
    gold_mentions = tmp_path / "light_test_gold_mentions.conllua"
    gold_mentions.write_text("# newdoc id = light_test\n1\tthe\t(M1)\n", encoding="utf-8")
    release = timezone.now() + timedelta(days=2)
    page.set_viewport_size({"width": WIDTH, "height": 900})

    light = world.phase.subcorpora.get(slug="light")
    editor.subcorpus_save(
        phase=world.phase,
        subcorpus=light,
        name="LIGHT",
        key=(SimpleUploadedFile("light.conllua", light.key_path.read_bytes())),
    )
    copy = tmp_path / "light_copy.conllua"
    copy.write_bytes(light.key_path.read_bytes())

    log_in(page, base, "bob", "bob-pw-123!")
    page.goto(f"{base}/edit/{phase_path}/")
    # A copy of a gold key is refused.
    page.set_input_files("input[name=data-file]", str(copy))
    page.click("#attach-data button[type=submit]")
    assert "identical to the gold key of" in page.inner_text("#attach-data .field-error")
    assert not PhaseDataFile.objects.exists()

    page.set_input_files("input[name=data-file]", str(dev))
    page.fill("input[name=data-description]", "Development inputs")
    page.click("#attach-data button[type=submit]")
    page.locator("tr[data-file='light_dev_inputs.conllua']").wait_for()
    page.click("#data details.ed-add summary")
    page.set_input_files("input[name=data-file]", str(gold_mentions))
    page.fill("input[name=data-description]", "Gold mentions")
    page.fill("input[name=data-release_at]", f"{release:%Y-%m-%dT%H:%M}")
    page.click("#attach-data button[type=submit]")
    row = page.locator("tr[data-file='light_test_gold_mentions.conllua']")
    row.wait_for()
    assert "not yet" in row.inner_text()
    page.locator("#data").scroll_into_view_if_needed()
    shot(page, artifacts_dir, "editor-data", part="#data")
    page.click("button.link")

    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(f"{base}/competitions/{phase_path}/")
    assert page.locator("#data tr[data-file='light_dev_inputs.conllua']").count() == 1
    assert page.locator("#data tr[data-file='light_test_gold_mentions.conllua']").count() == 0
    shot(page, artifacts_dir, "phase-data", part="main")
    with page.expect_download() as download:
        page.click("text=light_dev_inputs.conllua")
    assert Path(download.value.path()).read_text(encoding="utf-8") == dev.read_text()
    hidden = PhaseDataFile.objects.get(file_name="light_test_gold_mentions.conllua")
    assert page.goto(f"{base}/data/{hidden.pk}/{hidden.file_name}").status == 404

    # The release time comes.
    hidden.release_at = timezone.now() - timedelta(minutes=1)
    hidden.save()
    page.goto(f"{base}/competitions/{phase_path}/")
    with page.expect_download() as download:
        page.click("text=light_test_gold_mentions.conllua")
    assert Path(download.value.path()).read_text(encoding="utf-8") == gold_mentions.read_text()
