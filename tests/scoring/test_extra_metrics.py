"""The v2 metrics beyond the six (mention overlap ratio, zero anaphor score) and the
dependency-based matching of zeros."""

from __future__ import annotations

import doctest
import itertools
import random
from pathlib import Path

import pytest

from scoring import extra_metrics
from scoring.extra_metrics import (
    mor_counts,
    parse_deps,
    zero_counts,
    zero_dependency_alignment,
)
from scoring.readers import compact
from scoring.results import PRCounts
from tests.paths import COREFUD_TESTS


def span(a: int, b: int) -> list[int]:
    return list(range(a, b + 1))


def test_the_docstring_examples_hold():
    assert doctest.testmod(extra_metrics).failed == 0


# -- MOR -----------------------------------------------------------------------------------


def test_mor_of_identical_mentions_is_one():
    mentions = [span(0, 2), [5], span(7, 9)]
    counts = mor_counts(mentions, mentions)
    assert (counts.recall, counts.precision) == (1.0, 1.0)


def test_mor_credits_token_overlap_of_partly_matching_mentions():
    """Key {0..3}, response {2..5}: overlap 2 of 4 key and 4 response tokens."""
    assert mor_counts([span(0, 3)], [span(2, 5)]) == PRCounts(2.0, 4.0, 2.0, 4.0)


def test_mor_pairs_one_to_one_with_the_largest_total_overlap():
    """Key {0..4} and {3}; response {3} and {0..2}: the best pairing is {0..4}-{0..2}
    (3 tokens) and {3}-{3} (1 token), not {0..4}-{3} (greedy on the first response)."""
    counts = mor_counts([span(0, 4), [3]], [[3], span(0, 2)])
    assert counts == PRCounts(4.0, 4.0, 4.0, 6.0)


def test_mor_counts_unpaired_mentions_in_the_denominators_only():
    counts = mor_counts([span(0, 1)], [span(0, 1), span(10, 12)])
    assert counts == PRCounts(2.0, 5.0, 2.0, 2.0)


def test_mor_sweeps_discontinuous_mentions_by_their_hull():
    """A discontinuous key {0,1,6} overlaps a response {5,6} through its second part."""
    counts = mor_counts([[0, 1, 6]], [[5, 6]])
    assert counts == PRCounts(1.0, 2.0, 1.0, 3.0)


def test_mor_accepts_zero_tokens_as_keys():
    key = [[(4, 0)], [(5, 1)]]  # a word and the first zero before word 5
    response = [[(5, 1)]]
    assert mor_counts(key, response) == PRCounts(1.0, 1.0, 1.0, 2.0)


def test_mor_swapping_key_and_response_swaps_recall_and_precision():
    rng = random.Random(7)
    for _ in range(50):
        key = [span(a, a + rng.randint(0, 3)) for a in rng.sample(range(30), 6)]
        response = [span(a, a + rng.randint(0, 3)) for a in rng.sample(range(30), 6)]
        forward, backward = mor_counts(key, response), mor_counts(response, key)
        assert (forward.recall, forward.precision) == pytest.approx(
            (backward.precision, backward.recall)
        )


def test_mor_matches_brute_force_on_small_random_inputs():
    """The optimal one-to-one overlap, checked against every pairing."""
    rng = random.Random(11)
    for _ in range(60):
        key = [span(a, a + rng.randint(0, 2)) for a in rng.sample(range(12), 3)]
        response = [span(a, a + rng.randint(0, 2)) for a in rng.sample(range(12), 3)]
        best = max(
            sum(len(set(k) & set(r)) for k, r in zip(key, perm))
            for perm in itertools.permutations(response)
        )
        assert mor_counts(key, response).p_num == best


# -- zero anaphors -------------------------------------------------------------------------

Z = {(3, 3), (8, 8), (9, 9)}  # the zeros of these examples


def test_zero_counts_a_correctly_linked_zero_anaphor_as_tp():
    key = [[(0, 1), (3, 3)], [(5, 5), (8, 8)]]
    assert zero_counts(key, key, {}, Z) == PRCounts(2, 2, 2, 2)


