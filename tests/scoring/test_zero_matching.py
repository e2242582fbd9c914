"""Zeros as the CorefUD scorer aligns them, checked against its own numbers.

`scoring.zero_matching` follows v2's definition (dependency pairs of zeros, then equal
mentions, then the matching option, then one lookup dictionary for both directions). Here:

* generated CorefUD pairs with empty nodes (`bench.zero_corpus`: roots, several parents,
  multi-node mentions headed by an empty node, zeros in several sentences, empty nodes moved,
  added and dropped in the response) and the repros of `tests/data/repros/crac-*`, scored in
  the twelve CRAC modes on the compiled path and on the pure Python path, against the
  numbers ufal/corefud-scorer 4fd7b0e gave on them (`tests/data/zeros/SOURCE.md`), at 1e-9;
* the rules of the module itself, on small cases.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.zero_corpus import pair
from scoring import assignment, clusters, parse_options, score
from scoring.metrics import plain
from scoring.readers import compact
from scoring.zero_matching import alignment, dependency_pairs, dependency_score, split_deps
from tests.paths import TEST_DATA

NUMBERS = json.loads((TEST_DATA / "zeros" / "corefud-scorer-zeros.json").read_text())
REPROS = TEST_DATA / "repros"


def python_only(patch: pytest.MonkeyPatch) -> None:
    """Every compiled step off: the compact reader's, the tables', the solver's."""
    for module, names in (
        (plain, ("_plain_counts", "_set_counts")),
        (clusters, ("_layer_groups", "_layer_groups_all", "_layer_clusters")),
        (assignment, ("_solve", "_assigned_sum")),
        (compact, ("_entity_mentions", "_mention_markables", "_special_nodes")),
    ):
        for name in names:
            patch.setattr(module, name, None)
    patch.setattr(compact, "_split_document", compact.split_document)


@pytest.fixture(params=["compiled", "python"])
def path(request, monkeypatch) -> Iterator[str]:
    if request.param == "python":
        python_only(monkeypatch)
    yield request.param


def words(mode: str) -> list[str]:
    matching, zeros, singletons = mode.split("/")
    return [
        *("-f", "corefud", "-m", *NUMBERS["metrics"], "-a", matching),
        *("-z", "--zero-match-method", zeros),
        *(["-s"] if singletons == "s" else []),
    ]


def assert_reference(key: Path, response: Path, modes: dict[str, list[float]]) -> None:
    for mode, expected in modes.items():
        result = score(str(key), str(response), options=parse_options(words(mode)).options)
        got = [
            value
            for metric in NUMBERS["metrics"]
            for value in (result.metrics[metric].prf.recall, result.metrics[metric].prf.precision)
        ]
        assert got == pytest.approx(expected, abs=1e-9), (key.name, mode)


@pytest.mark.parametrize("seed", sorted(NUMBERS["generated"], key=int))
def test_generated_pairs_score_as_the_corefud_scorer(seed, path, tmp_path):
    key, response = pair(int(seed))
    stored = NUMBERS["generated"][seed]
    assert hashlib.sha1((key + response).encode()).hexdigest()[:12] == stored["sha1"], (
        "bench/zero_corpus.py no longer makes the pair the numbers were computed on"
    )
    (tmp_path / "key.conllu").write_text(key)
    (tmp_path / "response.conllu").write_text(response)
    assert_reference(tmp_path / "key.conllu", tmp_path / "response.conllu", stored["modes"])


@pytest.mark.parametrize("name", sorted(NUMBERS["repros"]))
def test_repros_score_as_the_corefud_scorer(name, path):
    folder, key, response = name.split("/")
    assert_reference(REPROS / folder / key, REPROS / folder / response, NUMBERS["repros"][name])


# -- the rules, on small cases ------------------------------------------------------------


def test_zeros_of_different_sentences_score_nothing_even_with_the_same_root_parent():
    assert dependency_score("@0|root:nsubj", "@1|root:nsubj") == 0.0
    assert dependency_score("@1|root:nsubj", "@1|root:nsubj") == 11.0


def test_the_score_is_ten_f1_of_pairs_plus_f1_of_parents():
    # pairs {(3, nsubj)} vs {(3, obj), (4, nsubj)}: no common pair; parents F1 = 2/3
    assert dependency_score("@0|3:nsubj", "@0|3:obj|4:nsubj") == pytest.approx(2 / 3)
    assert dependency_score("@0|3:nsubj|4:obj", "@0|3:nsubj") == pytest.approx(10 * 2 / 3 + 2 / 3)


def test_a_zero_without_dependencies_scores_nothing():
    assert dependency_score("@0", "@0|3:nsubj") == 0.0
    assert split_deps("@2|5:obj|root:root") == ("2", [("5", "obj"), ("root", "root")])


def test_dependency_pairs_keep_positive_pairs_of_one_assignment():
    pairs = dependency_pairs(
        {"k1": "@0|15:nsubj", "k2": "@0|15:obj"},
        {"s1": "@0|15:obj", "s2": "@0|15:nsubj", "s3": "@0|3:nsubj"},
    )
    assert sorted(pairs) == [("k1", "s2"), ("k2", "s1")]


def test_an_identical_zero_taken_by_another_leaves_its_key_zero_unfound():
    """Key zeros 1 and 2, response zeros 1 (equal to key zero 1) and 3: pairs (2, 1) and
    (1, 3). v2's one dictionary gives key zero 1 the entry of response zero 1 (→ key 2), so
    key zero 1 finds no response mention, while response zero 3 still finds key zero 1."""
    found = alignment([(2, 1), (1, 3)], {1, 2}, {1, 3}, lambda code: 99, dependent=True)
    assert found.rename == {}
    assert found.lookups == ({2: 1}, {1: 2, 3: 1})
    assert found.key_to_response == {2: 1, 1: 3}


def test_swapped_zeros_rename_both_ways():
    found = alignment([(1, 2), (2, 1)], {1, 2}, {1, 2}, lambda code: 99, dependent=True)
    assert found.lookups is None
    assert found.rename == {2: 1, 1: 2}


def test_a_response_zero_whose_equal_key_zero_went_elsewhere_finds_nothing():
    found = alignment([(1, 3)], {1}, {1, 3}, lambda code: 99, dependent=True)
    assert found.lookups is None
    assert found.rename == {3: 1, 1: 99}


def test_a_zero_without_deps_scores_where_the_corefud_scorer_divides_by_zero():
    """Repro crac-zero-without-deps (docs/scoring-deviations.md): no dependency pair, then the
    zeros match as equal mentions."""
    folder = REPROS / "crac-zero-without-deps"
    words = ["-f", "corefud", "-m", "muc", "bcub", "ceafe", "-a", "head", "-z"]
    result = score(
        str(folder / "key.conllu"),
        str(folder / "response.conllu"),
        options=parse_options([*words, "--zero-match-method", "dependent"]).options,
    )
    assert result.conll == 1.0
