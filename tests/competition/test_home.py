"""The home page says what the site is and shows each competition as a card: its status
(upcoming, open, finished), dates, task family and number of teams; a finished edition links
to its official record (its frozen board)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from competition.models import Competition, Phase, Task
from competition.selectors_home import competition_cards, competition_status

pytestmark = pytest.mark.django_db


def _phase(task, slug, kind, start_days, end_days):
    now = timezone.now()
    return Phase.objects.create(
        task=task,
        slug=slug,
        kind=kind,
        title=slug.title(),
        start=now + timedelta(days=start_days),
        end=None if end_days is None else now + timedelta(days=end_days),
    )


def _corefud_edition(slug: str, *, start_days: int, end_days: int) -> Competition:
    competition = Competition.objects.create(
        slug=slug, title=slug.upper(), published_at=timezone.now()
    )
    task = Task.objects.create(
        competition=competition,
        slug="coref",
        kind="corefud",
        title="Coreference",
        primary_metric="conll",
    )
    _phase(task, "test", "test_predicted", start_days, end_days)
    _phase(task, "post", "post_task", end_days + 1, None)
    return competition


def test_it_tells_upcoming_open_and_finished_apart_and_a_post_task_phase_does_not_reopen():
    """Before any phase: upcoming; during the evaluation: open; after it: finished, even
    while the open-ended post-task phase takes runs."""
    _corefud_edition("soon", start_days=3, end_days=9)
    _corefud_edition("now", start_days=-3, end_days=9)
    _corefud_edition("past", start_days=-30, end_days=-9)
    cards = {card.competition.slug: card for card in competition_cards(user=None)}
    assert cards["soon"].status == "upcoming"
    assert cards["now"].status == "open"
    assert cards["past"].status == "finished" and cards["past"].post_task_open
    assert not cards["now"].post_task_open
    assert competition_status(phases=[], at=timezone.now()) == "upcoming"


def test_the_home_page_says_what_the_site_is_and_shows_status_dates_family_and_teams(client, world):
    from leaderboard.models import BoardSnapshot

    past = _corefud_edition("crac-past", start_days=-30, end_days=-9)
    BoardSnapshot.objects.create(phase=past.tasks.get().phases.get(slug="test"), data={})
    html = client.get(reverse("competition:home")).content.decode()

    assert "platform for anaphora and coreference shared tasks" in html
    assert "anaphora in dialogue ·" not in html  # the footer speaks of the whole field
    codi = html.split('id="competition-codi-test"')[1].split("</article>")[0]
    assert 'class="badge open"' in codi and "CODI-CRAC" in codi
    assert "2 teams" in codi  # Alpha and Beta
    assert f"from {world.phase.start:%Y-%m-%d} UTC, open-ended" in codi
    assert "Official results" not in codi
    crac = html.split('id="competition-crac-past"')[1].split("</article>")[0]
    assert 'class="badge finished"' in crac and "CorefUD" in crac and "0 teams" in crac
    assert "post-task runs welcome" in crac
    board = reverse(
        "leaderboard:board", kwargs={"competition": "crac-past", "task": "coref", "phase": "test"}
    )
    assert f'href="{board}"' in crac.split("Official results")[1]


def test_an_unfrozen_or_inactive_board_is_no_official_record(client):
    from leaderboard.models import BoardSnapshot

    past = _corefud_edition("crac-past", start_days=-30, end_days=-9)
    BoardSnapshot.objects.create(
        phase=past.tasks.get().phases.get(slug="test"), data={}, active=False
    )
    html = client.get(reverse("competition:home")).content.decode()
    assert "Official results" not in html
