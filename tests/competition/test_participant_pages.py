"""The participant pages' rules through plain requests: team actions of other teams are
refused, hidden boards hide averages and ranks on My submissions, the run's page shows the
average and rank of a public board, the reset mail names the host the site is served on."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from competition import services
from competition.models import Membership, Phase, Submission, Task, Team

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def scored(world, django_capture_on_commit_callbacks, team=None, user=None) -> Submission:
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=team or world.alpha,
            phase=world.phase,
            user=user or world.alice,
            files=world.uploads(),
            run_name="r1",
        )
    submission.refresh_from_db()
    return submission


def test_another_teams_actions_are_refused(world):
    bob = client_for(world.bob)
    slug = world.competition.slug
    bob.post(
        reverse("competition:team_rename", args=[slug, world.alpha.pk]),
        {"rename-name": "Taken over"},
    )
    bob.post(reverse("competition:team_member_remove", args=[slug, world.alpha.pk, world.alice.pk]))
    bob.post(reverse("competition:team_leave", args=[slug, world.alpha.pk]))
    assert Team.objects.get(pk=world.alpha.pk).name == "Alpha"
    assert Membership.objects.filter(team=world.alpha, user=world.alice).exists()
    assert bob.get(reverse("competition:teams_organize", args=[slug])).status_code == 404
    page = bob.get(reverse("competition:team", args=[slug])).content.decode()
    assert world.alpha.invite_code not in page and world.beta.invite_code in page


def test_my_submissions_show_average_and_rank_of_a_public_board(
    world, django_capture_on_commit_callbacks
):
    mine = scored(world, django_capture_on_commit_callbacks)
    scored(world, django_capture_on_commit_callbacks, team=world.beta, user=world.bob)
    page = (
        client_for(world.alice)
        .get(
            reverse(
                "competition:submissions",
                args=[world.competition.slug, world.task.slug, world.phase.slug],
            )
        )
        .content.decode()
    )
    row = re.search(rf'<tr data-submission="{mine.pk}">(.*?)</tr>', page, re.S).group(1)
    assert re.search(r'class="score">\d+\.\d\d<', row)
    assert re.search(r'class="rank">[12] <span class="muted">of 2</span>', row)
    detail = (
        client_for(world.alice)
        .get(reverse("competition:submission", args=[mine.pk]))
        .content.decode()
    )
    assert 'id="standing-average"' in detail and "of 2 runs" in detail


def test_a_hidden_board_hides_average_and_rank_on_my_submissions(
    make_world, django_capture_on_commit_callbacks
):
    world = make_world(visibility="hidden")
    mine = scored(world, django_capture_on_commit_callbacks)
    assert mine.status == Submission.Status.SCORED
    client = client_for(world.alice)
    page = client.get(
        reverse(
            "competition:submissions",
            args=[world.competition.slug, world.task.slug, world.phase.slug],
        )
    ).content.decode()
    row = re.search(rf'<tr data-submission="{mine.pk}">(.*?)</tr>', page, re.S).group(1)
    assert "hidden" in row and not re.search(r"\d+\.\d\d", row)
    detail = client.get(reverse("competition:submission", args=[mine.pk])).content.decode()
    assert "standing-average" not in detail and "standing-rank" not in detail


def test_own_scores_of_a_hidden_board_show_the_average_but_no_rank(
    make_world, django_capture_on_commit_callbacks
):
    world = make_world(visibility="hidden", show_own=True)
    mine = scored(world, django_capture_on_commit_callbacks)
    detail = (
        client_for(world.alice)
        .get(reverse("competition:submission", args=[mine.pk]))
        .content.decode()
    )
    assert "standing-average" in detail and "standing-rank" not in detail
    assert Phase.objects.get(pk=world.phase.pk).leaderboard_visibility == "hidden"


def test_the_reset_mail_links_to_the_host_the_site_is_served_on(world):
    world.alice.email = "alice@example.org"
    world.alice.save()
    Client().post(
        reverse("password_reset"), {"email": "alice@example.org"}, HTTP_HOST="127.0.0.1:8101"
    )
    [message] = mail.outbox
    assert re.search(r"http://127\.0\.0\.1:8101/accounts/password/reset/\S+/", message.body)
    Client().post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert len(mail.outbox) == 1  # no account, no mail, and the page says the same


def test_the_phase_page_names_the_phase_id_the_command_line_asks_for(world, client):
    """`codicrac submit --phase ID` says "see the phase page": the page gives the id and the
    command, with a track in a task that has tracks."""
    url = reverse(
        "competition:phase", args=[world.competition.slug, world.task.slug, world.phase.slug]
    )
    page = client.get(url).content.decode()
    assert f'<strong id="phase-id">{world.phase.pk}</strong>' in page
    assert f"codicrac submit --phase {world.phase.pk} FILES" in page
    world.task.tracks.create(slug="llm", name="LLM", order=0)
    page = client.get(url).content.decode()
    assert f"codicrac submit --phase {world.phase.pk} --track llm FILES" in page


def test_the_zip_hint_names_the_phases_own_datasets_in_the_tasks_format(world):
    """The submit page's zip hint gives one of the phase's datasets as the example, in the
    task's format: a CorefUD phase is not told to send LIGHT.CONLLUA."""
    url = reverse(
        "competition:submit", args=[world.competition.slug, world.task.slug, world.phase.slug]
    )
    page = client_for(world.alice).get(url).content.decode()
    assert "(light_test.CONLLUA)" in page
    world.task.kind = Task.Kind.COREFUD
    world.task.save()
    page = client_for(world.alice).get(url).content.decode()
    assert "(light.conllu) or as the data were distributed (light-corefud-test.conllu)" in page
    assert "CONLLUA" not in page
