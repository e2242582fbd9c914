"""Submitting and seeing results in a real browser: a zip as the data was distributed (folder,
macOS litter) is scored; the run's page shows its average, rank and scoring log; its name,
description and paper link are set and appear on the board; My submissions lists it with
score and rank; with no run left the form is disabled with the reason; a new run's page says
"checking" while the worker reads its files, and a file of the wrong split gets the run
refused with the fix, without command-line advice; the board keeps its ranking columns in
view when recall and precision make it scroll."""

from __future__ import annotations

import re
import zipfile

import pytest

from tests.e2e.helpers import NO_OVERFLOW, WIDTH, log_in, part_shot, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
CLI_WORDS = re.compile(r"ua-score|codicrac|python -m|--")


def test_a_distributed_zip_is_scored_described_and_ranked(
    page, live_server, make_world, tmp_path, artifacts_dir
):
    world = make_world(daily_limit=1)
    base = live_server.url
    phase_path = f"/competitions/{world.competition.slug}/{world.task.slug}/{world.phase.slug}"
    archive = tmp_path / "my-run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("my-run/light_dev.CONLLUA", world.response_text("light"))
        zf.writestr("my-run/AMI_dev.ES2004a.CONLLUA", world.response_text("ami"))
        zf.writestr("__MACOSX/my-run/._light_dev.CONLLUA", b"\x00\x05\x16\x07")
        zf.writestr("my-run/._AMI_dev.ES2004a.CONLLUA", b"\x00\x05\x16\x07")

    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(f"{base}{phase_path}/submit/")
    assert page.locator("#submit-blocked").count() == 0
    page.set_input_files("input[name=archive]", str(archive))
    page.fill("input[name=run_name]", "zip-run")
    page.fill("input[name=link]", "https://example.org/our-paper")
    shot(page, artifacts_dir, "submit-form")
    page.click("text=Upload and validate")
    page.wait_for_url(re.compile(r".*/submissions/\d+/$"), timeout=90_000)
    page.locator("#submission-status[data-status=scored]").wait_for(timeout=90_000)
    submission_id = int(re.search(r"/submissions/(\d+)/", page.url).group(1))

    assert page.locator("#standing-rank").inner_text() == "1"
    average = float(page.locator("#standing-average").inner_text())
    assert 0 < average < 100
    log = page.locator("#scoring-log").inner_text()
    assert "LIGHT: light_dev.CONLLUA" in log and "AMI: read AMI_dev.ES2004a.CONLLUA" in log
    assert log.count("AMI: read") == 1  # one line per dataset, whatever the modes
    assert "done in" in log and "keys/" not in log

    page.fill("#describe-form input[name=run_name]", "zip-run-final")
    page.fill("#describe-form textarea[name=description]", "Rules and a small neural ranker")
    page.click("#describe-form button")
    page.wait_for_selector("text=The run's details were saved.")
    shot(page, artifacts_dir, "submission-page")

    page.goto(f"{base}{phase_path}/submissions/")
    row = page.locator(f"#my-submissions tr[data-submission='{submission_id}']")
    assert "zip-run-final" in row.inner_text()
    assert row.locator(".score").inner_text() == f"{average:.2f}"
    assert row.locator(".rank").inner_text().startswith("1")
    assert row.locator("[data-status=scored]").count() == 1
    shot(page, artifacts_dir, "my-submissions")
    part_shot(page, artifacts_dir, "main.container", "my-submissions")

    page.goto(f"{base}{phase_path}/leaderboard/")
    board_row = page.locator(f"#leaderboard tr[data-submission='{submission_id}']")
    assert "zip-run-final" in board_row.inner_text()
    assert (
        board_row.locator("a.lb-run-link").get_attribute("href") == "https://example.org/our-paper"
    )
    assert "small neural ranker" in board_row.locator(".lb-run-about").inner_text()

    # The daily limit of 1 is used: the form says so and takes no files.
    page.goto(f"{base}{phase_path}/submit/")
    notice = page.locator("#submit-blocked")
    assert notice.get_attribute("data-code") == "daily_limit"
    assert "used its 1 submission for today" in notice.inner_text()
    assert page.locator("#submit-button").is_disabled()
    assert page.locator("input[name=archive]").is_disabled()
    shot(page, artifacts_dir, "submit-disabled")
    part_shot(page, artifacts_dir, "main.container", "submit-disabled")


