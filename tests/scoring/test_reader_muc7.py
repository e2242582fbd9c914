"""The MUC-7 SGML coreference reader (scoring.readers.muc7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring import filters
from scoring.errors import ScoringInputError
from scoring.readers import muc7

DATA = Path(__file__).resolve().parent / "data"
KEY = DATA / "muc7_key.sgml"
RESPONSE = DATA / "muc7_response.sgml"


def chains(doc) -> list[list[str]]:
    out: dict[str, list[str]] = {}
    for m in doc.identity:
        out.setdefault(m.entity_id, []).append(" ".join(doc.tokens[m.start : m.end + 1]))
    return sorted(out.values())


def test_it_reads_documents_by_docno_and_tokenizes_words_and_punctuation():
    docs = muc7.read(KEY)
    assert [d.name for d in docs] == ["nyt960214.0704", "nyt960214.0705"]
    assert docs[0].tokens[:6] == ("Lawson", "Mardon", "Group", "Ltd", ".", "said")
    assert docs[0].token_lines[0] == 4 and docs[0].token_lines[5] == 4


def test_it_builds_chains_from_ref_links_whatever_their_direction():
    """6 REFs 2, 2 REFs 1: one chain; 7 REFs 4 (nested in 3); 5 REFs 3."""
    doc = muc7.read(KEY)[0]
    assert chains(doc) == [
        ["Lawson Mardon Group Ltd .", "it", "the company"],
        ["Surrey", "the county"],
        ["the plant in Surrey", "It"],
    ]
    # the chain is named after its first markable
    assert {m.entity_id for m in doc.identity if m.markable_id in ("1", "2", "6")} == {"1"}


def test_it_turns_min_into_a_minimum_span_and_keeps_status_opt():
    doc = muc7.read(KEY)[0]
    by_id = {m.markable_id: m for m in doc.identity}
    assert by_id["1"].min_span == (2, 2)  # "Group"
    assert by_id["3"].min_span == (10, 10)  # "plant"
    assert dict(by_id["6"].attributes)["STATUS"] == "OPT"
    assert "STATUS" not in dict(by_id["2"].attributes)


def test_key_and_response_tokens_align():
    key, response = muc7.read(KEY), muc7.read(RESPONSE)
    assert [d.tokens for d in key] == [d.tokens for d in response]
    assert chains(response[0])[0] == ["Lawson Mardon Group", "it", "It"]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "f.sgml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_without_doc_is_one_document(tmp_path):
    path = write(tmp_path, '<COREF ID="a">He</COREF> saw <COREF ID="b" REF="a">himself</COREF>.\n')
    [doc] = muc7.read(path)
    assert doc.name == "1" and chains(doc) == [["He", "himself"]]


def test_a_min_outside_its_markable_is_a_warning(tmp_path):
    path = write(tmp_path, '<DOC><COREF ID="1" MIN="dog">the cat</COREF></DOC>\n')
    warnings: list[str] = []
    [doc] = muc7.read(path, warnings=warnings)
    assert doc.identity[0].min_span is None
    assert warnings and warnings[0].startswith(f"{path}:1: ")


@pytest.mark.parametrize(
    "text, line, code",
    [
        ('<DOC>\n<COREF ID="1">a</COREF>\n<COREF ID="1">b</COREF>\n</DOC>', 3, "duplicate_id"),
        ('<DOC>\n<COREF ID="1" REF="9">a</COREF>\n</DOC>', 2, "dangling_ref"),
        ('<DOC>\n<COREF ID="1">a\n</DOC>', 2, "unclosed"),
        ("<DOC>\na</COREF>\n</DOC>", 2, "unbalanced"),
        ("<DOC>\n<COREF>a</COREF>\n</DOC>", 2, "missing_id"),
        ('<DOC>\n<COREF ID="1"></COREF>\n</DOC>', 2, "empty_markable"),
        ('<DOC>\n<COREF ID="1">a</COREF>\n', 1, "nesting"),
    ],
)
def test_it_reports_bad_markup_with_file_and_line(tmp_path, text, line, code):
    path = write(tmp_path, text)
    with pytest.raises(ScoringInputError) as caught:
        muc7.read(path)
    assert (caught.value.code, caught.value.line) == (code, line)


def test_it_sniffs_coref_markup():
    assert muc7.sniff(KEY.read_text(encoding="utf-8"))
    assert not muc7.sniff("# newdoc id = x\n1\ta\n")


def test_optional_key_markables_count_only_where_the_response_marks_them():
    """'the company' (OPT) is unmarked in the response: dropped; nothing else changes."""
    key, response = muc7.read(KEY), muc7.read(RESPONSE)
    kept = filters.drop_unmarked_optional(key[0], response[0]).identity
    assert [m.markable_id for m in kept] == ["1", "2", "3", "4", "5", "7"]
    assert filters.drop_unmarked_optional(key[0], key[0]) is key[0]
    # 'Livingston Street' (OPT, doc 2) is unmarked too
    assert [
        m.markable_id for m in filters.drop_unmarked_optional(key[1], response[1]).identity
    ] == ["1", "2"]


def test_an_optional_markable_with_min_is_marked_by_any_span_between_min_and_it(tmp_path):
    key = write(
        tmp_path, '<DOC><COREF ID="1" MIN="dog" STATUS="OPT">the big dog</COREF> barks</DOC>'
    )
    response = tmp_path / "r.sgml"
    response.write_text('<DOC>the <COREF ID="9">big dog</COREF> barks</DOC>', encoding="utf-8")
    [k], [r] = muc7.read(key), muc7.read(response)
    assert len(filters.drop_unmarked_optional(k, r).identity) == 1


def test_muc7_files_score_with_min_matching_after_optional_markables_are_dropped():
    """Hand-computed MUC for the test files with MUC-7's rules (MIN matching, OPT):

    doc 1 key (OPT 'the company' unmarked, dropped): {LMG Ltd., it} {the plant in Surrey,
    It} {Surrey, the county}; response {LMG, it, It} {the plant in Surrey, the county};
    'LMG' covers MIN 'Group' inside the key span, so it matches. Recall: 1 + 0 + 0 of 3
    links; precision: 1 + 0 of 3. Doc 2 has no key or response links.
    """
    from scoring.engine import score_corpus
    from scoring.options import parse_options

    keys, responses = muc7.read(KEY), muc7.read(RESPONSE)
    pairs = [(filters.drop_unmarked_optional(k, r), r) for k, r in zip(keys, responses)]
    options = parse_options(["-f", "muc7", "-s", "-a", "partial-corefud", "-m", "muc"]).options
    muc = score_corpus(pairs, options).metrics["muc"]
    assert (muc.prf.recall, muc.prf.precision) == pytest.approx((1 / 3, 1 / 3), abs=1e-12)
    exact = parse_options(["-f", "muc7", "-s", "-m", "muc"]).options
    assert score_corpus(pairs, exact).metrics["muc"].prf.recall == 0.0
