"""A CRAC-2026-shaped task end to end (without system cards): the 2026 definition loaded,
the organizer adds a dataset's key and a third track in the browser, two teams submit on
both tracks from the web and from `codicrac`, each board ranks its own runs, and the
organizer's export holds one final run per team and track, files as uploaded."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from client.main import main as codicrac
from competition import services
from competition.models import Competition
from competition.services.publish import competition_publish_waiving
from tests.e2e.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
GUM = ROOT / "fixtures" / "corefud"
PASSWORD = "a-long-passphrase-42"
POST = "/competitions/crac-2026/coreference/post-task/"


def login(page, base: str, username: str) -> None:
    page.context.clear_cookies()
    log_in(page, base, username, PASSWORD)


def cli_login(monkeypatch, base: str, username: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert codicrac(["login", "--server", base, "--username", username, "--password-stdin"]) == 0


def test_two_teams_on_two_tracks_from_the_web_and_the_cli(
    page, live_server, tmp_path, monkeypatch, artifacts_dir
):
    monkeypatch.setenv("CODICRAC_CONFIG", str(tmp_path / "cli" / "config.json"))
    users = get_user_model().objects
    users.create_user("organizer", password=PASSWORD)
    services.competition_load(
        path=ROOT / "fixtures" / "crac" / "crac-2026.yaml", with_baselines=False
    )
    competition = Competition.objects.get(slug="crac-2026")
    competition_publish_waiving(competition=competition)  # the operator publishes it
    for name, team in (("dana", "Delta"), ("eli", "Echo")):
        services.team_create(
            competition=competition, name=team, user=users.create_user(name, password=PASSWORD)
        )
    phase = competition.tasks.get().phases.get(slug="post-task")
    base = live_server.url
    page.set_viewport_size({"width": 1366, "height": 900})

    # The organizer adds en_gum's key on the post-task phase.
    login(page, base, "organizer")
    page.goto(f"{base}/edit/crac-2026/coreference/post-task/en_gum/")
    page.check("input[name=sc-available]")
    page.set_input_files("input[name=sc-key]", str(GUM / "key" / "en_gum-corefud-test.conllu"))
    page.click("#edit-subcorpus button[type=submit]")
    page.wait_for_url(f"{base}/edit/crac-2026/coreference/post-task/")

    # Delta: the LLM track from the web, under the official file name.
    run = tmp_path / "en_gum-corefud-minitest.conllu"
    run.write_bytes((GUM / "string-match" / "en_gum-corefud-test.conllu").read_bytes())
    login(page, base, "dana")
    page.goto(base + POST + "submit/")
    page.set_input_files("input[name=file_en_gum]", str(run))
    page.select_option("select[name=track]", "llm")
    page.click("text=Upload and validate")
    page.wait_for_selector("#submission-status[data-status=scored]", timeout=60000)
    assert page.inner_text("#submission-track").startswith("LLM")

    # Delta again on the unconstrained track, and Echo on the LLM track, from the CLI.
    cli_login(monkeypatch, base, "dana")
    assert (
        codicrac(
            [
                "submit",
                "--phase",
                str(phase.pk),
                "--track",
                "Unconstrained",
                "--wait",
                "--timeout",
                "60",
                str(run),
            ]
        )
        == 0
    )
    cli_login(monkeypatch, base, "eli")
    assert codicrac(["validate", "--phase", str(phase.pk), str(run)]) == 0
    assert (
        codicrac(
            [
                "submit",
                "--phase",
                str(phase.pk),
                "--track",
                "llm",
                "--wait",
                "--timeout",
                "60",
                str(run),
            ]
        )
        == 0
    )

    # Each board ranks its own track's runs.
    page.goto(base + POST + "leaderboard/?track=llm")
    llm = page.inner_text("table")
    assert "Delta" in llm and "Echo" in llm
    page.goto(base + POST + "leaderboard/?track=unconstrained")
    assert page.inner_text("#board-track") == "Unconstrained track"
    free = page.inner_text("table")
    assert "Delta" in free and "Echo" not in free
    variants = page.inner_text("#variants")
    assert "MOR" in variants and "Zeros" not in variants  # en_gum has no zeros
    page.screenshot(path=str(artifacts_dir / "crac-2026-unconstrained-board.png"), full_page=True)

    # The organizer's export: one final run per team and track, files as uploaded.
    login(page, base, "organizer")
    page.goto(base + POST + "organize/")
    with page.expect_download() as download:
        page.click("#export-final")
    archive = zipfile.ZipFile(download.value.path())
    manifest = list(csv.DictReader(io.StringIO(archive.read("MANIFEST.csv").decode())))
    assert sorted((row["team"], row["track"]) for row in manifest) == [
        ("Delta", "llm"),
        ("Delta", "unconstrained"),
        ("Echo", "llm"),
    ]
    assert {row["uploaded_as"] for row in manifest} == {"en_gum-corefud-minitest.conllu"}
    member = next(row["file"] for row in manifest if row["track"] == "unconstrained")
    assert archive.read(member) == run.read_bytes()