def test_a_closed_phase_disables_the_form(page, live_server, make_world, artifacts_dir):
    from datetime import timedelta

    from django.utils import timezone

    from competition.models import Phase

    world = make_world()
    now = timezone.now()
    Phase.objects.filter(pk=world.phase.pk).update(
        start=now - timedelta(days=5), end=now - timedelta(hours=1)
    )
    base = live_server.url
    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(
        f"{base}/competitions/{world.competition.slug}/{world.task.slug}/{world.phase.slug}/submit/"
    )
    assert page.locator("#submit-blocked").get_attribute("data-code") == "phase_ended"
    assert page.locator("#submit-button").is_disabled()


def test_a_dev_file_sent_to_a_test_phase_gets_the_fix(
    page, live_server, make_world, tmp_path, artifacts_dir
):
    from competition.models import Phase

    world = make_world()
    Phase.objects.filter(pk=world.phase.pk).update(
        kind=Phase.Kind.TEST_PREDICTED, title="Evaluation"
    )
    base = live_server.url
    light = tmp_path / "light_dev.CONLLUA"
    light.write_text(world.response_text("light").replace("light_", "light_dev/light_"))
    ami = tmp_path / "AMI_test.CONLLUA"
    ami.write_text("\n".join(f"not a CONLL-UA line {i}" for i in range(300)))
    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(
        f"{base}/competitions/{world.competition.slug}/{world.task.slug}/{world.phase.slug}/submit/"
    )
    page.set_input_files("input[name=file_light]", str(light))
    page.set_input_files("input[name=file_ami]", str(ami))
    page.click("text=Upload and validate")
    # Stored as received; the worker's check (here at once, in-process) refuses the run.
    page.wait_for_url(re.compile(r".*/submissions/\d+/$"), timeout=90_000)
    page.locator("#submission-status[data-status=rejected]").wait_for(timeout=90_000)
    rejection = page.locator("#refusal")
    rejection.wait_for()
    rows = rejection.locator("table.problems tbody tr")
    assert rows.count() == 2  # one per file: the fatal problem alone, not 300 lines
    text = rejection.inner_text()
    assert "looks like a development file, but the phase Evaluation scores the test" in text
    assert "does not count against your limits" in text
    assert not CLI_WORDS.search(text), text
    assert page.locator("#scores").inner_text().endswith("No scores.")
    widths(page, artifacts_dir, "submission-refused")
    part_shot(page, artifacts_dir, "section.status-card", "submission-refused")


