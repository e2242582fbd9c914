"""The board selector: rows per team or run, and the visibility rules every view obeys."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from competition.models import Submission
from leaderboard.models import BoardSnapshot
from leaderboard.selectors import (
    BoardQueryError,
    Visibility,
    leaderboard_board,
    snapshot_material,
    submission_analysis,
    submission_compare,
    task_gap_table,
)

ANON = AnonymousUser()


@pytest.fixture
def world(make):
    """A public phase with two teams (A has two runs), a baseline, an organizer and a member."""
    organizer = make.user("org")
    member = make.user("alice")
    competition = make.competition(organizers=[organizer])
    task = make.task(competition)
    phase = make.phase(task)
    team_a = make.team(competition, "A", members=[member])
    team_b = make.team(competition, "B")
    org_team = make.team(competition, "Organizers", organizer=True)
    runs = {
        "a1": make.run(phase, team_a, {"light": 0.5, "ami": 0.5}),
        "a2": make.run(phase, team_a, {"light": 0.7, "ami": 0.6}),
        "b1": make.run(phase, team_b, {"light": 0.6, "ami": 0.6}),
        "base": make.run(
            phase, org_team, {"light": 0.3, "ami": 0.2}, is_baseline=True, run_name="singletons"
        ),
    }
    return locals() | runs


def ids(board):
    return [(r.entry.submission_id, r.rank) for r in board.rows]


def test_one_row_per_team_best_run_ranked_baseline_unranked(world):
    board = leaderboard_board(phase=world["phase"], viewer=ANON)
    a2, b1, base = world["a2"], world["b1"], world["base"]
    assert ids(board) == [(a2.pk, 1), (b1.pk, 2), (base.pk, None)]
    assert board.rows[0].average.f1 == pytest.approx(0.65)
    assert board.visibility is Visibility.PUBLIC


def test_runs_all_lists_every_run_and_failed_ones_last(world, make):
    failed = make.run(world["phase"], world["team_b"], status="failed")
    board = leaderboard_board(phase=world["phase"], viewer=ANON, runs=True)
    assert [r.entry.submission_id for r in board.rows][-1] == failed.pk
    assert len(board.rows) == 5 and board.rows[-1].rank is None


def test_submission_times_are_the_stored_datetimes(world):
    """A board reads its runs' times the way the models do (on PostgreSQL by another
    loader): the same instants, with the same time zone object."""
    board = leaderboard_board(phase=world["phase"], viewer=ANON, runs=True)
    stored = {s.pk: s.created_at for s in Submission.objects.filter(phase=world["phase"])}
    for row in board.rows:
        assert row.entry.submitted_at == stored[row.entry.submission_id]
        assert row.entry.submitted_at.tzinfo is stored[row.entry.submission_id].tzinfo


def test_an_unknown_metric_or_sort_column_is_a_query_error(world):
    with pytest.raises(BoardQueryError, match="unknown metric 'nope'"):
        leaderboard_board(phase=world["phase"], viewer=ANON, metric="nope")
    with pytest.raises(BoardQueryError, match="unknown sort column"):
        leaderboard_board(phase=world["phase"], viewer=ANON, sort="secret.f1")


def test_any_stored_metric_is_selectable_and_the_primary_comes_first(world):
    board = leaderboard_board(phase=world["phase"], viewer=ANON, metric="muc")
    assert board.metrics[0] == "conll" and set(board.metrics) == {"conll", "muc", "bcub", "ceafe"}
    assert board.metric == "muc"


def test_disqualified_runs_are_hidden_from_participants_and_struck_for_organizers(world):
    world["a2"].disqualified = True
    world["a2"].save()
    public = leaderboard_board(phase=world["phase"], viewer=world["member"])
    assert world["a2"].pk not in [r.entry.submission_id for r in public.rows]
    # Team A is then represented by its other run.
    assert world["a1"].pk in [r.entry.submission_id for r in public.rows]
    organizer = leaderboard_board(phase=world["phase"], viewer=world["organizer"])
    row = next(r for r in organizer.rows if r.entry.submission_id == world["a2"].pk)
    assert row.entry.disqualified and row.rank is None
    assert organizer.visibility is Visibility.ALL


def test_a_hidden_phase_shows_participants_nothing(world):
    phase = world["phase"]
    phase.leaderboard_visibility = "hidden"
    phase.save()
    for viewer in (ANON, world["member"]):
        board = leaderboard_board(phase=phase, viewer=viewer, runs=True)
        assert board.rows == [] and board.hidden
    assert len(leaderboard_board(phase=phase, viewer=world["organizer"]).rows) == 3


def test_own_scores_when_hidden_shows_only_the_viewers_team_without_ranks(world):
    phase = world["phase"]
    phase.leaderboard_visibility = "hidden"
    phase.show_own_scores_when_hidden = True
    phase.save()
    board = leaderboard_board(phase=phase, viewer=world["member"], runs=True)
    assert {r.entry.team for r in board.rows} == {"A"}
    assert all(r.rank is None for r in board.rows)
    assert leaderboard_board(phase=phase, viewer=ANON).rows == []


def test_a_revealed_phase_is_public(world):
    phase = world["phase"]
    phase.leaderboard_visibility = "hidden"
    phase.revealed_at = timezone.now() - timedelta(minutes=1)
    phase.save()
    assert len(leaderboard_board(phase=phase, viewer=ANON).rows) == 3
    phase.revealed_at = timezone.now() + timedelta(days=1)  # a reveal scheduled later
    phase.save()
    assert leaderboard_board(phase=phase, viewer=ANON).rows == []


def test_a_frozen_board_ignores_later_runs_but_organizers_can_see_live(world, make):
    phase = world["phase"]
    snapshot = BoardSnapshot.objects.create(phase=phase, data=snapshot_material(phase=phase))
    late = make.run(phase, world["team_b"], {"light": 0.99, "ami": 0.99})
    frozen = leaderboard_board(phase=phase, viewer=ANON)
    assert frozen.snapshot == snapshot
    assert late.pk not in [r.entry.submission_id for r in frozen.rows]
    assert frozen.rows[0].entry.submission_id == world["a2"].pk
    # Every metric stored at freezing time stays selectable on the frozen board.
    assert leaderboard_board(phase=phase, viewer=ANON, metric="muc").rows
    live = leaderboard_board(phase=phase, viewer=world["organizer"], live=True)
    assert live.snapshot is None and live.rows[0].entry.submission_id == late.pk
    # A participant asking for live still gets the frozen board.
    assert leaderboard_board(phase=phase, viewer=world["member"], live=True).snapshot


def test_a_frozen_hidden_board_still_shows_participants_nothing(world):
    phase = world["phase"]
    BoardSnapshot.objects.create(phase=phase, data=snapshot_material(phase=phase))
    phase.leaderboard_visibility = "hidden"
    phase.save()
    assert leaderboard_board(phase=phase, viewer=world["member"]).rows == []


def test_counts_latest_and_chosen(world):
    phase = world["phase"]
    phase.counts = "latest"
    phase.save()
    board = leaderboard_board(phase=phase, viewer=ANON)
    assert world["a2"].pk in [r.entry.submission_id for r in board.rows]
    phase.counts = "chosen"
    phase.save()
    world["a1"].is_chosen = True
    world["a1"].save()
    board = leaderboard_board(phase=phase, viewer=ANON)
    assert world["a1"].pk in [r.entry.submission_id for r in board.rows]


def test_unavailable_subcorpora_are_shown_but_not_averaged(make):
    phase = make.phase(subcorpora=("light",), unavailable=("swbd",))
    team = make.team(phase.task.competition, "T")
    make.run(phase, team, {"light": 0.4})
    board = leaderboard_board(phase=phase, viewer=ANON)
    assert [c.slug for c in board.columns] == ["light", "swbd"]
    assert board.rows[0].average.f1 == pytest.approx(0.4) and board.rows[0].rank == 1


def test_tied_groups_from_per_document_counts(make):
    phase = make.phase(subcorpora=("light",))
    competition = phase.task.competition
    docs_good = {"light": [(9, 10)] * 30}
    docs_same = {"light": [(9, 10)] * 29 + [(8, 10)]}
    docs_bad = {"light": [(2, 10)] * 30}
    good = make.run(phase, make.team(competition, "G"), documents=docs_good)
    same = make.run(phase, make.team(competition, "S"), documents=docs_same)
    bad = make.run(phase, make.team(competition, "X"), documents=docs_bad)
    board = leaderboard_board(phase=phase, viewer=ANON, groups=True)
    assert board.groups == {good.pk: "a", same.pk: "a", bad.pk: "b"}
    assert board.group_samples == 1000
    # Cached pair results give the same groups; a new run only adds its own pairs.
    assert leaderboard_board(phase=phase, viewer=ANON, groups=True).groups == board.groups
    worse = make.run(phase, make.team(competition, "W"), documents={"light": [(1, 10)] * 30})
    again = leaderboard_board(phase=phase, viewer=ANON, groups=True)
    assert again.groups == {good.pk: "a", same.pk: "a", bad.pk: "b", worse.pk: "c"}


def test_predicted_vs_gold_table(make):
    competition = make.competition()
    task = make.task(competition)
    pred = make.phase(task, kind="test_predicted")
    gold = make.phase(task, kind="test_gold")
    team = make.team(competition, "A")
    make.run(pred, team, {"light": 0.4, "ami": 0.4})
    make.run(gold, team, {"light": 0.6, "ami": 0.7})
    table = task_gap_table(task=task, viewer=ANON)
    (row,) = table.rows
    assert row.predicted == pytest.approx(0.4) and row.gold == pytest.approx(0.65)
    assert row.gap == pytest.approx(-0.25)
    gold.leaderboard_visibility = "hidden"
    gold.save()
    (row,) = task_gap_table(task=task, viewer=ANON).rows
    assert row.gold is None


def test_analysis_respects_visibility_and_lists_every_metric(world):
    a2 = world["a2"]
    analysis = submission_analysis(submission=a2, viewer=world["member"])
    assert [line.metric for line in analysis.lines][0] == "conll"
    assert analysis.line("conll").average.f1 == pytest.approx(0.65)
    phase = world["phase"]
    phase.leaderboard_visibility = "hidden"
    phase.save()
    assert submission_analysis(submission=a2, viewer=world["member"]) is None
    assert submission_analysis(submission=a2, viewer=ANON) is None
    assert submission_analysis(submission=a2, viewer=world["organizer"]) is not None


def test_compare_two_runs_per_subcorpus(make):
    phase = make.phase(subcorpora=("light", "ami"))
    competition = phase.task.competition
    a = make.run(
        phase, make.team(competition), documents={"light": [(9, 10)] * 20, "ami": [(5, 10)] * 20}
    )
    b = make.run(
        phase, make.team(competition), documents={"light": [(3, 10)] * 20, "ami": [(5, 10)] * 20}
    )
    results = {
        r.subcorpus: r.comparison
        for r in submission_compare(a=a, b=b, viewer=ANON, samples=200, seed=4)
    }
    assert results["light"].p_value < 0.05
    assert results["ami"].p_value == 1.0
    assert results["avg"].samples == 200 and results["avg"].score_a == pytest.approx(0.7)
