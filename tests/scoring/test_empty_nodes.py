"""CRAC 2026's empty-node measures (scoring.empty_nodes): hand-computed cases, the CorefUD
scorer's test files with empty nodes, the command line and the platform's mode scoring.

The expected numbers are worked out by hand from the measures' definitions
(docs/crac-evaluation.md §2.5); the module was also compared with the organizers' evaluator
on 9,000 generated file pairs and these real files (docs/scorer.md §4.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import ScoringInputError, parse_options, score_files, score_modes, score_rows
from scoring.cli import main
from scoring.empty_nodes import MEASURES, empty_node_result, read_empty_nodes
from scoring.errors import UsageError
from tests.paths import COREFUD_TESTS, GUM

ZEROS = COREFUD_TESTS / "tests-corefud" / "zeros"
GUM_CYCLONE = GUM / "GUM_interview_cyclone.conllu"

WORD = "{id}\tw\tw\tNOUN\t_\t_\t0\troot\t0:root\t_"


def empty(node_id: str, deps: str, form="_", lemma="_", upos="_", xpos="_", feats="_") -> str:
    return f"{node_id}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t_\t_\t{deps}\t_"


def write(tmp_path: Path, name: str, sentences: list[list[str]], *, crlf=False, bom=False) -> str:
    text = "".join("# sent_id = s\n" + "\n".join(lines) + "\n\n" for lines in sentences)
    if crlf:
        text = text.replace("\n", "\r\n")
    path = tmp_path / name
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    return str(path)


def triples(path_key: str, path_response: str) -> dict[str, tuple[float, float, float]]:
    metrics = empty_node_result(path_key, path_response).metrics
    return {name: (m.prf.recall, m.prf.precision, m.prf.f1) for name, m in metrics.items()}


def close(found: tuple, expected: tuple) -> bool:
    return all(abs(a - b) <= 1e-9 for a, b in zip(found, expected, strict=True))


def test_identical_files_score_one_everywhere(tmp_path):
    """A file against itself: every measure 1, 1, 1."""
    path = write(
        tmp_path,
        "k.conllu",
        [[WORD.format(id=1), empty("1.1", "1:nsubj", "he"), WORD.format(id=2)]],
    )
    assert triples(path, path) == {name: (1.0, 1.0, 1.0) for name in MEASURES}


def test_hand_computed_counts_per_measure(tmp_path):
    """Key: two nodes in sentence 0, one in sentence 1. Response: the first right, the
    second with another relation and word order, the third in the wrong sentence.

    ARC (sentence, head): key {(0,2), (0,3), (1,1)}, response {(0,2), (0,3), (0,1)}: tp 2,
    R = P = 2/3. DEP adds the relation: only the first matches, 1/3. WO adds the word
    order: key (0,3,2) against response (0,3,3): 1/3. FORM, LEMMA, UPOS, XPOS, FEATS: the
    first two nodes keep their fields, the third is in another sentence: 2/3. ALL: 1/3."""
    key = write(
        tmp_path,
        "k.conllu",
        [
            [
                WORD.format(id=1),
                empty("1.1", "2:nsubj", "he", upos="PRON"),
                WORD.format(id=2),
                empty("2.1", "3:obj|1:x", "it", upos="PRON"),
                WORD.format(id=3),
            ],
            [WORD.format(id=1), empty("1.1", "1:nsubj", "she")],
        ],
    )
    response = write(
        tmp_path,
        "r.conllu",
        [
            [
                WORD.format(id=1),
                empty("1.1", "2:nsubj", "he", upos="PRON"),
                WORD.format(id=2),
                WORD.format(id=3),
                empty("3.1", "3:iobj", "it", upos="PRON"),
                empty("3.2", "1:nsubj", "her"),
            ],
            [WORD.format(id=1)],
        ],
    )
    found = triples(key, response)
    third = (1 / 3, 1 / 3, 1 / 3)
    two_thirds = (2 / 3, 2 / 3, 2 / 3)
    expected = {
        "ARC": two_thirds,
        "DEP": third,
        "WO": third,
        "DEP_WO": third,
        "FORM": two_thirds,
        "LEMMA": two_thirds,
        "UPOS": two_thirds,
        "XPOS": two_thirds,
        "FEATS": two_thirds,
        "ALL": third,
    }
    for name in MEASURES:
        assert close(found[name], expected[name]), (name, found[name], expected[name])


def test_counts_are_multisets_and_f1_is_2tp_over_both_sizes(tmp_path):
    """Two key nodes with the same ARC key and one response node: tp 1, R 1/2, P 1, F1
    2·1/(2+1). No response node at all: everything 0, never a division by zero."""
    key = write(
        tmp_path, "k.conllu", [[WORD.format(id=1), empty("1.1", "1:nsubj"), empty("1.2", "1:obj")]]
    )
    response = write(tmp_path, "r.conllu", [[WORD.format(id=1), empty("1.1", "1:obj")]])
    found = triples(key, response)
    assert close(found["ARC"], (0.5, 1.0, 2 / 3))
    assert close(found["DEP"], (0.5, 1.0, 2 / 3))
    assert close(found["DEP_WO"], (0.5, 1.0, 2 / 3))  # 1.1 obj against 1.2 obj: order 1 = 1
    none = write(tmp_path, "n.conllu", [[WORD.format(id=1)]])
    assert triples(key, none)["ALL"] == (0.0, 0.0, 0.0)
    assert triples(none, none)["ARC"] == (0.0, 0.0, 0.0)


def test_sentences_are_counted_by_blank_lines_and_line_ends_do_not_matter(tmp_path):
    """The same node one sentence later is a miss; CRLF line ends and a BOM change nothing."""
    key = write(
        tmp_path, "k.conllu", [[WORD.format(id=1), empty("1.1", "1:nsubj")], [WORD.format(id=1)]]
    )
    moved = write(
        tmp_path, "m.conllu", [[WORD.format(id=1)], [WORD.format(id=1), empty("1.1", "1:nsubj")]]
    )
    same = write(
        tmp_path,
        "s.conllu",
        [[WORD.format(id=1), empty("1.1", "1:nsubj")], [WORD.format(id=1)]],
        crlf=True,
        bom=True,
    )
    assert triples(key, moved)["ARC"] == (0.0, 0.0, 0.0)
    assert triples(key, same)["ALL"] == (1.0, 1.0, 1.0)
    assert [n.line for n in read_empty_nodes(same)] == [3]


@pytest.mark.parametrize(
    "response, expected",
    [
        # TC-ZF key: one node 15.1 (15:nsubj). ZF-4 adds 13.1 (15:nsubj) and relabels 15.1 as
        # 15:dep: ARC, WO and the fields match once of two (R 1, P 1/2); DEP matches 13.1 and
        # WO 15.1, but DEP_WO and ALL nothing.
        (
            "TC-ZF-4.response",
            {
                "ARC": (1, 0.5),
                "DEP": (1, 0.5),
                "WO": (1, 0.5),
                "DEP_WO": (0, 0),
                "FORM": (1, 0.5),
                "ALL": (0, 0),
            },
        ),
        ("TC-ZF.key", {"ARC": (1, 1), "ALL": (1, 1)}),
    ],
)
def test_the_corefud_scorer_test_files(response, expected):
    """Real files with empty nodes from the CorefUD scorer's zero tests."""
    found = triples(str(ZEROS / "TC-ZF.key"), str(ZEROS / response))
    for name, (recall, precision) in expected.items():
        f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
        assert close(found[name], (recall, precision, f1)), name