def widths(page, artifacts_dir, name: str) -> None:
    """Full-page screenshots at 1366 and 390 px; nothing scrolls sideways at either."""
    for width in (WIDTH, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate(NO_OVERFLOW), f"{page.url} scrolls sideways at {width} px"
        page.screenshot(path=str(artifacts_dir / f"{name}-{width}.png"), full_page=True)


def test_a_new_run_is_checking_until_the_worker_has_read_its_files(
    page, live_server, make_world, artifacts_dir
):
    from competition.models import Submission

    world = make_world()
    run = Submission.objects.create(  # as an upload leaves it: stored, not yet checked
        team=world.alpha,
        phase=world.phase,
        run_name="fresh",
        submitted_by=world.alice,
        status=Submission.Status.QUEUED,
        scoring_log="2026-01-01 00:00:00 UTC: received 2 file(s)\nqueued: each file is "
        "checked against its gold key, then scored",
    )
    base = live_server.url
    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(f"{base}/submissions/{run.pk}/")
    badge = page.locator("#submission-status")
    assert badge.get_attribute("data-status") == "checking" and badge.inner_text() == "Checking"
    assert "checked against its gold key, then scored" in page.locator("#status-hint").inner_text()
    widths(page, artifacts_dir, "submission-checking")
    Submission.objects.filter(pk=run.pk).update(
        status=Submission.Status.REJECTED,
        problems=[
            {
                "file": "LIGHT.CONLLUA",
                "subcorpus": "LIGHT",
                "document": "light_1",
                "line": 15,
                "message": "markable 'markable_4' opened here is never closed",
                "code": "unclosed_markable",
            }
        ],
    )
    page.locator("#submission-status[data-status=rejected]").wait_for(timeout=15_000)
    row = page.locator("#refusal table.problems tbody tr")
    cells = re.split(r"\s*[\t\n]\s*", row.inner_text())  # at 390 px: one per line
    assert cells[:4] == ["LIGHT.CONLLUA", "LIGHT", "light_1", "15"]


def test_a_waiting_run_shows_its_queue_position_and_log_as_they_change(
    page, live_server, make_world, artifacts_dir
):
    from datetime import timedelta

    from django.utils import timezone

    from competition.models import Submission

    world = make_world()
    now = timezone.now()
    queued = [
        Submission.objects.create(
            team=world.beta if i < 2 else world.alpha,
            phase=world.phase,
            run_name=f"run-{i}",
            submitted_by=world.bob if i < 2 else world.alice,
            status=Submission.Status.QUEUED,
            validated_at=now,
            queued_at=now + timedelta(seconds=i),
            scoring_log="2026-01-01 00:00:00 UTC: received 2 file(s)\nvalidated in 0.01 s; "
            "queued for scoring",
        )
        for i in range(3)
    ]
    mine = queued[2]
    base = live_server.url
    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(f"{base}/submissions/{mine.pk}/")
    assert page.locator("#queue-position strong").inner_text() == "2"
    assert "queued for scoring" in page.locator("#scoring-log").inner_text()
    assert "run-0" not in page.content()  # other teams' runs are counted, never shown
    shot(page, artifacts_dir, "submission-waiting")
    part_shot(page, artifacts_dir, "section.status-card", "submission-status")
    part_shot(page, artifacts_dir, "#scoring-log-card", "scoring-log")

    Submission.objects.filter(pk=queued[0].pk).update(status=Submission.Status.SCORING)
    Submission.objects.filter(pk=queued[1].pk).update(status=Submission.Status.CANCELLED)
    page.locator("#queue-position strong[data-count='1']").wait_for(timeout=15_000)
    Submission.objects.filter(pk=mine.pk).update(
        status=Submission.Status.SCORING,
        scoring_log=mine.scoring_log + "\nLIGHT [task]: read LIGHT.CONLLUA",
    )
    page.locator("#queue-position").wait_for(state="hidden", timeout=15_000)
    page.locator("#scoring-log:has-text('read LIGHT.CONLLUA')").wait_for(timeout=15_000)

    page.goto(
        f"{base}/competitions/{world.competition.slug}/{world.task.slug}/"
        f"{world.phase.slug}/submissions/"
    )
    assert page.locator(f"tr[data-submission='{mine.pk}'] [data-status=scoring]").count() == 1


def test_recall_and_precision_keep_the_average_in_view_on_a_codi_crac_board(
    page, live_server, artifacts_dir
):
    """Four sub-corpora with recall and precision (the CODI-CRAC boards) used to push the
    average, the column runs are ranked by, past the right edge at 1366 px."""
    from datetime import timedelta

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
    )

    start = timezone.now() - timedelta(days=2)
    competition = Competition.objects.create(
        slug="codi-wide", title="CODI-CRAC board", published_at=timezone.now()
    )
    task = Task.objects.create(
        competition=competition,
        slug="identity",
        kind="identity",
        title="Task 1",
        primary_metric="conll",
    )
    phase = Phase.objects.create(
        task=task, slug="dev", kind="development", title="Dev", start=start
    )
    names = ("LIGHT", "AMI", "PERSUASION", "SWITCHBOARD")
    corpora = [
        SubCorpus.objects.create(
            phase=phase, name=name, slug=name.lower(), order=i, key_file=f"keys/{i}.conllua"
        )
        for i, name in enumerate(names)
    ]
    for n, team in enumerate(("A team with a rather long name", "Beta")):
        submission = Submission.objects.create(
            phase=phase,
            team=Team.objects.create(competition=competition, name=team),
            status="scored",
            run_name=f"run-{n}",
            created_at=start,
            scorer_version="1.0",
            description="A long description of the system that sent this run " * 3,
        )
        run = ScoringRun.objects.create(submission=submission, scorer_version="1.0")
        for corpus in corpora:
            Score.objects.create(
                run=run,
                submission=submission,
                subcorpus=corpus,
                metric="conll",
                recall=0.51,
                precision=0.52,
                f1=0.515,
            )
    page.set_viewport_size({"width": WIDTH, "height": 900})
    page.goto(f"{live_server.url}/competitions/codi-wide/identity/dev/leaderboard/?detail=1")
    average = page.locator("#leaderboard thead th.lb-avg").first.bounding_box()
    scroller = page.locator(".lb-scroll:has(#leaderboard)").bounding_box()
    assert average["x"] + average["width"] <= scroller["x"] + scroller["width"], average
    shot(page, artifacts_dir, "board-detail-codi")
