"""Pure ranking: team selection, macro-averages, shared ranks, unranked entries last."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from leaderboard.ranking import (
    Entry,
    Score,
    macro_average,
    predicted_vs_gold,
    rank_rows,
    select_team_entries,
    sort_columns,
)

T0 = datetime(2021, 7, 1, tzinfo=UTC)
SUBS = ["light", "ami"]


def entry(sid, team, f1s, *, minutes=0, **kwargs):
    """An entry whose displayed and primary metric both have F1 = f1s[slug] (R = P = F1)."""
    scores = {slug: Score(v, v, v) for slug, v in f1s.items()}
    return Entry(
        submission_id=sid,
        team=team,
        run_name=f"run{sid}",
        submitted_at=T0 + timedelta(minutes=minutes or sid),
        scores=scores,
        primary=scores,
        **kwargs,
    )


def order(rows):
    return [(r.entry.submission_id, r.rank) for r in rows]


def test_macro_average_is_the_unweighted_mean_over_available_subcorpora():
    """An unavailable sub-corpus does not count; a missing available one voids the average."""
    scores = {"light": Score(0.2, 0.4, 0.3), "ami": Score(0.4, 0.6, 0.5)}
    average = macro_average(scores, ["light", "ami"])
    assert (average.recall, average.precision, average.f1) == pytest.approx((0.3, 0.5, 0.4))
    assert macro_average(scores, ["light"]) == Score(0.2, 0.4, 0.3)
    assert macro_average(scores, ["light", "ami", "swbd"]) is None


def test_it_ranks_by_macro_average_best_first():
    rows = rank_rows(
        [
            entry(1, "A", {"light": 0.5, "ami": 0.5}),
            entry(2, "B", {"light": 0.9, "ami": 0.3}),
            entry(3, "C", {"light": 0.7, "ami": 0.7}),
        ],
        available=SUBS,
    )
    assert order(rows) == [(3, 1), (2, 2), (1, 3)]


def test_ties_within_1e_9_share_a_rank_and_the_next_rank_skips():
    """Competition ranking 1, 1, 3; the earlier run is listed first among equals."""
    rows = rank_rows(
        [
            entry(2, "B", {"light": 0.6, "ami": 0.6 + 4e-10}),
            entry(1, "A", {"light": 0.6, "ami": 0.6}),
            entry(3, "C", {"light": 0.5, "ami": 0.5}),
        ],
        available=SUBS,
    )
    assert order(rows) == [(1, 1), (2, 1), (3, 3)]


def test_values_further_apart_than_1e_9_do_not_tie():
    rows = rank_rows(
        [
            entry(1, "A", {"light": 0.6, "ami": 0.6}),
            entry(2, "B", {"light": 0.6, "ami": 0.6 + 1e-8}),
        ],
        available=SUBS,
    )
    assert order(rows) == [(2, 1), (1, 2)]


def test_an_entry_missing_a_subcorpus_has_no_average_and_sorts_last_unranked():
    """Like DFKI's 0.00 on AMI in the CODI-CRAC 2021 tables, but with the score absent."""
    rows = rank_rows(
        [entry(1, "A", {"light": 0.99}), entry(2, "B", {"light": 0.1, "ami": 0.1})],
        available=SUBS,
    )
    assert order(rows) == [(2, 1), (1, None)]
    assert rows[1].average is None


def test_failed_entries_are_never_ranked_above_scored_ones_in_either_direction():
    failed = entry(1, "A", {}, status="failed")
    scored = [entry(2, "B", {"light": 0.1, "ami": 0.1}), entry(3, "C", {"light": 0.2, "ami": 0.2})]
    for descending in (True, False):
        rows = rank_rows([failed, *scored], available=SUBS, descending=descending)
        assert rows[-1].entry.submission_id == 1
        assert rows[-1].rank is None
    ascending = rank_rows([failed, *scored], available=SUBS, descending=False)
    assert order(ascending) == [(2, 2), (3, 1), (1, None)]


