"""The CoNLL-2012 reader (scoring.readers.conll2012) and the np-only / nested filters."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from scoring import filters
from scoring.errors import ScoringInputError
from scoring.readers import conll2012
from tests.paths import CONFORMANCE, COREFUD_TESTS

REFERENCE = CONFORMANCE / "conll-reference"
SUITE = COREFUD_TESTS / "tests-conll"
DATA = Path(__file__).resolve().parent / "data"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "file.conll"
    path.write_text(text, encoding="utf-8")
    return path


def test_it_reads_every_file_of_both_reference_suites():
    files = (
        sorted(REFERENCE.glob("*/*.conll"))
        + sorted(SUITE.glob("*.key"))
        + sorted(SUITE.glob("*.response"))
    )
    assert len(files) == 72 + 50
    for path in files:
        docs = conll2012.read(path)
        assert docs and all(d.tokens for d in docs), path


def test_it_names_documents_as_scorer_pl_does():
    """The name is everything after '#begin document', the part included."""
    [doc] = conll2012.read(REFERENCE / "TC-B-1" / "key.conll")
    assert doc.name == "(nw/xinhua/00/chtb_0009); part 000"
    [doc] = conll2012.read(REFERENCE / "TC-A-1" / "key.conll")
    assert doc.name == "(LuoTestCase);"


def test_it_reads_the_luo_test_key():
    """TC-A.key: {a} {bc} {def}, a = a1 a2, b = b1..b4 (README of the suite)."""
    [doc] = conll2012.read(REFERENCE / "TC-A-1" / "key.conll")
    clusters: dict[str, list] = {}
    for m in doc.identity:
        clusters.setdefault(m.entity_id, []).append(m.parts[0])
    assert clusters == {"0": [(0, 1)], "1": [(3, 6), (9, 9)], "2": [(11, 12), (14, 14), (16, 18)]}
    assert len(doc.tokens) == 20 and doc.tokens[0] == "a1"


def test_it_reads_a_repeated_response_span_once_as_scorer_pl_does():
    """TC-A-8: B (entity 3) repeats b (entity 1); de-dup gives {a} {bcx} {dy} {z}."""
    warnings: list[str] = []
    [doc] = conll2012.read(REFERENCE / "TC-A-8" / "response.conll", warnings=warnings)
    clusters: dict[str, list] = {}
    for m in doc.identity:
        clusters.setdefault(m.entity_id, []).append(m.parts[0])
    assert clusters["1"] == [(3, 6), (9, 9), (10, 10)]
    assert clusters["3"] == [(13, 13)]
    assert len(warnings) == 1 and "repeated" in warnings[0]


def test_it_reads_concatenated_and_piped_brackets(tmp_path):
    path = write(
        tmp_path,
        "#begin document (d); part 000\n"
        "d 0 0 a (1(2|(3)\n"
        "d 0 1 b 2)|(5)\n"
        "d 0 2 c 1)\n"
        "#end document\n",
    )
    [doc] = conll2012.read(path)
    assert sorted((m.entity_id, m.parts) for m in doc.identity) == [
        ("1", ((0, 2),)),
        ("2", ((0, 1),)),
        ("3", ((0, 0),)),
        ("5", ((1, 1),)),
    ]


def test_it_stacks_nested_mentions_of_one_entity(tmp_path):
    path = write(
        tmp_path, "#begin document (d);\nd 0 0 a (1\nd 0 1 b (1)\nd 0 2 c 1)\n#end document\n"
    )
    [doc] = conll2012.read(path)
    assert sorted(m.parts for m in doc.identity) == [((0, 2),), ((1, 1),)]


@pytest.mark.parametrize(
    "text, line, code",
    [
        ("#begin document (d);\nd 0 0 a 1)\n#end document\n", 2, "unopened"),
        ("#begin document (d);\nd 0 0 a (1\n#end document\n", 2, "unclosed"),
        ("#begin document (d);\nd 0 0 a (x\n", 1, "unclosed_document"),
        ("d 0 0 a -\n", 1, "outside_document"),
        ("#begin document (d);\nd 0 0 a (1))\n#end document\n", 2, "brackets"),
        ("#begin document (d);\nd\n#end document\n", 2, "columns"),
    ],
)
def test_it_reports_bad_input_with_file_and_line(tmp_path, text, line, code):
    path = write(tmp_path, text)
    with pytest.raises(ScoringInputError) as caught:
        conll2012.read(path)
    assert (caught.value.code, caught.value.line) == (code, line)
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_it_sniffs_begin_document():
    assert conll2012.sniff("\n#begin document (x); part 000\nx 0 0 a -\n")
    assert not conll2012.sniff("# newdoc id = x\n1\ta\n")


# -- filters -------------------------------------------------------------------------------


def test_np_only_prunes_key_vps_and_clusters_left_with_one_mention():
    """Entity 2 = {said it works (VP), That}: the VP goes and so does the rest (one left);
    entity 3 = {helps him (VP)} goes; entity 1 has no VP and stays whole."""
    [doc] = conll2012.read(DATA / "np_only_key.conll")
    assert doc.metadata["parse_column"] == "5"
    kept = filters.np_only(doc, doc).identity
    assert sorted((m.entity_id, m.parts) for m in kept) == [
        ("1", ((0, 0),)),
        ("1", ((2, 2),)),
        ("1", ((7, 7),)),
    ]
    options = SimpleNamespace(np_only=True, remove_nested_mentions=False)
    assert filters.apply(doc, doc.identity, options, key=doc) == kept


def test_np_only_keeps_a_chain_that_still_has_two_mentions(tmp_path):
    path = write(
        tmp_path,
        "#begin document (d);\n"
        "d 0 0 so RB (TOP(S* - - - - * -\n"
        "d 0 1 runs VBZ (VP*) - - - - * (1)\n"
        "d 0 2 it PRP (NP*) - - - - * (1)\n"
        "d 0 3 that DT (NP*)) - - - - * (1)\n"
        "#end document\n",
    )
    [doc] = conll2012.read(path)
    kept = filters.np_only(doc, doc).identity
    assert [m.parts for m in kept] == [((2, 2),), ((3, 3),)]


def test_remove_nested_mentions_drops_mentions_inside_one_of_their_cluster():
    [doc] = conll2012.read(DATA / "np_only_key.conll")
    kept = filters.remove_nested_mentions(doc).identity
    # entity 2's (1,3) does not contain another entity-2 mention; entity 1's (7,7) lies in
    # entity 3's (6,7), another cluster: nothing is nested within one cluster here
    assert kept == doc.identity


def test_remove_nested_mentions_keeps_identical_spans_and_other_sentences(tmp_path):
    path = write(
        tmp_path,
        "#begin document (d);\n"
        "d 0 0 the (1\nd 0 1 man (1)\nd 0 2 x 1)\n\n"
        "d 1 0 he (1)\nd 1 1 him (2)|(2)\n"
        "#end document\n",
    )
    [doc] = conll2012.read(path)
    kept = filters.remove_nested_mentions(doc).identity
    assert sorted(m.parts for m in kept if m.entity_id == "1") == [((0, 2),), ((3, 3),)]


@pytest.mark.parametrize(
    "bits, label",
    [
        (["(VP*", "(NP*", "*))"], "VP"),
        (["(S(VP*", "*))"], "S"),
        (["(NP*)", "(VP*)"], "NP"),
        (["*", "*)"], None),
        (["(NP-SBJ*", "*)"], "NPSBJ"),
    ],
)
def test_constituent_label(bits, label):
    assert filters.constituent_label(bits) == label
