"""Every input on which the reference scorers crash, hang or stay silent gives exit status 2
and a ``FILE:LINE: what is wrong (what was expected)`` message with a stable code.

The cases are the policy's table (docs/scoring-policy.md) on hand-written files, and the crash
and hang fixtures of the conformance pack.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring import score_files
from scoring.cli import main
from scoring.errors import ScoringInputError, UsageError
from tests.paths import CONFORMANCE

FIXTURES = CONFORMANCE / "ua-fixtures"
HEADER = (
    "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY "
    "BRIDGING DISCOURSE_DEIXIS REFERENCE NOM_SEM"
)
GOOD_CELLS = ["(EntityID=1|MarkableID=m1)", "_", "(EntityID=1|MarkableID=m2)"]


def row(
    number: int | str,
    identity: str = "_",
    bridging: str = "_",
    dd: str = "_",
    form: str | None = None,
) -> str:
    return "\t".join(
        [str(number), form or f"w{number}"] + ["_"] * 8 + [identity, bridging, dd, "_", "_"]
    )


def document(
    cells: list[str], name: str = "d", bridging: dict[int, str] | None = None
) -> list[str]:
    bridging = bridging or {}
    return [f"# newdoc id = {name}"] + [
        row(i + 1, cell, bridging.get(i, "_")) for i, cell in enumerate(cells)
    ]


def write(tmp_path: Path, name: str, lines: list[str], header: bool = True) -> str:
    path = tmp_path / name
    path.write_text("\n".join(([HEADER] if header else []) + lines) + "\n", encoding="utf-8")
    return str(path)


def run_cli(capsys, key: str, response: str, *words: str) -> tuple[int, str, str]:
    status = main([key, response, *words])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# (id, response lines, options, code, line of the problem in the response file)
RESPONSE_CASES = [
    ("unbalanced_close", document([")", "_", "_"]), [], "unbalanced", 3),
    ("unclosed", document(["(EntityID=1|MarkableID=m1", "_", "_"]), [], "unclosed", 3),
    (
        "close_after_open",
        document(["(EntityID=1|MarkableID=m1", "_", "(EntityID=2|MarkableID=m2))"]),
        [],
        "close_after_open",
        5,
    ),
    ("stray_prefix", document(["x(EntityID=1|MarkableID=m1)", "_", "_"]), [], "bad_cell", 3),
    (
        "crossing_named",
        document(["(EntityID=1|MarkableID=m1", "(EntityID=2|MarkableID=m2", "m1)m2)"]),
        [],
        "crossing",
        5,
    ),
    ("missing_entity_id", document(["(MarkableID=m1)", "_", "_"]), [], "missing_entity_id", 3),
    (
        "wrong_case_markable_id",
        document(["(EntityID=1|MarkableId=m1)", "_", "_"]),
        [],
        "missing_markable_id",
        3,
    ),
    (
        "duplicate_markable_id",
        document(["(EntityID=1|MarkableID=m1)", "_", "(EntityID=1|MarkableID=m1)"]),
        [],
        "duplicate_markable_id",
        5,
    ),
    (
        "min_with_dash",
        document(["(EntityID=1|MarkableID=m1|Min=1-2)", "_", "_"]),
        ["-a", "head"],
        "bad_min",
        3,
    ),
    (
        "min_outside_document",
        document(["(EntityID=1|MarkableID=m1|Min=9)", "_", "_"]),
        ["-a", "head"],
        "bad_min",
        3,
    ),
    (
        "bridging_without_anchor",
        document(GOOD_CELLS, bridging={2: "(MarkableID=m2|Rel=poss)"}),
        ["keep_bridging"],
        "bridging_incomplete",
        5,
    ),
    (
        "bridging_without_parens",
        document(GOOD_CELLS, bridging={2: "MarkableID=m2|MentionAnchor=m1"}),
        ["keep_bridging"],
        "bridging_without_parens",
        5,
    ),
    ("tokens_before_newdoc", [row(0)] + document(GOOD_CELLS), [], "tokens_before_newdoc", 2),
    (
        "too_many_columns",
        document(GOOD_CELLS)[:2] + [row(2, form="two words")] + [row(3, GOOD_CELLS[2])],
        [],
        "too_many_columns",
        4,
    ),
    (
        "duplicate_document",
        document(GOOD_CELLS) + document(GOOD_CELLS),
        [],
        "duplicate_document",
        6,
    ),
    (
        "token_mismatch",
        document(GOOD_CELLS)[:2] + [row(2, form="other")] + [row(3, GOOD_CELLS[2])],
        [],
        "token_mismatch",
        4,
    ),
    ("token_count", document(GOOD_CELLS + ["_"]), [], "token_count", 2),
    (
        "self_membership",
        document(["(EntityID=1|MarkableID=m1|ElementOf=1)", "_", "(EntityID=1|MarkableID=m2)"]),
        [],
        "elementof_cycle",
        3,
    ),
    (
        "extra_document",
        document(GOOD_CELLS) + document(GOOD_CELLS, name="e"),
        [],
        "extra_documents",
        6,
    ),
]


@pytest.mark.parametrize(
    "lines, words, code, line",
    [case[1:] for case in RESPONSE_CASES],
    ids=[case[0] for case in RESPONSE_CASES],
)
def test_a_bad_response_exits_2_with_file_line_and_code(tmp_path, capsys, lines, words, code, line):
    """The message starts with RESPONSE:LINE and the API raises the same code."""
    key = write(tmp_path, "key.conllua", document(GOOD_CELLS))
    response = write(tmp_path, "response.conllua", lines)
    status, out, err = run_cli(capsys, key, response, *words)
    assert status == 2 and out == ""
    assert err.startswith(f"{response}:{line}: "), err
    assert "Traceback" not in err and "(expected" in err
    with pytest.raises(ScoringInputError) as error:
        score_files(key, response, words)
    assert (error.value.code, error.value.line) == (code, line)


def test_the_same_element_of_cycle_is_harmless_without_split_antecedents(tmp_path):
    """With remove_split_antecedent ElementOf is not followed, so the file scores."""
    key = write(tmp_path, "key.conllua", document(GOOD_CELLS))
    response = write(
        tmp_path,
        "response.conllua",
        document(["(EntityID=1|MarkableID=m1|ElementOf=1)", "_", "(EntityID=1|MarkableID=m2)"]),
    )
    result = score_files(key, response, ["remove_split_antecedent"])
    assert result["metrics"]["muc"]["f1"] == 1.0


def test_a_bad_min_is_ignored_where_no_mode_reads_min(tmp_path):
    """Exact matching never reads Min, as in both references: the file scores."""
    key = write(tmp_path, "key.conllua", document(GOOD_CELLS))
    response = write(
        tmp_path,
        "response.conllua",
        document(["(EntityID=1|MarkableID=m1|Min=1-2)", "_", "(EntityID=1|MarkableID=m2)"]),
    )
    assert score_files(key, response, [])["metrics"]["muc"]["f1"] == 1.0


@pytest.mark.parametrize(
    "content, code",
    [
        (b"", "empty_file"),
        (b"\n\n", "empty_file"),
        (HEADER.encode() + b"\n" + row(1).encode() + b"\n", "tokens_before_newdoc"),
        (b"# newdoc id = d\n" + row(1).encode().replace(b"w1", b"w\xff1") + b"\n", "undecodable"),
        (
            b"#begin document (wsj/0001); part 000\nwsj 0 0 Pierre NNP (1)\n#end document\n",
            "wrong_format",
        ),
        (
            b"# global.Entity = eid-etype-head-other\n# newdoc id = d\n1\tw\t_\t_\t_\t_\t_\t_\t_\t"
            b"Entity=(e1-x-1-)\n",
            "wrong_format",
        ),
        (b'<DOC>\n<COREF ID="1">x</COREF>\n</DOC>\n', "wrong_format"),
        (b"# newdoc\n" + row(1).encode() + b"\n", "bad_newdoc"),
    ],
)
def test_a_key_that_is_not_exploded_conll_ua_is_refused(tmp_path, capsys, content, code):
    """Empty, undecodable and other-format files: exit 2 with the key's name, no traceback."""
    key = tmp_path / "key.txt"
    key.write_bytes(content)
    response = write(tmp_path, "response.conllua", document(GOOD_CELLS))
    status, out, err = run_cli(capsys, str(key), response)
    assert status == 2 and out == "" and err.startswith(f"{key}:"), err
    assert "Traceback" not in err
    with pytest.raises(ScoringInputError) as error:
        score_files(str(key), response, [])
    assert error.value.code == code


