"""Paired approximate randomization over per-document counts."""

import numpy as np
import pytest

from leaderboard.significance import (
    _cached_plan,
    approximate_randomization,
    mean_of,
    prf_f1,
    tied_groups,
    tp_f1,
)


def random_counts(rng, n_docs, quality):
    """PRCounts columns p_num, p_den, r_num, r_den for documents of 20..60 mentions."""
    den = rng.integers(20, 60, size=n_docs).astype(float)
    num = rng.binomial(den.astype(int), quality).astype(float)
    return np.column_stack([num, den, num, den])


def test_identical_runs_give_p_equal_to_1():
    rng = np.random.default_rng(0)
    a = random_counts(rng, 30, 0.6)
    result = approximate_randomization(a, a.copy(), score=prf_f1, samples=500, seed=1)
    assert result.p_value == 1.0
    assert result.difference == 0.0 and not result.significant


def test_a_clearly_better_run_gives_a_small_p():
    rng = np.random.default_rng(0)
    good = random_counts(rng, 40, 0.8)
    bad = good.copy()
    bad[:, 0] = np.floor(good[:, 0] * 0.6)
    bad[:, 2] = bad[:, 0]
    result = approximate_randomization(good, bad, score=prf_f1, samples=999, seed=3)
    assert result.score_a > result.score_b
    assert result.p_value == pytest.approx(1 / 1000)
    assert result.significant


def test_it_is_reproducible_for_a_seed_and_reports_samples():
    rng = np.random.default_rng(5)
    a, b = random_counts(rng, 25, 0.6), random_counts(rng, 25, 0.62)
    first = approximate_randomization(a, b, score=prf_f1, samples=300, seed=11)
    again = approximate_randomization(a, b, score=prf_f1, samples=300, seed=11)
    assert first == again
    assert first.samples == 300 and first.seed == 11 and first.documents == 25
    assert 0 < first.p_value <= 1


def test_the_statistic_is_the_micro_average_over_documents():
    """Documents are summed before dividing: a big document weighs more than a small one."""
    a = np.array([[1, 1, 1, 1], [0, 9, 0, 9]], dtype=float)  # micro P = R = 0.1
    b = np.array([[0, 1, 0, 1], [9, 9, 9, 9]], dtype=float)  # micro P = R = 0.9
    result = approximate_randomization(a, b, score=prf_f1, samples=10, seed=0)
    assert (result.score_a, result.score_b) == pytest.approx((0.1, 0.9))


def test_strata_give_the_macro_average_and_only_swap_within_a_stratum():
    a = np.array([[1, 1, 1, 1], [0, 9, 0, 9]], dtype=float)
    b = np.array([[0, 1, 0, 1], [9, 9, 9, 9]], dtype=float)
    result = approximate_randomization(a, b, score=prf_f1, strata=[0, 1], samples=10, seed=0)
    assert (result.score_a, result.score_b) == pytest.approx((0.5, 0.5))
    # With two documents there are only 4 swap patterns, all giving |diff| = 0 or 0: p = 1.
    assert result.p_value == 1.0


def test_p_matches_exhaustive_enumeration_on_a_small_case():
    """With many samples the estimate approaches the exact permutation p-value."""
    import itertools

    a = np.array([[3, 4, 3, 5], [2, 2, 2, 3], [5, 6, 5, 6], [1, 3, 1, 2]], dtype=float)
    b = np.array([[2, 4, 2, 5], [2, 3, 2, 3], [4, 6, 4, 6], [1, 2, 1, 2]], dtype=float)
    observed = abs(prf_f1(a.sum(0)) - prf_f1(b.sum(0)))
    hits = 0
    for mask in itertools.product([0, 1], repeat=4):
        m = np.array(mask, dtype=bool)[:, None]
        sa, sb = np.where(m, b, a).sum(0), np.where(m, a, b).sum(0)
        hits += abs(prf_f1(sa) - prf_f1(sb)) >= observed - 1e-12
    exact = hits / 16
    result = approximate_randomization(a, b, score=prf_f1, samples=20000, seed=0)
    assert result.p_value == pytest.approx(exact, abs=0.02)


