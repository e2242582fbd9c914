"""Cross-document checks: ElementOf cycles, document pairing, token equality."""

from __future__ import annotations

import pytest

from scoring.model import Document, Markable
from scoring.options import parse_options
from scoring.validate import compare_tokens, document_checks, document_pairing, elementof_cycles


def markable(mid: str, entity: str, position: int, *element_of: str) -> Markable:
    return Markable(mid, entity, ((position, position),), line=10 + position, element_of=element_of)


def doc(*markables: Markable, tokens: tuple[str, ...] = ("a", "b", "c", "d")) -> Document:
    return Document(
        "d",
        "f.conllua",
        1,
        tokens,
        identity=markables,
        token_lines=tuple(range(3, 3 + len(tokens))),
    )


def test_self_membership_is_a_cycle_naming_the_entity():
    """ElementOf=own entity: the reference loops forever; we name entity and line."""
    ms = (markable("m1", "7", 0, "7"), markable("m2", "7", 1))
    [problem] = elementof_cycles(doc(*ms), ms)
    assert problem.code == "elementof_cycle" and problem.line == 10
    assert "entity 7 is an element of itself" in str(problem)


def test_a_longer_cycle_lists_its_entities_in_order():
    """1 ∈ 2 ∈ 3 ∈ 1 is named as 1 → 2 → 3 → 1 (from where the walk meets it)."""
    ms = (markable("m1", "1", 0, "2"), markable("m2", "2", 1, "3"), markable("m3", "3", 2, "1"))
    [problem] = elementof_cycles(doc(*ms), ms)
    assert "1 → 2 → 3 → 1" in str(problem)


def test_nested_plurals_and_unmentioned_plurals_are_not_cycles():
    """1 ∈ 2 ∈ 3 is fine, and ElementOf to an entity without markables is dropped (Q12)."""
    ms = (
        markable("m1", "1", 0, "2", "9"),
        markable("m2", "2", 1, "3"),
        markable("m3", "3", 2),
        markable("m4", "4", 3, "4x"),
    )
    assert elementof_cycles(doc(*ms), ms) == []


def test_cycles_matter_only_in_modes_that_follow_element_of():
    """remove_split_antecedent ignores ElementOf, so its cycle is harmless (Q13)."""
    d = doc(markable("m1", "1", 0, "1"), markable("m2", "1", 1))
    assert document_checks(d, parse_options([]).options)
    assert document_checks(d, parse_options(["only_split_antecedent"]).options)
    assert not document_checks(d, parse_options(["remove_split_antecedent"]).options)


def test_compare_tokens_names_the_first_difference_and_both_lines():
    """A different FORM: response line, token number, both forms."""
    key = doc()
    response = doc(tokens=("a", "b", "X", "d"))
    problem = compare_tokens(key, response)
    assert problem.code == "token_mismatch" and problem.line == 5
    assert "token 3 is 'X' but the key has 'c'" in str(problem)
    assert compare_tokens(key, doc()) is None
    assert compare_tokens(key, doc(tokens=("a", "b", "c"))).code == "token_count"


@pytest.mark.parametrize(
    "policy, codes, n_warnings",
    [
        ("error", ["missing_documents", "extra_documents"], 0),
        ("skip", [], 2),
        ("empty", [], 2),
    ],
)
def test_document_pairing_follows_the_missing_documents_policy(policy, codes, n_warnings):
    """error refuses missing and extra documents; skip and empty warn."""
    errors, warnings = document_pairing(
        "key", [("a", 1), ("b", 9)], "resp", [("a", 1), ("c", 5)], policy
    )
    assert [e.code for e in errors] == codes and len(warnings) == n_warnings
    if policy == "error":
        assert "missing from the response: b" in str(errors[0])
        assert errors[1].line == 5 and "not in the key: c" in str(errors[1])


def test_long_document_lists_are_shortened():
    """An error lists ten names, then how many more."""
    names = [(f"d{i}", i) for i in range(25)]
    [error], _ = document_pairing("key", names, "resp", [], "error")
    assert "d9" in str(error) and "d10" not in str(error) and "and 15 more" in str(error)


def test_positional_formats_compare_only_the_number_of_tokens():
    """CoNLL-2012 responses may change word forms (its reference tests do); counts must agree."""
    key = doc()
    assert compare_tokens(key, doc(tokens=("a", "x", "x", "d")), forms=False) is None
    assert compare_tokens(key, doc(tokens=("a", "b")), forms=False).code == "token_count"


@pytest.mark.parametrize("module_name", ["scoring.options", "scoring.validate"])
def test_the_docstring_examples_hold(module_name):
    """The doctests of the option parser and the cycle check."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module_name))
    assert result.failed == 0 and result.attempted > 0


def test_compact_files_must_keep_the_keys_sentence_ids(tmp_path):
    """The CorefUD scorer aligns nothing unless both files have the same sentences with the
    same '# sent_id': a changed id is refused, by the validator and the scorer alike."""

    from scoring import score_files, validate_response
    from scoring.errors import ScoringInputError
    from tests.paths import GUM

    key = sorted(GUM.glob("*.conllu"))[0]
    text = key.read_text(encoding="utf-8")
    first = text.index("# sent_id = ") + len("# sent_id = ")
    end = text.index("\n", first)
    response = tmp_path / "sys.conllu"
    response.write_text(text[:end] + "-x" + text[end:], encoding="utf-8")
    (problem,) = validate_response(str(key), str(response), ["-f", "corefud"])
    assert problem.code == "sentence_mismatch" and "sentence 1" in problem.message
    with pytest.raises(ScoringInputError) as error:
        score_files(str(key), str(response), ["-f", "corefud"])
    assert error.value.code == "sentence_mismatch"
    assert validate_response(str(key), str(key), ["-f", "corefud"]) == []
