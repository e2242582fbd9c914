"""Small things a new user met on the boards and pages (issue 26, item 9)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from competition.models import Phase
from leaderboard.services import board_freeze

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make):
    organizer = make.user("org")
    alice = make.user("alice")
    competition = make.competition(slug="codi", organizers=[organizer])
    task = make.task(competition, slug="identity")
    phase = make.phase(task, slug="dev")
    alpha = make.team(competition, "Alpha", members=[alice])
    bravo = make.team(competition, "Bravo", members=[make.user("bob")])
    a = make.run(phase, alpha, {"light": 0.8, "ami": 0.6})
    b = make.run(phase, bravo, {"light": 0.3, "ami": 0.4})
    return locals()


def board_url(phase):
    return reverse(
        "leaderboard:board", args=[phase.task.competition.slug, phase.task.slug, phase.slug]
    )


def test_the_chart_never_draws_a_disqualified_run(client, world):
    world["a"].disqualified = True
    world["a"].save()
    client.force_login(world["organizer"])  # organizers still see the run in the table
    response = client.get(board_url(world["phase"]))
    assert "Alpha" in response.content.decode()
    assert [bar.label for bar in response.context["chart"].bars] == ["Bravo"]


def test_a_frozen_hidden_board_shows_one_banner(client, world):
    phase = world["phase"]
    board_freeze(phase=phase, user=world["organizer"], note="official")
    Phase.objects.filter(pk=phase.pk).update(leaderboard_visibility="hidden")
    client.force_login(world["alice"])
    html = client.get(board_url(phase)).content.decode()
    assert html.count('class="lb-banner') == 1 and "hidden until the organizers" in html


def test_a_post_task_board_has_no_gap_table_of_the_evaluation(client, world, make):
    task = world["task"]
    pred = make.phase(task, kind="test_predicted", slug="pred")
    gold = make.phase(task, kind="test_gold", slug="gold")
    post = make.phase(task, kind="post_task", slug="post")
    make.run(pred, world["alpha"], {"light": 0.5, "ami": 0.5})
    make.run(gold, world["alpha"], {"light": 0.7, "ami": 0.7})
    assert client.get(board_url(pred)).context["gap"] is not None
    assert client.get(board_url(post)).context["gap"] is None


def test_the_competition_page_links_the_leaderboards_and_renders_the_task_as_markdown(
    client, world
):
    task = world["task"]
    task.description = "Score with **head** matching."
    task.save()
    html = client.get(reverse("competition:competition", args=["codi"])).content.decode()
    assert f'href="{reverse("leaderboard:competition", args=["codi"])}"' in html
    assert "<strong>head</strong>" in html


def test_log_in_and_sign_up_return_to_the_competition(client, world):
    page = reverse("competition:competition", args=["codi"])
    html = client.get(page).content.decode()
    assert f'/accounts/signup/?next={page}"' in html and f'/accounts/login/?next={page}"' in html
    response = client.post(
        f"/accounts/signup/?next={page}",
        {
            "username": "newcomer",
            "email": "n@example.org",
            "password1": "a-long-pass-123!",
            "password2": "a-long-pass-123!",
        },
    )
    assert response.status_code == 302 and response["Location"] == page


def test_sizes_and_counts_read_as_words():
    from competition.errors import SubmissionRejected
    from competition.wording import plural

    refused = SubmissionRejected(
        "upload_too_large", name="run.zip", size=3 * 1024 * 1024, limit=2 * 1024 * 1024
    )
    assert refused.message == "The upload run.zip is 3.0 MB; the limit is 2.0 MB."
    assert refused.params["limit"] == 2 * 1024 * 1024  # the params stay numbers
    daily = SubmissionRejected("daily_limit", limit=1)  # a count of runs, not of bytes
    assert "used its 1 submission for today" in daily.message
    assert (plural(1, "task"), plural(2, "document"), plural(0, "run")) == (
        "1 task",
        "2 documents",
        "0 runs",
    )


def test_the_submit_page_gives_the_deadline_in_the_phase_zone(client, world):
    from datetime import timedelta

    from django.utils import timezone

    phase = world["phase"]
    phase.end = timezone.now() + timedelta(days=3)
    phase.time_zone = "AoE"
    phase.save()
    client.force_login(world["alice"])
    html = client.get(
        reverse("competition:submit", args=["codi", "identity", "dev"])
    ).content.decode()
    deadline = html[html.index('id="submit-deadline"') :][:80]
    assert "AoE" in deadline and "UTC " not in deadline.split("AoE")[0]


def test_the_favicon_is_found(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert 'rel="icon"' in client.get("/").content.decode()


def test_a_public_baselines_run_page_needs_no_login(client, world, make):
    org_team = make.team(world["competition"], "Organizers", organizer=True)
    baseline = make.run(
        world["phase"],
        org_team,
        {"light": 0.5, "ami": 0.5},
        is_baseline=True,
        run_name="all singletons",
    )
    response = client.get(reverse("competition:submission", args=[baseline.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("leaderboard:analysis", args=[baseline.pk])
    assert client.get(response["Location"]).status_code == 200
    # A team's run on a hidden board: the visitor is asked to log in (it may be theirs).
    Phase.objects.filter(pk=world["phase"].pk).update(leaderboard_visibility="hidden")
    hidden = client.get(reverse("competition:submission", args=[world["a"].pk]))
    assert hidden.status_code == 302 and "/accounts/login/" in hidden["Location"]


def test_no_zeros_row_on_data_without_zeros(client, world):
    from competition.models import Score
    from competition.selectors import submission_score_tables

    run = world["a"]
    current = run.runs.get(is_current=True)
    for sub in world["phase"].subcorpora.all():
        Score.objects.create(
            run=current,
            submission=run,
            subcorpus=sub,
            metric="zero",
            recall=0.0,
            precision=0.0,
            f1=0.0,
            counts={"p_num": 0, "p_den": 0, "r_num": 0, "r_den": 0},
        )
    metrics = [line.metric for line in submission_score_tables(submission=run)[0].lines]
    assert "zero" not in metrics and "conll" in metrics
    html = client.get(reverse("leaderboard:analysis", args=[run.pk])).content.decode()
    assert "Zeros" not in html
    Score.objects.filter(submission=run, metric="zero").update(
        counts={"p_num": 0, "p_den": 0, "r_num": 0, "r_den": 3}
    )  # the key has zeros
    metrics = [line.metric for line in submission_score_tables(submission=run)[0].lines]
    assert "zero" in metrics


def test_an_unnamed_published_result_is_not_a_number(client, world, make):
    make.run(
        world["phase"],
        world["bravo"],
        {"light": 0.2, "ami": 0.2},
        is_reference=True,
        source="Findings 2021",
        run_name="",
    )
    html = client.get(board_url(world["phase"]), {"runs": "all"}).content.decode()
    assert "published result</a>" in html
