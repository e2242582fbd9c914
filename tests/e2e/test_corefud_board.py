"""A CorefUD board in a real browser: 22 datasets grouped by language, two tracks, a run that
skipped datasets shown as missing, and the variant columns; nothing off-screen at 1366 px but
the scrollable table itself."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from competition.models import (
    Competition,
    Phase,
    Score,
    ScoringRun,
    SubCorpus,
    Submission,
    Task,
    Team,
    Track,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = [
    "ca",
    "cs",
    "cs",
    "cu",
    "de",
    "de",
    "en",
    "en",
    "es",
    "fr",
    "grc",
    "hbo",
    "hu",
    "hu",
    "ko",
    "lt",
    "no",
    "no",
    "pl",
    "ru",
    "tr",
    "hi",
]


def crac_board() -> Phase:
    start = timezone.now() - timedelta(days=3)
    competition = Competition.objects.create(
        slug="crac-demo", title="CRAC demo", published_at=timezone.now()
    )
    task = Task.objects.create(
        competition=competition,
        slug="coref",
        kind="corefud",
        title="Multilingual coreference",
        primary_metric="conll",
        procedure="crac-2025",
    )
    phase = Phase.objects.create(
        task=task,
        slug="test",
        kind="test_predicted",
        title="Test",
        start=start,
        missing=Phase.Missing.ZERO,
    )
    datasets = []
    for i, language in enumerate(LANGUAGES):
        datasets.append(
            SubCorpus.objects.create(
                phase=phase,
                name=f"{language}_set{i}",
                slug=f"{language}-set{i}",
                order=i,
                language=language,
                key_file=f"keys/{i}.conllu",
            )
        )
    llm = Track.objects.create(task=task, slug="llm", name="LLM", order=0)
    Track.objects.create(task=task, slug="unconstrained", name="Unconstrained", order=1)
    for n, (team, skip) in enumerate((("Complete", 0), ("Skipper", 5))):
        submission = Submission.objects.create(
            phase=phase,
            team=Team.objects.create(competition=competition, name=team),
            status="scored",
            track=llm,
            run_name=f"run-{n}",
            created_at=start + timedelta(hours=n),
            scorer_version="1.0",
        )
        run = ScoringRun.objects.create(
            submission=submission, scorer_version="1.0", procedure="crac-2025"
        )
        for i, dataset in enumerate(datasets[skip:]):
            value = 0.5 + 0.01 * i
            for mode, metric in (
                ("task", "conll"),
                ("partial", "conll"),
                ("exact", "conll"),
                ("with-singletons", "conll"),
                ("task", "mor"),
                ("task", "zero"),
            ):
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
    return phase


def test_a_corefud_board_groups_languages_and_shows_missing_datasets(
    page, live_server, artifacts_dir
):
    phase = crac_board()
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/competitions/crac-demo/coref/test/leaderboard/")
    page.wait_for_selector("#leaderboard")
    assert page.locator(".lb-tracks li.active").inner_text() == "LLM track"
    assert page.locator(".lb-langs th").count() > 10
    assert page.locator("td.lb-missing").count() == 5
    ranks = page.locator("#leaderboard tbody td.lb-rank").all_inner_texts()
    assert [r.strip() for r in ranks] == ["1", "2"]
    assert page.locator("#variants").is_visible()
    # the page itself never scrolls sideways: the wide table scrolls inside its box
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1366, width
    page.screenshot(path=str(artifacts_dir / "corefud-board.png"), full_page=True)
    page.click("text=Unconstrained track")
    page.wait_for_selector(".lb-empty")
    assert phase.task.tracks.count() == 2