def test_baselines_and_disqualified_runs_sit_at_their_score_without_a_rank():
    rows = rank_rows(
        [
            entry(1, "A", {"light": 0.8, "ami": 0.8}),
            entry(2, "Organizers", {"light": 0.9, "ami": 0.9}, is_baseline=True),
            entry(3, "C", {"light": 0.85, "ami": 0.85}, disqualified=True),
            entry(4, "D", {"light": 0.5, "ami": 0.5}),
        ],
        available=SUBS,
    )
    assert order(rows) == [(2, None), (3, None), (1, 1), (4, 2)]


def test_sorting_by_a_subcorpus_column_ranks_by_that_column():
    rows = rank_rows(
        [entry(1, "A", {"light": 0.9, "ami": 0.1}), entry(2, "B", {"light": 0.2, "ami": 0.8})],
        available=SUBS,
        sort="ami.f1",
    )
    assert order(rows) == [(2, 1), (1, 2)]
    by_team = rank_rows(
        [entry(1, "b", {"light": 0.9, "ami": 0.3}), entry(2, "A", {"light": 0.2, "ami": 0.8})],
        available=SUBS,
        sort="team",
        descending=False,
    )
    assert order(by_team) == [(2, 2), (1, 1)]


def test_an_unknown_sort_column_is_refused():
    with pytest.raises(ValueError, match="unknown sort column"):
        rank_rows([entry(1, "A", {"light": 0.9})], available=SUBS, sort="rank; drop")


def test_sort_columns_lists_the_average_first():
    assert sort_columns(["light"])[:3] == ["avg.recall", "avg.precision", "avg.f1"]
    assert "light.f1" in sort_columns(["light"])


def test_best_keeps_each_teams_highest_primary_average_and_the_earlier_of_equals():
    entries = [
        entry(1, "A", {"light": 0.5, "ami": 0.5}),
        entry(2, "A", {"light": 0.7, "ami": 0.7}),
        entry(3, "A", {"light": 0.7, "ami": 0.7}),
        entry(4, "A", {"light": 0.99}),  # incomplete: no average, never best
        entry(5, "A", {"light": 1.0, "ami": 1.0}, status="failed"),
        entry(6, "A", {"light": 1.0, "ami": 1.0}, disqualified=True),
        entry(7, "B", {"light": 0.1, "ami": 0.1}),
        entry(8, "Organizers", {"light": 0.3, "ami": 0.3}, is_baseline=True),
        entry(9, "Organizers", {"light": 0.4, "ami": 0.4}, is_baseline=True),
    ]
    picked = select_team_entries(entries, counts="best", available=SUBS)
    assert sorted(e.submission_id for e in picked) == [2, 7, 8, 9]


def test_best_uses_the_primary_metric_not_the_displayed_one():
    low_primary = Entry(
        1, "A", "r1", T0, scores={"light": Score(1, 1, 1)}, primary={"light": Score(0.1, 0.1, 0.1)}
    )
    high_primary = Entry(
        2,
        "A",
        "r2",
        T0 + timedelta(1),
        scores={"light": Score(0, 0, 0)},
        primary={"light": Score(0.9, 0.9, 0.9)},
    )
    picked = select_team_entries([low_primary, high_primary], counts="best", available=["light"])
    assert [e.submission_id for e in picked] == [2]


def test_latest_and_chosen_rules():
    entries = [
        entry(1, "A", {"light": 0.9, "ami": 0.9}, is_chosen=True),
        entry(2, "A", {"light": 0.1, "ami": 0.1}),
        entry(3, "A", {}, status="failed"),
        entry(4, "B", {"light": 0.3, "ami": 0.3}),
        entry(5, "B", {"light": 0.2, "ami": 0.2}),
    ]
    latest = select_team_entries(entries, counts="latest", available=SUBS)
    assert sorted(e.submission_id for e in latest) == [2, 5]
    chosen = select_team_entries(entries, counts="chosen", available=SUBS)
    assert sorted(e.submission_id for e in chosen) == [1, 5]


def test_teams_are_told_apart_by_id_when_given():
    """Two teams with the same display name in different competitions never merge."""
    a = entry(1, "Same", {"light": 0.1, "ami": 0.1}, team_id=1)
    b = entry(2, "Same", {"light": 0.2, "ami": 0.2}, team_id=2)
    assert len(select_team_entries([a, b], counts="best", available=SUBS)) == 2