def test_an_empty_node_headed_by_an_empty_node_is_keyed_by_its_id():
    """The GUM cyclone interview's 17.1 depends on 17.2 (which the organizers' evaluator
    cannot read): scored here, the file against itself all 1."""
    nodes = read_empty_nodes(GUM_CYCLONE)
    assert [(n.word_order, n.head, n.deprel) for n in nodes] == [
        (17, (17, 2), "det"),
        (17, 7, "conj:and"),
        (17, 20, "case"),
    ]
    assert triples(str(GUM_CYCLONE), str(GUM_CYCLONE))["ALL"] == (1.0, 1.0, 1.0)


@pytest.mark.parametrize(
    "line, code, words",
    [
        (empty("1.1", "_"), "empty_node_deps", "DEPS '_'"),
        (empty("1.1", "x:nsubj"), "empty_node_deps", "HEAD:DEPREL"),
        (empty("1.1", "1nsubj"), "empty_node_deps", "expected e.g. 5:nsubj"),
        (empty("1.1", "1.x:nsubj"), "empty_node_deps", "HEAD a node ID"),
        ("1.1\t_\t_\t_\t_\t_\t_\t1:nsubj", "empty_node_columns", "8 tab-separated"),
        ("1.1 a-b", "empty_node_columns", "1 tab-separated"),
        (empty(".1", "1:nsubj"), "empty_node_id", "no word order"),
    ],
)
def test_an_unreadable_empty_node_is_refused_with_file_and_line(tmp_path, line, code, words):
    """Where the organizers' evaluator stops with a traceback, a clear message."""
    path = write(tmp_path, "bad.conllu", [[WORD.format(id=1), line]])
    with pytest.raises(ScoringInputError) as caught:
        read_empty_nodes(path)
    assert caught.value.code == code and caught.value.line == 3
    assert words in str(caught.value) and str(caught.value).startswith(f"{path}:3: ")


