"""Identical members of one plural are one member, as both reference scorers hold a plural's
members in a set (UA scorer v1 and v2)."""

from __future__ import annotations

import pytest

from scoring import score_files

HEAD = (
    "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY "
    "BRIDGING DISCOURSE_DEIXIS REFERENCE NOM_SEM\n# newdoc id = d\n# sent_id = d-1\n"
)


def write(path, cells: list[str]) -> str:
    rows = "".join(
        f"{i}\tw{i}\t_\t_\t_\t_\t_\t_\t_\t_\t{cell}\t_\t_\t_\t_\n"
        for i, cell in enumerate(cells, 1)
    )
    path.write_text(HEAD + rows + "\n", encoding="utf-8")
    return str(path)


# w1 is annotated in entities 1 and 2, both elements of plural 9; w3 (entity 3) is the other
TWICE = [
    "(EntityID=1|MarkableID=a|ElementOf=9)(EntityID=2|MarkableID=b|ElementOf=9)",
    "_",
    "(EntityID=3|MarkableID=c|ElementOf=9)",
    "_",
    "(EntityID=9|MarkableID=p)",
    "_",
]
# the same, but entity 2 is not an element of the plural
ONCE = [
    "(EntityID=1|MarkableID=a|ElementOf=9)(EntityID=2|MarkableID=b)",
    "_",
    "(EntityID=3|MarkableID=c|ElementOf=9)",
    "_",
    "(EntityID=9|MarkableID=p)",
    "_",
]
RESPONSE = [
    "(EntityID=1|MarkableID=a|ElementOf=9)",
    "_",
    "(EntityID=3|MarkableID=c|ElementOf=9)",
    "_",
    "(EntityID=9|MarkableID=p)",
    "_",
]


def test_ceafe_counts_the_two_identical_members_once(tmp_path):
    """Key entities {w1}, {w1}, {w3} and {p + set}; response {w1}, {w3}, {p + set}. With the
    members collapsed the key's set {(w1), (w3)} equals the response's, so CEAFe aligns three
    entities with similarity 1: recall 3/4, precision 3/3 (keeping both copies gave the set
    {(w1), (w1), (w3)} partial credit only: recall .725)."""
    result = score_files(write(tmp_path / "key", TWICE), write(tmp_path / "sys", RESPONSE), [])
    ceafe = result["metrics"]["ceafe"]
    assert (ceafe["recall"], ceafe["precision"]) == pytest.approx((0.75, 1.0), abs=1e-12)


@pytest.mark.parametrize("words", [[], ["remove_singletons"], ["-m", "all", "-s", "-l"]])
def test_a_member_entered_twice_changes_no_metric(tmp_path, words):
    """By construction: the plural's members are, as a set, the same whether entity 2 is also
    an element of it or not, and every other cluster is the same: every number is equal."""
    response = write(tmp_path / "sys", RESPONSE)
    twice = score_files(write(tmp_path / "twice", TWICE), response, words)
    once = score_files(write(tmp_path / "once", ONCE), response, words)
    assert twice["metrics"] == once["metrics"] and twice["conll"] == once["conll"]