def test_predicted_vs_gold_pairs_teams_and_computes_the_gap():
    pred = rank_rows(
        [entry(1, "A", {"light": 0.4, "ami": 0.4}), entry(2, "B", {"light": 0.2, "ami": 0.2})],
        available=SUBS,
    )
    gold = rank_rows(
        [entry(3, "A", {"light": 0.6, "ami": 0.6}), entry(4, "C", {"light": 0.5, "ami": 0.5})],
        available=SUBS,
    )
    gaps = {g.team: g for g in predicted_vs_gold(pred, gold)}
    assert gaps["A"].gap == pytest.approx(-0.2)
    assert gaps["B"].gold is None and gaps["B"].gap is None
    assert gaps["C"].predicted is None
    assert [g.team for g in predicted_vs_gold(pred, gold)] == ["A", "C", "B"]


def test_column_leaders_are_the_best_ranked_rows_per_column_ties_included():
    from leaderboard.ranking import column_leaders

    rows = rank_rows(
        [
            entry(1, "A", {"light": 0.9, "ami": 0.2}),
            entry(2, "B", {"light": 0.5, "ami": 0.8}),
            entry(3, "C", {"light": 0.9 + 1e-12, "ami": 0.1}),
            entry(4, "Org", {"light": 0.99, "ami": 0.99}, is_baseline=True),
        ],
        available=SUBS,
    )
    leaders = column_leaders(rows, SUBS)
    assert leaders == {"light": {1, 3}, "ami": {2}, "avg": {2}}  # the baseline never leads


scores_st = st.one_of(
    st.none(), st.sampled_from([0.0, 0.25, 0.5, 0.5 + 1e-10, 0.75, 1.0]), st.floats(0, 1)
)
entries_st = st.lists(
    st.tuples(
        st.dictionaries(st.sampled_from(SUBS), scores_st.filter(lambda v: v is not None)),
        st.sampled_from(["scored", "scored", "failed"]),
        st.booleans(),
        st.booleans(),
    ),
    max_size=12,
)


@settings(max_examples=100, deadline=None)
@given(entries_st, st.sampled_from(["avg.f1", "light.f1", "ami.recall"]), st.booleans())
def test_ranking_properties(raw, sort, descending):
    """Ranks start at 1, follow the values, ties share a rank, and rows with a value come
    before rows without one, in either direction."""
    entries = [
        entry(i + 1, f"T{i}", f1s, status=status, is_baseline=base, disqualified=dq)
        for i, (f1s, status, base, dq) in enumerate(raw)
    ]
    rows = rank_rows(entries, available=SUBS, sort=sort, descending=descending)
    assert sorted(r.entry.submission_id for r in rows) == list(range(1, len(entries) + 1))
    with_value = [r.value(sort) is not None for r in rows]
    assert with_value == sorted(with_value, reverse=True)  # no value: always last
    ranked = sorted((r for r in rows if r.rank is not None), key=lambda r: r.rank)
    for row in ranked:
        assert row.rankable and row.value(sort) is not None
    if ranked:
        assert ranked[0].rank == 1
    for upper, lower in zip(ranked, ranked[1:]):
        assert upper.value(sort) >= lower.value(sort) - 1e-9
        if upper.rank == lower.rank:
            assert abs(upper.value(sort) - lower.value(sort)) <= 2e-9
        else:
            assert lower.rank == 1 + ranked.index(lower)  # competition ranking skips
    shown_ranks = [r.rank for r in rows if r.rank is not None]
    assert shown_ranks == sorted(shown_ranks, reverse=not descending)


# -- the zero rule for skipped datasets (CRAC phases) ------------------------------------------
def _entry(sid: int, team: str, scores: dict[str, float]) -> Entry:
    cells = {slug: Score(f, f, f) for slug, f in scores.items()}
    return Entry(
        submission_id=sid,
        team=team,
        run_name="",
        submitted_at=T0 + timedelta(sid),
        team_id=sid,
        scores=cells,
        primary=cells,
    )