def test_a_conll_2012_file_is_named_with_the_option_to_use(tmp_path, capsys):
    """UA scorer issue #2: CoNLL-2012 files printed zeros; we say what to do instead."""
    key = tmp_path / "key.conll"
    key.write_text("#begin document (x); part 000\nx 0 0 Pierre NNP (1)\n#end document\n")
    response = write(tmp_path, "response.conllua", document(GOOD_CELLS))
    status, _, err = run_cli(capsys, str(key), response)
    assert status == 2 and "CoNLL-2012" in err and "-f conll" in err


def test_a_missing_file_is_an_input_error(tmp_path, capsys):
    """A path that does not exist: exit 2, the path named."""
    response = write(tmp_path, "response.conllua", document(GOOD_CELLS))
    status, _, err = run_cli(capsys, str(tmp_path / "nope.conllua"), response)
    assert status == 2 and "nope.conllua" in err and "Traceback" not in err


def test_missing_documents_are_refused_by_default_and_listed(tmp_path, capsys):
    """A key document absent from the response: exit 2 naming it; skip/empty score."""
    key = write(tmp_path, "key.conllua", document(GOOD_CELLS) + document(GOOD_CELLS, "hard"))
    response = write(tmp_path, "response.conllua", document(GOOD_CELLS))
    status, _, err = run_cli(capsys, key, response)
    assert status == 2 and "missing from the response: hard" in err
    with pytest.raises(ScoringInputError) as error:
        score_files(key, response, [])
    assert error.value.code == "missing_documents"
    skipped = score_files(key, response, ["--missing-documents", "skip"])
    assert skipped["documents"] == ["d"] and skipped["metrics"]["muc"]["recall"] == 1.0
    assert any("hard" in warning for warning in skipped["warnings"])
    empty = score_files(key, response, ["--missing-documents", "empty"])
    assert empty["documents"] == ["d", "hard"] and empty["metrics"]["muc"]["recall"] == 0.5