@pytest.mark.parametrize(
    "line",
    [
        "1.1\t_\t_\t_\t_\t_\t_\t_\t1:nsubj",  # nine columns (MISC dropped)
        empty("1.1", "1:nsubj") + "\textra",  # eleven
        empty("1.1.1", "1:nsubj"),  # word order 1, as everything before the first dot
        empty("1.", "1:nsubj"),
        empty("1.1", "+1:nsubj"),  # int("+1") = 1
        empty("1.1", " 1:nsubj"),
        empty("1.1", "1:nsubj|2:obj"),  # only the first item counts
    ],
)
def test_every_line_shape_the_evaluator_scores_is_scored_as_it_scores_it(tmp_path, line):
    """(repro empty-nodes-stricter-than-evaluator: each of these the evaluator scores 1.0
    against a key with 1.1 at 1:nsubj)"""
    key = write(tmp_path, "k.conllu", [[WORD.format(id=1), empty("1.1", "1:nsubj")]])
    response = write(tmp_path, "r.conllu", [[WORD.format(id=1), line]])
    assert triples(key, response)["ARC"] == (1.0, 1.0, 1.0)
    assert triples(key, response)["WO"] == (1.0, 1.0, 1.0)


def test_a_line_that_looks_like_a_range_of_empty_nodes_is_an_empty_node(tmp_path):
    """``1.1-1.1`` starts with digits and a dot: the evaluator counts a second empty node
    (P 0.5), and so does this module, where it used to skip the line."""
    key = write(tmp_path, "k.conllu", [[WORD.format(id=1), empty("1.1", "1:nsubj")]])
    response = write(
        tmp_path,
        "r.conllu",
        [[WORD.format(id=1), empty("1.1-1.1", "1:nsubj"), empty("1.1", "1:nsubj")]],
    )
    assert triples(key, response)["ARC"] == (1.0, 0.5, 2 / 3)


def test_line_ends_are_read_as_the_evaluator_reads_them(tmp_path):
    """Universal newlines (repro empty-nodes-line-ends): CR-only line ends score as LF ones;
    CR CR LF is a line end and a blank line each time, so every line is a sentence of its
    own and nothing matches, as in the evaluator, with a warning."""
    key = write(
        tmp_path, "k.conllu", [[WORD.format(id=1), empty("1.1", "1:nsubj")], [WORD.format(id=1)]]
    )
    text = Path(key).read_text()
    cr = tmp_path / "cr.conllu"
    cr.write_bytes(text.replace("\n", "\r").encode())
    crcrlf = tmp_path / "crcrlf.conllu"
    crcrlf.write_bytes(text.replace("\n", "\r\r\n").encode())
    assert triples(key, str(cr))["ALL"] == (1.0, 1.0, 1.0)
    shifted = empty_node_result(key, str(crcrlf))
    assert shifted.metrics["ARC"].prf.f1 == 0.0
    assert "CR CR LF" in shifted.warnings[0] and str(crcrlf) in shifted.warnings[0]


def test_command_line_json_names_the_measures_as_the_evaluator(capsys):
    """``ua-score KEY RESPONSE -f corefud -m empty-nodes --json``: one entry per measure,
    with recall, precision and f1; with ``-m muc empty-nodes`` the coreference metric too."""
    key, response = str(ZEROS / "TC-ZF.key"), str(ZEROS / "TC-ZF-4.response")
    assert main([key, response, "-f", "corefud", "-m", "empty-nodes", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["metrics"]) == list(MEASURES)
    assert out["metrics"]["ARC"] == {"recall": 1.0, "precision": 0.5, "f1": 2 / 3}
    both = score_files(key, response, ["-f", "corefud", "-m", "muc", "empty-nodes", "-z"])
    assert list(both["metrics"]) == ["muc", *MEASURES]
    assert main([key, response, "-f", "corefud", "-m", "empty-nodes"]) == 0
    assert "DEP_WO\nRecall: 0.00  Precision: 0.00  F1: 0.00" in capsys.readouterr().out


def test_only_the_corefud_format_has_empty_nodes():
    with pytest.raises(UsageError, match="-m empty-nodes cannot be used with -f ua"):
        parse_options(["-m", "empty-nodes"])


def test_score_modes_scores_an_empty_node_mode_beside_coreference_modes():
    """The platform's job: the coreference modes read together, the empty-node mode alone,
    results in the order asked, each the same as scoring it alone."""
    key, response = str(ZEROS / "TC-ZF.key"), str(ZEROS / "TC-ZF-4.response")
    words = [
        ["-f", "corefud", "-m", "muc", "-z"],
        ["-f", "corefud", "-m", "empty-nodes"],
        ["-f", "corefud", "-m", "bcub", "-z"],
    ]
    options = [parse_options(w).options for w in words]
    results = score_modes(key, response, options=options, per_doc=[True, False, False])
    assert [list(r.metrics) for r in results] == [["muc"], list(MEASURES), ["bcub"]]
    rows = score_rows(results[1], options[1], mode="empty-nodes", per_doc=False)
    assert [(r.mode, r.metric) for r in rows] == [("empty-nodes", m) for m in MEASURES]
    assert rows[0].counts == {"p_num": 1, "p_den": 2, "r_num": 1, "r_den": 1}
    assert results[0].documents and not results[1].documents


def test_the_docstring_examples_hold():
    import doctest

    import scoring.empty_nodes

    result = doctest.testmod(scoring.empty_nodes)
    assert result.attempted > 0 and result.failed == 0
