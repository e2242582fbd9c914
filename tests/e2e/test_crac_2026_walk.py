"""A CRAC-2026-shaped task built and run in the browser, end to end.

Staff create the competition for its owner, who builds the rest in the editor: a CorefUD
task scored as CRAC 2026, its LLM and unconstrained tracks, a minitest phase with two
datasets and their gold keys uploaded, a minidev phase with the same datasets copied, the
CRAC system-card questions required for final runs, terms, team approval, and publishing.
Two teams accept the terms and are approved; Delta submits on both tracks from the web
submit page, answering the card there, and Echo from `codicrac` (the phase id read from the
phase page, the card filled in from `codicrac card-template` and sent with `--card`). Each
track's board names its track and shows both teams with their cards; the organizer's export
holds one ranked run per team and track, files under the names and with the bytes they
were uploaded with, and their cards. Screenshots at 1366 and 390 px in test-artifacts/
(crac26-walk-*); no page visited scrolls sideways at 390 px.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from client.main import main as codicrac
from tests.e2e.helpers import log_in, new_competition

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
COREFUD = ROOT / "fixtures" / "corefud"
PASSWORD = "a-long-passphrase-42"
SLUG = "crac-2026"
TITLE, TASK = "CODI-CRAC 2026 Shared Task", "Multilingual coreference resolution"
PHASE = f"/competitions/{SLUG}/coreference/minitest/"
WIDE, PHONE = 1366, 390
# What reaches past the right edge, outside the tables' own scrolling boxes (for the message).
WIDEST = """() => [...document.querySelectorAll('body *')]
    .filter(e => !e.closest('.lb-scroll, .table-wrap')
                 && e.getBoundingClientRect().right > window.innerWidth + 0.5)
    .slice(0, 6).map(e => e.tagName + '.' + e.className + '#' + e.id)"""
# The words of the board's system-card cells that wrap inside themselves ("mode l").
SPLIT_WORDS = """() => [...document.querySelectorAll('#leaderboard .lb-card')].flatMap(cell =>
    [...cell.textContent.matchAll(/[^\\s-]+-?/g)].filter(word => {
        const range = document.createRange(), text = cell.firstChild;
        range.setStart(text, word.index);
        range.setEnd(text, word.index + word[0].length);
        return range.getClientRects().length > 1;
    }).map(word => word[0]))"""
# Delta's system cards, answered on the submit page, by track.
DELTA_CARDS = {
    "llm": {
        "llm": "yes",
        "base-model": "Llama 3.1 (8B)",
        "parameters": "8B",
        "adaptation": "few-shot",
        "external-data": "none",
        "weights-licence": "Llama 3.1 Community Licence",
        "code": "https://example.org/delta",
    },
    # not an LLM: the questions on the model are not asked (they apply when llm is yes)
    "unconstrained": {
        "llm": "no",
        "external-data": "none",
        "code": "https://example.org/delta",
    },
}
# A run's files: the names they are uploaded under, and two responses (in fixtures/corefud)
# by dataset.
NAMES = {"en_gum": "en_gum-corefud-minitest.conllu", "zeros": "zeros-corefud-minitest.conllu"}
STRING_MATCH = {
    "en_gum": "string-match/en_gum-corefud-test.conllu",
    "zeros": "tc-zf-4/zeros-deps-corefud-test.conllu",
}
SINGLETONS = {
    "en_gum": "singletons-relabelled/en_gum-corefud-test.conllu",
    "zeros": "tc-zf-1/zeros-deps-corefud-test.conllu",
}


def shots(page, artifacts_dir: Path, name: str) -> None:
    """The page at 1366 and at 390 px, with no sideways scrolling at either."""
    for width in (WIDE, PHONE):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(artifacts_dir / f"crac26-walk-{name}-{width}.png"), full_page=True)
        fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert fits, f"{page.url} scrolls sideways at {width} px: {page.evaluate(WIDEST)}"
    page.set_viewport_size({"width": WIDE, "height": 900})


def fits_a_phone(page) -> None:
    """No sideways scrolling at 390 px (the pages not kept as screenshots)."""
    page.set_viewport_size({"width": PHONE, "height": 900})
    fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert fits, f"{page.url} scrolls sideways at {PHONE} px: {page.evaluate(WIDEST)}"
    page.set_viewport_size({"width": WIDE, "height": 900})


def as_user(page, base: str, username: str) -> None:
    page.context.clear_cookies()
    log_in(page, base, username, PASSWORD)


def run_files(folder: Path, responses: dict[str, str]) -> dict[str, Path]:
    """A run's files, under the names the minitest archives use."""
    folder.mkdir(parents=True)
    files = {}
    for dataset, response in responses.items():
        files[dataset] = folder / NAMES[dataset]
        files[dataset].write_bytes((COREFUD / response).read_bytes())
    return files