def test_zero_counts_a_missed_zero_and_a_first_mention_counterpart_as_fn():
    key = [[(0, 1), (3, 3)], [(5, 5), (8, 8)]]
    response = [[(5, 5), (9, 9)], [(8, 8), (12, 12)]]  # (8,8) is a first mention there
    counts = zero_counts(key, response, {}, Z)
    # (3,3) missing: fn; (8,8) first of its response cluster: fn; response zero (9,9) is a
    # non-first mention that no key anaphor covers: fp
    assert counts == PRCounts(0, 1, 0, 2)


def test_zero_counts_a_zero_linked_to_the_wrong_antecedent_as_wrong_link():
    key = [[(0, 1), (3, 3)]]
    response = [[(0, 1)], [(2, 2), (3, 3)]]
    assert zero_counts(key, response, {}, Z) == PRCounts(0, 1, 0, 1)


def test_zero_uses_the_alignment_for_non_identical_counterparts():
    key = [[(0, 1), (3, 3)]]
    response = [[(0, 0), (3, 3)]]
    aligned = {(0, 1): (0, 0)}
    assert zero_counts(key, response, aligned, Z) == PRCounts(1, 1, 1, 1)
    # without the alignment (0,1) has no counterpart, so the response cluster of (3,3) is not
    # among the antecedents' clusters: a wrong link, counted in both denominators
    assert zero_counts(key, response, {}, Z) == PRCounts(0, 1, 0, 1)


def test_zero_puts_clusters_in_document_order_first():
    key = [[(3, 3), (0, 1)]]  # given out of order: (0,1) is still the antecedent
    assert zero_counts(key, key, {}, Z) == PRCounts(1, 1, 1, 1)


def test_zero_takes_the_response_side_zeros_where_given():
    """The same mention can be a zero in the key only (an empty head there, a word head in
    the response): an uncovered non-first response mention is fp only if it is a response
    zero."""
    key = [[(3, 3)]]
    response = [[(0, 1), (3, 3)]]
    assert zero_counts(key, response, {}, Z) == PRCounts(0, 1, 0, 0)
    assert zero_counts(key, response, {}, Z, response_zeros=set()) == PRCounts(0, 0, 0, 0)


def test_zero_ignores_non_zero_anaphors():
    key = [[(0, 1), (2, 2), (4, 4)]]
    assert zero_counts(key, [[(0, 1)], [(2, 2)]], {}, Z) == PRCounts(0, 0, 0, 0)


# -- dependency-based zero matching -------------------------------------------------------

ZEROS = COREFUD_TESTS / "tests-corefud" / "zeros"


def zero_deps(path: Path) -> dict:
    """(entity, position, rank) of each zero markable → its deps attribute."""
    [doc] = compact.read(path)
    return {
        (m.entity_id, m.start, m.zero): dict(m.attributes)["deps"] for m in doc.identity if m.zero
    }


def test_parse_deps():
    assert parse_deps("14:nsubj|root:root|3.1:obj") == [
        ("14", "nsubj"),
        ("root", "root"),
        ("3.1", "obj"),
    ]


@pytest.mark.parametrize(
    "key, response, entity",
    [
        # TC-ZF-4: the key zero (15:nsubj) goes to the response zero with the same deprel,
        # e2's 13.1 (15:nsubj), not e1's 15.1 (15:dep): "correct deprel (wrong entity)"
        ("TC-ZF.key", "TC-ZF-4.response", "e2"),
        # TC-ZG-3: one dep with the right parent and deprel beats three right parents only
        ("TC-ZG.key", "TC-ZG-3.response", "e1"),
        # TC-ZG-2: 13:a|15:x (e1) beats 13:a|18:x (e2) by the parent F-score
        ("TC-ZG.key", "TC-ZG-2.response", "e1"),
    ],
)
def test_zero_dependency_alignment_follows_the_suite_readme(key, response, entity):
    [(key_zero, matched)] = zero_dependency_alignment(
        zero_deps(ZEROS / key), zero_deps(ZEROS / response)
    ).items()
    assert matched[0] == entity


def test_zero_dependency_alignment_keeps_only_positive_pairs():
    assert zero_dependency_alignment({"k": "3:nsubj"}, {"s": "7:obj"}) == {}
    assert zero_dependency_alignment({"k": "3:nsubj"}, {"s": "3:obj"}) == {"k": "s"}
    assert zero_dependency_alignment({}, {"s": "3:obj"}) == {}