def test_a_skipped_dataset_counts_as_zero_and_never_ranks_above_a_complete_run():
    """Two of three datasets at 0.9 average to 0.6 (the third counts as 0); that is more than
    the complete run's 0.5, yet the complete run ranks first and is listed first."""
    complete = _entry(1, "A", {"cs": 0.5, "en": 0.5, "pl": 0.5})
    skipped = _entry(2, "B", {"cs": 0.9, "en": 0.9})
    other = _entry(3, "C", {"cs": 0.3})
    rows = rank_rows([skipped, other, complete], available=["cs", "en", "pl"], missing="zero")
    assert [r.entry.team for r in rows] == ["A", "B", "C"]
    assert [r.rank for r in rows] == [1, 2, 3]
    assert rows[1].average.f1 == pytest.approx(0.6) and rows[1].missing == ("pl",)
    assert rows[2].average.f1 == pytest.approx(0.1) and rows[2].missing == ("en", "pl")
    ascending = rank_rows(
        [skipped, other, complete], available=["cs", "en", "pl"], missing="zero", descending=False
    )
    assert [r.entry.team for r in ascending] == ["C", "B", "A"]


def test_without_the_zero_rule_an_incomplete_run_has_no_average_and_no_rank():
    rows = rank_rows(
        [_entry(1, "A", {"cs": 0.5, "en": 0.5}), _entry(2, "B", {"cs": 0.9})],
        available=["cs", "en"],
    )
    assert [(r.entry.team, r.rank, r.average is None) for r in rows] == [
        ("A", 1, False),
        ("B", None, True),
    ]


def test_a_teams_complete_run_represents_it_over_a_better_incomplete_one():
    runs = [_entry(1, "A", {"cs": 0.4, "en": 0.4}), _entry(2, "A", {"cs": 0.95})]
    runs = [replace(run, team_id=7) for run in runs]
    (chosen,) = select_team_entries(runs, counts="best", available=["cs", "en"], missing="zero")
    assert chosen.submission_id == 1


def test_a_baseline_without_a_run_name_is_named_by_its_team_in_the_gap_table():
    """A published baseline row has no run name: the gap table names it by its team."""
    entry = replace(_entry(1, "Baseline", {"cs": 0.5}), is_baseline=True)
    rows = rank_rows([entry], available=["cs"])
    (gap,) = predicted_vs_gold(rows, rows)
    assert gap.team == "Baseline" and gap.gap == 0.0


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(
                st.sampled_from(SUBS + ["arrau"]), scores_st.filter(lambda v: v is not None)
            ),
            st.sampled_from(["scored", "scored", "failed"]),
            st.integers(0, 2),
        ),
        max_size=10,
    ),
    st.sampled_from(["unranked", "zero"]),
)
# two skipped datasets cost more than one: 0.5 and 0.5 of three average 0.33, above 0.9 of three
@example([({"light": 0.5, "ami": 0.5}, "scored", 1), ({"arrau": 0.9}, "scored", 1)], "zero")
def test_best_run_is_the_one_with_the_highest_macro_average_f1(raw, missing):
    """Under ``best`` each team keeps the run whose primary `macro_average` F1 is highest
    (complete runs before incomplete ones, the earlier of equals): the selection reads only
    the F1 of each run's primary cells, and must agree with the average the board shows."""
    entries = [
        entry(i + 1, f"T{team}", f1s, status=status, team_id=team)
        for i, (f1s, status, team) in enumerate(raw)
    ]
    available = SUBS + ["arrau"]
    picked = select_team_entries(entries, counts="best", available=available, missing=missing)

    def key(e):
        average = macro_average(e.primary, available, missing) if e.is_scored else None
        if average is None:
            return (0, 0.0)
        return (2 if all(s in e.primary for s in available) else 1, average.f1)

    for chosen in picked:
        runs = [e for e in entries if e.team_id == chosen.team_id and e.is_scored]
        best = runs[0]
        for run in runs[1:]:
            k, b = key(run), key(best)
            if k[0] > b[0] or (k[0] == b[0] and k[1] > b[1] + 1e-9):
                best = run
        assert chosen.submission_id == best.submission_id
    assert {e.team_id for e in picked} == {e.team_id for e in entries if e.is_scored}