def test_score_functions():
    assert float(tp_f1(np.array([2.0, 2.0, 0.0]))) == pytest.approx(2 / 3)
    assert float(prf_f1(np.zeros(4))) == 0.0
    conll = mean_of([(prf_f1, 4)] * 3)
    counts = np.array([1, 1, 1, 1, 0, 1, 0, 1, 1, 2, 1, 2], dtype=float)
    assert float(conll(counts)) == pytest.approx((1 + 0 + 0.5) / 3)


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="same 2-D shape"):
        approximate_randomization(np.zeros((2, 4)), np.zeros((3, 4)), score=prf_f1)
    with pytest.raises(ValueError, match="one id per document"):
        approximate_randomization(np.zeros((2, 4)), np.zeros((2, 4)), score=prf_f1, strata=[0])


def test_tied_groups_chain_adjacent_non_significant_pairs():
    assert tied_groups([]) == ["a"]
    assert tied_groups([0.01, 0.01]) == ["a", "b", "c"]
    assert tied_groups([0.3, 0.04, 0.9]) == ["a", "a", "b", "b"]
    assert tied_groups([0.01] * 26)[-1] == "aa"


def _direct_p(a, b, strata, *, samples, seed):
    """The test written out sample by sample: the swaps of ``default_rng(seed)`` drawn as
    ``integers(0, 2, size=(samples, n_docs))``, each stratum's sums and score recomputed."""
    strata = np.asarray(strata)
    ids = np.unique(strata)

    def statistic(x):
        return np.mean([prf_f1(x[strata == s].sum(0)) for s in ids])

    observed = abs(statistic(a) - statistic(b))
    swaps = np.random.default_rng(seed).integers(0, 2, size=(samples, len(a))).astype(bool)
    hits = 0
    for swap in swaps:
        m = swap[:, None]
        hits += abs(statistic(np.where(m, b, a)) - statistic(np.where(m, a, b))) >= (
            observed - 1e-12
        )
    return (hits + 1) / (samples + 1)


def test_p_is_the_direct_count_over_the_seeds_swaps():
    """The swaps are drawn once and reused, and sums read from tables of subset sums: the
    same swaps and the same hits as recomputing every sample, strata of one document, of a
    few and of more than one group of documents (`GROUP_BITS`) alike."""
    rng = np.random.default_rng(8)
    strata = [0] * 1 + [1] * 4 + [2] * 23 + [3] * 7
    a = random_counts(rng, len(strata), 0.6)
    b = a.copy()
    b[:, 0] = np.clip(a[:, 0] + rng.integers(-2, 3, size=len(a)), 0, a[:, 1])
    b[:, 2] = b[:, 0]
    order = rng.permutation(len(strata))  # documents of a stratum need not be consecutive
    a, b, strata = a[order], b[order], [strata[i] for i in order]
    direct = _direct_p(a, b, strata, samples=400, seed=5)
    found = approximate_randomization(a, b, score=prf_f1, strata=strata, samples=400, seed=5)
    assert 0.01 < direct < 0.99  # a case where the count matters
    assert found.p_value == direct


def test_a_pair_gives_the_same_p_whatever_was_tested_before():
    rng = np.random.default_rng(9)
    runs = [random_counts(rng, 30, q) for q in (0.6, 0.61, 0.63)]
    strata = [0] * 10 + [1] * 20
    _cached_plan.cache_clear()
    first = approximate_randomization(runs[1], runs[2], score=prf_f1, strata=strata, seed=4)
    approximate_randomization(runs[0], runs[1], score=prf_f1, strata=strata, seed=4)
    again = approximate_randomization(runs[1], runs[2], score=prf_f1, strata=strata, seed=4)
    assert first == again