def test_a_crac_2026_task_is_built_entered_and_exported_in_the_browser(
    page, live_server, tmp_path, monkeypatch, capsys, artifacts_dir
):
    monkeypatch.setenv("CODICRAC_CONFIG", str(tmp_path / "cli" / "config.json"))
    users = get_user_model().objects
    users.create_user("admin", password=PASSWORD, is_staff=True)
    for name in ("olga", "dana", "eli"):
        users.create_user(name, password=PASSWORD)
    base = live_server.url
    page.set_viewport_size({"width": WIDE, "height": 900})

    # Staff create the competition; its owner builds the rest.
    as_user(page, base, "admin")
    new_competition(page, base, SLUG, TITLE, owner="olga")

    as_user(page, base, "olga")
    page.goto(f"{base}/edit/{SLUG}/")
    page.fill("input[name=task-slug]", "coreference")
    page.fill("input[name=task-title]", TASK)
    page.select_option("select[name=task-kind]", "corefud")
    page.select_option("select[name=task-procedure]", "crac-2026")
    page.click("#add-task button[type=submit]")
    page.wait_for_url(f"{base}/edit/{SLUG}/coreference/")

    # The two tracks, in the editor.
    for slug, name, description in (
        ("llm", "LLM", "Systems built on a large language model."),
        ("unconstrained", "Unconstrained", "Any system."),
    ):
        page.click("#tracks summary")
        page.fill("input[name=track-slug]", slug)
        page.fill("input[name=track-name]", name)
        page.fill("textarea[name=track-description]", description)
        page.click("#add-track button[type=submit]")
        page.locator(f".ed-track[data-track={slug}]").wait_for()
    names = page.locator(".ed-track input[name=name]")
    assert [names.nth(i).input_value() for i in range(names.count())] == ["LLM", "Unconstrained"]
    page.locator("#tracks").scroll_into_view_if_needed()
    shots(page, artifacts_dir, "editor-tracks")

    # The minitest phase, open now, and its two datasets with their gold keys.
    start, end = timezone.now() - timedelta(days=1), timezone.now() + timedelta(days=14)
    page.fill("input[name=phase-slug]", "minitest")
    page.fill("input[name=phase-title]", "Evaluation on minitest")
    page.select_option("select[name=phase-kind]", "test_predicted")
    page.fill("input[name=phase-start]", f"{start:%Y-%m-%d}T00:00")
    page.fill("input[name=phase-end]", f"{end:%Y-%m-%d}T23:59")
    page.select_option("select[name=phase-missing]", "zero")
    page.click("#add-phase button[type=submit]")
    page.wait_for_url(re.compile(rf".*/edit/{SLUG}/coreference/minitest/(#.*)?$"))  # (#tracks)
    for dataset, key in (
        ("en_gum", "key/en_gum-corefud-test.conllu"),
        ("zeros", "key/zeros-deps-corefud-test.conllu"),
    ):
        if page.locator("#add-subcorpus").is_hidden():
            page.click("summary:has-text('Add a sub-corpus')")
        page.fill("input[name=sc-name]", dataset)
        page.set_input_files("input[name=sc-key]", str(COREFUD / key))
        page.click("#add-subcorpus button[type=submit]")
        page.locator(f"tr[data-subcorpus={dataset}]").wait_for()
    assert "5 documents" in page.inner_text("tr[data-subcorpus=en_gum]")
    shots(page, artifacts_dir, "editor-phase")

    # A minidev phase beside it, its datasets and keys copied from minitest's.
    page.goto(f"{base}/edit/{SLUG}/coreference/")
    page.click("summary:has-text('Add a phase')")
    page.fill("input[name=phase-slug]", "minidev")
    page.fill("input[name=phase-title]", "Development on minidev")
    page.fill("input[name=phase-start]", f"{start:%Y-%m-%d}T00:00")
    page.select_option("select[name=phase-missing]", "zero")
    page.click("#add-phase button[type=submit]")
    page.wait_for_url(re.compile(rf".*/edit/{SLUG}/coreference/minidev/$"))
    page.click("text=Copy the datasets of another phase")
    page.select_option("#id_copy-source", label=f"{TITLE} / {TASK} / Evaluation on minitest")
    page.click("#copy-subcorpora button")
    page.wait_for_selector("text=2 sub-corpora were copied.")

    # The CRAC system-card questions, required for final runs.
    page.goto(f"{base}/edit/{SLUG}/")
    assert page.is_checked("#card-required")
    page.click("#card-defaults button[type=submit]")
    page.wait_for_selector("text=The system card asks the CRAC questions.")
    assert page.locator("#system-card li .badge:has-text('required')").count() == 7
    fits_a_phone(page)

    # Terms, team approval, and publishing (the other pages waived).
    page.goto(f"{base}/competitions/{SLUG}/pages/terms/edit/")
    page.fill("#page-body-input", "# Terms\n\n1. Submit your own system's output.\n")
    page.click("button[value=save]")
    page.wait_for_url(f"{base}/competitions/{SLUG}/pages/terms/")
    page.goto(f"{base}/competitions/{SLUG}/organize/teams/")
    page.click("#approval-setting button[value=require]")
    page.wait_for_selector("text=Teams need your approval")
    page.goto(f"{base}/competitions/{SLUG}/organize/publish/")
    assert page.locator("#checklist li.check.waivable").count() == 1  # the pages
    fits_a_phone(page)
    page.check("input[name=waive][value=pages]")
    page.click("#publish-button")
    page.wait_for_url(f"{base}/competitions/{SLUG}/")
    assert "is published" in page.inner_text(".messages")

    # Two teams accept the terms and register; the organizer approves them.
    for username, team in (("dana", "Delta"), ("eli", "Echo")):
        as_user(page, base, username)
        page.goto(f"{base}/competitions/{SLUG}/team/")
        page.click("#accept-terms")
        page.wait_for_selector("text=You accepted the terms")
        page.fill("input[name='create-name']", team)
        page.click("text=Create team")
        page.wait_for_selector(f"h1:has-text('Team {team}')")
        assert page.locator("#approval-status[data-status=pending]").count() == 1
        fits_a_phone(page)
    as_user(page, base, "olga")
    page.goto(f"{base}/competitions/{SLUG}/organize/teams/")
    for team in ("Delta", "Echo"):
        page.click(f"#teams tr[data-team='{team}'] button[value=approve]")
        page.locator(f"#teams tr[data-team='{team}'][data-status=approved]").wait_for()
    fits_a_phone(page)

    # Delta, from the web: one run on each track, the card answered on the submit page.
    as_user(page, base, "dana")
    for track, name, responses in (
        ("llm", "LLM", STRING_MATCH),
        ("unconstrained", "Unconstrained", SINGLETONS),
    ):
        files = run_files(tmp_path / f"delta-{track}", responses)
        page.goto(base + PHASE + "submit/")
        for dataset, path in files.items():
            page.set_input_files(f"input[name=file_{dataset}]", str(path))
        page.select_option("select[name=track]", track)
        for slug, answer in DELTA_CARDS[track].items():
            field = page.locator(f"#submit-card [name='card.{slug}']")
            if field.evaluate("e => e.tagName") == "SELECT":
                field.select_option(answer)
            else:
                field.fill(answer)
        if track == "llm":
            page.locator("#submit-card").scroll_into_view_if_needed()
            shots(page, artifacts_dir, "submit-card")
        page.click("#submit-button")
        page.wait_for_selector("#submission-status[data-status=scored]", timeout=60_000)
        assert page.inner_text("#submission-track").startswith(name)
        assert page.locator("#card-missing").count() == 0

    # Echo, from the command line: the phase id from the phase page, two runs on the LLM
    # track (the better one ranks) and one on the unconstrained track.
    as_user(page, base, "eli")
    page.goto(base + PHASE)
    phase_id = page.inner_text("#phase-id")
    assert f"codicrac submit --phase {phase_id} --track llm" in page.inner_text("#phase-cli")
    shots(page, artifacts_dir, "phase")
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert codicrac(["login", "--server", base, "--username", "eli", "--password-stdin"]) == 0
    capsys.readouterr()
    assert codicrac(["card-template", "--phase", phase_id]) == 0
    template = capsys.readouterr().out
    answers = {
        "llm": "yes",
        "base-model": "Qwen2.5 (7B)",
        "parameters": "7B",
        "adaptation": "fine-tuned",
        "external-data": "none",
        "weights-licence": "Apache-2.0",
        "code": "https://example.org/echo",
    }
    assert all(f"\n{slug}:\n" in template for slug in answers)
    for slug, answer in answers.items():
        template = template.replace(f"\n{slug}:\n", f"\n{slug}: {answer}\n")
    card = tmp_path / "card.yaml"
    card.write_text(template, encoding="utf-8")
    echo = {
        "llm-best": run_files(tmp_path / "echo-llm-1", STRING_MATCH),
        "llm-worse": run_files(tmp_path / "echo-llm-2", SINGLETONS),
        "unconstrained": run_files(tmp_path / "echo-unconstrained", STRING_MATCH),
    }
    for run, files in echo.items():
        track = run.split("-")[0]
        command = ["submit", "--phase", phase_id, "--track", track, "--card", str(card)]
        command += ["--run-name", run, "--wait", "--timeout", "60", *map(str, files.values())]
        assert codicrac(command) == 0, run
    capsys.readouterr()
    assert codicrac(["leaderboard", phase_id, "--track", "unconstrained"]) == 0
    board = capsys.readouterr().out.splitlines()
    assert board[0].startswith(f"{SLUG} / coreference / minitest / Unconstrained track")
    assert board[1].endswith("system card (llm, base-model, adaptation)")
    assert [line.split()[1] for line in board[2:4]] == ["Echo", "Delta"]
    assert board[2].endswith("yes · Qwen2.5 (7B) · fine-tuned")
    assert board[3].endswith("no · - · -")

    # Each track's board names its track, ranks both teams' runs, and shows the card
    # questions the CRAC defaults put on boards.
    echo_card = ["yes", "Qwen2.5 (7B)", "fine-tuned"]
    for track, name, delta_card in (
        ("llm", "LLM", ["yes", "Llama 3.1 (8B)", "few-shot"]),
        ("unconstrained", "Unconstrained", ["no", "–", "–"]),
    ):
        page.goto(f"{base}{PHASE}leaderboard/?track={track}")
        assert page.inner_text("#board-track") == f"{name} track"
        assert page.locator("#leaderboard th.lb-card").all_inner_texts() == [
            "Is the system LLM-based?",
            "Base model (name and version)",
            "How was the model adapted to the task?",
        ]
        for team, card in (("Delta", delta_card), ("Echo", echo_card)):
            row = page.locator(f"#leaderboard tbody tr:has-text('{team}')")
            assert row.count() == 1, (track, team)
            assert row.locator("td.lb-card").all_inner_texts() == card
        shots(page, artifacts_dir, f"board-{track}")
        page.set_viewport_size({"width": PHONE, "height": 900})
        assert page.evaluate(SPLIT_WORDS) == [], f"{track} board at {PHONE} px"
        page.evaluate("document.querySelector('.lb-scroll').scrollLeft = 1e6")
        page.locator(".lb-scroll").first.screenshot(
            path=str(artifacts_dir / f"crac26-walk-board-{track}-cards-{PHONE}.png")
        )
        page.set_viewport_size({"width": WIDE, "height": 900})
    page.select_option("select[name='card.llm']", "no")  # the board filtered by the card
    page.wait_for_selector("#card-filter-note")
    filtered = page.inner_text("#leaderboard tbody")
    assert "Delta" in filtered and "Echo" not in filtered

    # The organizer's phase page, and the export of the final runs.
    as_user(page, base, "olga")
    page.goto(base + PHASE + "organize/")
    assert page.locator("#organize-submissions tbody tr").count() == 5
    shots(page, artifacts_dir, "organize")
    # On a phone each run is a card: its track, score and actions are on the screen, not
    # beyond its right edge in a table that scrolls.
    page.set_viewport_size({"width": PHONE, "height": 900})
    first = page.locator("#organize-submissions tbody tr").first
    for cell in ("td.lb-track", "td.lb-org-score", "td.lb-row-actions button"):
        box = first.locator(cell).first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE, (cell, box)
    assert first.locator("td.lb-org-score").first.is_visible()
    page.set_viewport_size({"width": WIDE, "height": 900})
    with page.expect_download() as download:
        page.click("#export-final")
    archive = zipfile.ZipFile(download.value.path())
    manifest = list(csv.DictReader(io.StringIO(archive.read("MANIFEST.csv").decode())))
    assert sorted({(row["team"], row["track"]) for row in manifest}) == [
        ("Delta", "llm"),
        ("Delta", "unconstrained"),
        ("Echo", "llm"),
        ("Echo", "unconstrained"),
    ]
    assert len(manifest) == 8  # one run per team and track, one file per dataset
    assert {row["uploaded_as"] for row in manifest} == set(NAMES.values())
    echo_llm = [row for row in manifest if (row["team"], row["track"]) == ("Echo", "llm")]
    assert {row["run_name"] for row in echo_llm} == {"llm-best"}
    uploaded = {
        ("Delta", "llm"): STRING_MATCH,
        ("Delta", "unconstrained"): SINGLETONS,
        ("Echo", "llm"): STRING_MATCH,  # llm-best
        ("Echo", "unconstrained"): STRING_MATCH,
    }
    for row in manifest:
        assert row["file"].endswith("/" + row["uploaded_as"])
        response = uploaded[row["team"], row["track"]][row["subcorpus"]]
        assert archive.read(row["file"]) == (COREFUD / response).read_bytes()
    scores = list(csv.DictReader(io.StringIO(archive.read("scores.csv").decode())))
    assert {row["submission_id"] for row in scores} == {row["submission_id"] for row in manifest}
    cards = list(csv.DictReader(io.StringIO(archive.read("system-cards.csv").decode())))
    assert {row["submission_id"] for row in cards} == {row["submission_id"] for row in manifest}
    assert sorted((row["team"], row["track"], row["llm"], row["base-model"]) for row in cards) == [
        ("Delta", "llm", "yes", "Llama 3.1 (8B)"),
        ("Delta", "unconstrained", "no", ""),
        ("Echo", "llm", "yes", "Qwen2.5 (7B)"),
        ("Echo", "unconstrained", "yes", "Qwen2.5 (7B)"),
    ]
    assert {row["code"] for row in cards} == {
        "https://example.org/delta",
        "https://example.org/echo",
    }