def test_bad_options_exit_2_listing_the_valid_words(tmp_path, capsys):
    """A typo is a usage error, never a silent default mode (spec Q1)."""
    key = write(tmp_path, "key.conllua", document(GOOD_CELLS))
    status, out, err = run_cli(capsys, key, key, "remove_singleton", "keep_bridgin")
    assert status == 2 and out == "" and "keep_bridgin" in err and "keep_bridging" in err
    with pytest.raises(UsageError):
        score_files(key, key, ["remove_singletons", "evaluate_discourse_deixis"])


# -- the conformance pack's crash and hang fixtures ------------------------------------------
# (fixture, options, file that is wrong, code, line)
FIXTURE_CASES = [
    ("close_after_open_keyerror", [], "key", "close_after_open", 6),
    ("close_after_open_keyerror", ["-m", "muc", "-s", "-l"], "key", "close_after_open", 6),
    ("elementof_cycle_hang", [], "key", "elementof_cycle", 4),
    ("elementof_cycle_hang", ["only_split_antecedent"], "key", "elementof_cycle", 4),
    ("elementof_cycle_hang", ["-m", "conll", "-s", "-l"], "key", "elementof_cycle", 4),
    ("eleven_columns", ["keep_bridging"], "key", "too_few_columns", 4),
    ("eleven_columns", ["evaluate_discourse_deixis"], "key", "too_few_columns", 4),
    ("min_dash", ["min"], "key", "bad_min", 4),
    ("missing_doc", [], "sys", "missing_documents", None),
    ("bridging_no_parens", ["keep_bridging"], "sys", "bridging_without_parens", 8),
]


@pytest.mark.parametrize(
    "fixture, words, side, code, line",
    FIXTURE_CASES,
    ids=[f"{c[0]}-{'_'.join(c[1]) or 'default'}" for c in FIXTURE_CASES],
)
def test_every_crash_and_hang_fixture_is_an_input_error(capsys, fixture, words, side, code, line):
    """Where the reference raises or loops, we exit 2 naming the file, line and problem."""
    key, response = (str(FIXTURES / fixture / f"{s}.conllua") for s in ("key", "sys"))
    status, out, err = run_cli(capsys, key, response, *words)
    wrong = key if side == "key" else response
    where = wrong if line is None else f"{wrong}:{line}"
    assert status == 2 and out == "" and err.startswith(f"{where}: "), err
    with pytest.raises(ScoringInputError) as error:
        score_files(key, response, words)
    assert (error.value.code, error.value.line) == (code, line)


@pytest.mark.parametrize(
    "fixture, words",
    [
        ("eleven_columns", []),
        ("min_dash", []),
        ("elementof_cycle_hang", ["remove_split_antecedent"]),
        ("split_remove_singletons_crash", ["remove_singletons"]),
        ("duplicate_span_blanc_crash", ["remove_split_antecedent"]),
    ],
)
def test_fixtures_score_in_the_modes_that_do_not_need_what_is_wrong(fixture, words):
    """Eleven columns suffice for identity, Min is unused without `min`, and the policy
    defines remove_singletons with split antecedents and duplicate spans."""
    key, response = (str(FIXTURES / fixture / f"{s}.conllua") for s in ("key", "sys"))
    result = score_files(key, response, words)
    assert set(result["metrics"]) == {"lea", "muc", "bcub", "ceafe", "ceafm", "blanc"}
    assert all(0.0 <= s[k] <= 1.0 for s in result["metrics"].values() for k in s)
