"""A CorefUD upload in a real browser: a team sends a zip of .conllu files named as the
datasets' release names, for two of three datasets, in the LLM track, to the post-task phase
(the evaluation is over); the run is scored and ranked on the LLM track's post-task board,
its skipped dataset shown as missing. One of its files carries a misspelt ``Entitty=``
attribute: the run is accepted all the same, and its page warns about that file and line."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from competition import services
from competition.services.publish import competition_publish_waiving

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def test_a_team_uploads_a_corefud_zip_and_finds_its_run_on_its_tracks_board(
    page, live_server, tmp_path, artifacts_dir
):
    get_user_model().objects.create_user("organizer")
    services.competition_load(path=ROOT / "fixtures" / "corefud-demo.yaml", with_baselines=False)
    from competition.models import Competition

    competition = Competition.objects.get(slug="corefud-demo")
    competition_publish_waiving(competition=competition)
    user = get_user_model().objects.create_user("dana", password="a-long-passphrase-42")
    services.team_create(competition=competition, name="Delta", user=user)

    archive = tmp_path / "run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for dataset, run in (("en_gum", "string-match"), ("en_ami", "previous")):
            source = ROOT / "fixtures" / "corefud" / run / f"{dataset}-corefud-test.conllu"
            text = source.read_text(encoding="utf-8")
            if dataset == "en_ami":
                text, misspelt_line = with_misspelt_attribute(text)
            zf.writestr(f"system-output/{dataset}-corefud-test.conllu", text)

    base = live_server.url
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "dana")
    page.fill("input[name=password]", "a-long-passphrase-42")
    page.click("button[type=submit]")
    page.goto(f"{base}/competitions/corefud-demo/coreference/post-task/submit/")
    page.set_input_files("input[name=archive]", str(archive))
    page.select_option("select[name=track]", "llm")
    page.fill("input[name=run_name]", "corpipe-lite")
    page.screenshot(path=str(artifacts_dir / "corefud-submit.png"), full_page=True)
    page.click("text=Upload and validate")
    page.wait_for_url(re.compile(r".*/submissions/\d+/$"), timeout=90_000)
    page.locator("#submission-status[data-status=scored]").wait_for(timeout=90_000)
    submission_id = int(re.search(r"/submissions/(\d+)/", page.url).group(1))
    warnings = page.locator("#upload-warnings")
    assert f"en_ami-corefud-test.conllu:{misspelt_line}" in warnings.inner_text()
    assert "'Entitty' looks like a misspelt 'Entity'" in warnings.inner_text()
    page.screenshot(path=str(artifacts_dir / "corefud-upload-warning-1366.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(artifacts_dir / "corefud-upload-warning-390.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})

    page.goto(f"{base}/competitions/corefud-demo/coreference/post-task/leaderboard/?track=llm")
    row = page.locator(f"#leaderboard tr[data-submission='{submission_id}']")
    row.wait_for()
    assert "Delta" in row.inner_text() and row.locator(".lb-rank").inner_text() == "1"
    assert row.locator("td.lb-missing").count() == 1  # the zeros dataset was skipped
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    page.screenshot(path=str(artifacts_dir / "corefud-board-upload.png"), full_page=True)
    page.goto(
        f"{base}/competitions/corefud-demo/coreference/post-task/leaderboard/?track=unconstrained"
    )
    assert page.locator(f"#leaderboard tr[data-submission='{submission_id}']").count() == 0


def with_misspelt_attribute(text: str) -> tuple[str, int]:
    """``text`` with ``Entitty=`` in the MISC of its first token line without one, and that
    line's number."""
    lines = text.split("\n")
    number = next(i for i, line in enumerate(lines) if line[:1].isdigit() and line.endswith("\t_"))
    lines[number] = lines[number][:-1] + "Entitty=(e900-person-1-)"
    return "\n".join(lines), number + 1
