"""The official record in the browser, at 1366 and 390 px: an organizer freezes a
CRAC-2026-shaped board (two tracks, system cards, the empty-node measures); a team then
opens its run's system card (locked: cards lock when the phase ends, the page says why; the
frozen board is unchanged); the organizer downloads the results package with one click
(the coreference tables and one table per empty-node measure); the frozen page shows the
official record with its JSON link, nothing off-screen. Screenshots go to test-artifacts/."""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from competition.models import (
    Competition,
    Membership,
    Phase,
    Score,
    ScoringRun,
    SubCorpus,
    Submission,
    Task,
    Team,
    Track,
)
from competition.services import cards
from competition.services.boards import board_entries_write
from scoring.procedures import PROCEDURES
from scoring.vocabulary import CONLL, CONLL_PARTS, EMPTY_NODE_MEASURES, EMPTY_NODES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "record-pw-123!"


def _crac_2026_world():
    now = timezone.now()
    users = {
        name: get_user_model().objects.create_user(name, password=PASSWORD)
        for name in ("olga", "alice")
    }
    competition = Competition.objects.create(
        slug="crac-record", title="CRAC record", published_at=now
    )
    competition.organizers.add(users["olga"])
    task = Task.objects.create(
        competition=competition,
        slug="coreference",
        kind="corefud",
        title="Coreference",
        primary_metric=CONLL,
        procedure="crac-2026",
    )
    tracks = [
        Track.objects.create(task=task, slug="llm", name="LLM", order=0),
        Track.objects.create(task=task, slug="open", name="Open", order=1),
    ]
    phase = Phase.objects.create(
        task=task,
        slug="test",
        kind="test_predicted",
        title="Evaluation",
        start=now - timedelta(days=30),
        end=now - timedelta(days=1),
        leaderboard_visibility="public",
    )
    datasets = [
        SubCorpus.objects.create(
            phase=phase, name=slug, slug=slug, order=i, language=language, key_file=f"k/{slug}"
        )
        for i, (slug, language) in enumerate(
            (("cs_pcedt", "Czech"), ("en_gum", "English"), ("no_bokmaalnarc", "Norwegian"))
        )
    ]
    cards.card_defaults_set(competition=competition, required=False)
    runs = {}
    for n, (name, track) in enumerate((("Alpha", 0), ("Beta", 0), ("Gamma", 1))):
        team = Team.objects.create(competition=competition, name=name)
        if name == "Alpha":
            Membership.objects.create(team=team, user=users["alice"], competition=competition)
        submission = Submission.objects.create(
            phase=phase,
            team=team,
            status="scored",
            track=tracks[track],
            created_at=now - timedelta(days=5, minutes=n),
            scorer_version="test-1",
        )
        run = ScoringRun.objects.create(
            submission=submission, scorer_version="test-1", procedure="crac-2026"
        )
        for mode in PROCEDURES["crac-2026"].modes:
            metrics = EMPTY_NODE_MEASURES if mode == EMPTY_NODES else (*CONLL_PARTS, CONLL)
            for metric in metrics:
                for k, dataset in enumerate(datasets):
                    value = 0.8 - 0.1 * n - 0.01 * k
                    Score.objects.create(
                        run=run,
                        submission=submission,
                        subcorpus=dataset,
                        mode=mode,
                        metric=metric,
                        recall=value,
                        precision=value,
                        f1=value,
                    )
        cards.card_answers_save(
            submission=submission,
            answers={"llm": "yes", "base-model": f"{name} base", "adaptation": "fine-tuned"},
            reason="the run's card as its team gave it",  # the phase has ended: locked
        )
        runs[name] = submission
    board_entries_write(submission_ids=[s.pk for s in runs.values()])
    return competition, phase, runs


def _login(page, base, username):
    page.context.clear_cookies()
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")


def test_freeze_card_edit_package_and_frozen_page(browser, live_server, artifacts_dir):
    competition, phase, runs = _crac_2026_world()
    base = live_server.url
    where = f"{base}/competitions/{competition.slug}/coreference/test"
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(90_000)
    # the organizer freezes the board
    _login(page, base, "olga")
    page.goto(f"{where}/organize/")
    page.fill("input[name=note]", "official results")
    page.click("button[value=freeze]")
    page.goto(f"{where}/leaderboard/")
    assert page.locator(".lb-frozen").is_visible()
    page.context.clear_cookies()
    page.goto(f"{where}/leaderboard/")
    frozen_text = page.locator("main").inner_text()
    assert "Official results, frozen" in frozen_text and "Alpha base" in frozen_text
    # the team's card is locked after the phase's end: no form, the reason on the page
    _login(page, base, "alice")
    page.goto(f"{base}/submissions/{runs['Alpha'].pk}/")
    assert page.locator("#card-form").count() == 0
    assert page.locator("#card-locked-badge").is_visible()
    assert "its system cards are locked" in page.locator("#card-locked").inner_text()
    assert "Alpha base" in page.locator("#card-answers").inner_text()
    page.screenshot(path=str(artifacts_dir / "record-card-after-freeze.png"), full_page=True)
    page.context.clear_cookies()
    page.goto(f"{where}/leaderboard/")
    assert page.locator("main").inner_text() == frozen_text
    assert "Edited after the freeze" not in page.content()
    # the organizer downloads the results package with one click
    _login(page, base, "olga")
    page.goto(f"{where}/organize/")
    page.click("#export-package")  # a job: in-process here, done when the page opens
    with page.expect_download() as download:
        page.click("#package-download")
    archive = zipfile.ZipFile(download.value.path())
    names = set(archive.namelist())
    assert {"llm/task.csv", "llm/task.tex", "open/task.csv", "README.txt"} <= names
    assert {f"llm/empty-nodes/{m}.csv" for m in EMPTY_NODE_MEASURES} <= names
    table = archive.read("llm/task.csv").decode()
    assert "Alpha base" not in table or "yes" in table  # cards as frozen
    assert "Edited after the freeze" not in table
    assert "participation/submissions-by-day.svg" in names
    assert io.BytesIO(archive.read("llm/task.tex")).read().startswith(b"\\begin{table}")
    # the frozen page, anonymous, at both widths: nothing off-screen
    page.context.clear_cookies()
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{where}/leaderboard/")
        assert page.locator("#frozen-json").is_visible()
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{overflow}px off-screen at {width}px"
        page.screenshot(path=str(artifacts_dir / f"record-frozen-{width}.png"), full_page=True)
    context.close()
