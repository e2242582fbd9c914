"""Leaderboard reads over rows written by the real scoring path (upload → scorer → rows)."""

import pytest
from django.contrib.auth.models import AnonymousUser

from competition import services
from leaderboard.selectors import (
    board_tied_groups,
    document_counts,
    leaderboard_board,
    submission_analysis,
    submission_compare,
)


@pytest.fixture
def scored(world, django_capture_on_commit_callbacks):
    """Alpha submits the response with one error; Beta submits the gold key itself."""

    def run(team, user, texts):
        with django_capture_on_commit_callbacks(execute=True):
            submission = services.submission_create(
                team=team, phase=world.phase, user=user, files=world.uploads(texts)
            )
        submission.refresh_from_db()
        assert submission.status == "scored", submission.error
        return submission

    alpha = run(world.alpha, world.alice, None)
    beta = run(world.beta, world.bob, {s: world.key_text(s) for s in ("light", "ami")})
    return world, alpha, beta


def test_the_perfect_run_ranks_first_with_an_average_of_one(scored):
    world, alpha, beta = scored
    board = leaderboard_board(phase=world.phase, viewer=AnonymousUser())
    assert [r.entry.submission_id for r in board.rows] == [beta.pk, alpha.pk]
    assert board.rows[0].average.f1 == pytest.approx(1.0)
    assert board.rows[1].average.f1 < 1.0


def test_per_document_counts_of_the_scorer_are_read_for_every_coreference_metric(scored):
    world, alpha, beta = scored
    for metric in ("conll", "muc", "bcub", "ceafe", "ceafm", "lea"):
        found = document_counts(submission_ids=[alpha.pk, beta.pk], mode="task", metric=metric)
        assert found is not None, metric
        counts, score = found
        assert set(counts[alpha.pk]) == {
            ("light", "light_1"),
            ("light", "light_2"),
            ("ami", "ami_1"),
        }


def test_the_micro_average_from_document_counts_equals_the_stored_subcorpus_score(scored):
    """The significance statistic is the very number the board shows."""
    world, alpha, beta = scored
    analysis = submission_analysis(submission=alpha, viewer=AnonymousUser())
    for metric in ("muc", "bcub", "ceafe", "lea", "conll"):
        results = {
            r.subcorpus: r.comparison
            for r in submission_compare(
                a=alpha, b=beta, viewer=AnonymousUser(), metric=metric, samples=50
            )
        }
        line = analysis.line(metric)
        assert results["light"].score_a == pytest.approx(line.cells["light"].f1, abs=1e-9)
        assert results["avg"].score_a == pytest.approx(line.average.f1, abs=1e-9)
        assert results["avg"].score_b == pytest.approx(1.0)


def test_three_documents_cannot_separate_the_runs(scored):
    world, alpha, beta = scored
    board = leaderboard_board(phase=world.phase, viewer=AnonymousUser())
    assert board_tied_groups(board) == {beta.pk: "a", alpha.pk: "a"}
