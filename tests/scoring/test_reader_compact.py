"""The compact CorefUD / CONLL-UA reader (scoring.readers.compact)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring.errors import ScoringInputError
from scoring.readers import compact
from tests import paths
from tests.paths import CODI22, CONFORMANCE, GUM

COREFUD_TESTS = paths.COREFUD_TESTS / "tests-corefud"

HEADER = "# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = d-1\n"


def row(token_id: str, misc: str = "_", form: str | None = None, deps: str = "_") -> str:
    return (
        "\t".join([token_id, form or f"w{token_id}", "_", "_", "_", "_", "0", "_", deps, misc])
        + "\n"
    )


def write(tmp_path: Path, *rows: str, header: str = HEADER) -> Path:
    path = tmp_path / "file.conllu"
    path.write_text(header + "".join(rows) + "\n", encoding="utf-8")
    return path


# -- real files ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "GUM_bio_byron",
        "GUM_interview_cyclone",
        "GUM_interview_gaming",
        "GUM_news_homeopathic",
        "GUM_voyage_coron",
    ],
)
def test_it_reads_every_word_and_mention_of_the_gum_samples(name):
    """Words are the integer-ID lines; every '(' in an Entity value is one mention."""
    path = GUM / f"{name}.conllu"
    text = path.read_text(encoding="utf-8")
    words = len(re.findall(r"^\d+\t", text, re.M))
    openings = sum(value.count("(") for value in re.findall(r"Entity=([^|\t\n]*)", text))
    bridges = sum(len(v.split(",")) for v in re.findall(r"Bridge=([^|\t\n]*)", text))
    warnings: list[str] = []
    [doc] = compact.read(path, warnings=warnings)
    assert doc.name == name
    assert len(doc.tokens) == words
    assert len(doc.identity) == openings
    assert len(doc.bridging) == bridges
    assert warnings == []
    assert all(0 <= m.start <= m.end < words for m in doc.identity)
    ids = {m.markable_id for m in doc.identity}
    assert len(ids) == len(doc.identity)
    assert all(link.anaphor in ids and link.anchor in ids for link in doc.bridging)


def test_it_reads_gum_split_antecedents_as_element_of_on_the_antecedents():
    """GUM_bio_byron has SplitAnte=4<19,8<19: entities 4 and 8 are elements of 19."""
    [doc] = compact.read(GUM / "GUM_bio_byron.conllu")
    members = {m.entity_id for m in doc.identity if "19" in m.element_of}
    assert members == {"4", "8"}
    # one markable per antecedent entity carries it (the entity's first mention)
    firsts = {}
    for m in doc.identity:
        firsts.setdefault(m.entity_id, m)
    assert all(firsts[m.entity_id] is m for m in doc.identity if m.element_of)


def test_it_resolves_a_gum_bridge_to_the_nearest_preceding_anchor_mention():
    """Bridge=54<57 on 'My' (GUM_bio_byron line 391): anaphor opens there, anchor precedes."""
    [doc] = compact.read(GUM / "GUM_bio_byron.conllu")
    by_id = {m.markable_id: m for m in doc.identity}
    [link] = [b for b in doc.bridging if by_id[b.anaphor].entity_id == "57"]
    anaphor, anchor = by_id[link.anaphor], by_id[link.anchor]
    assert anaphor.line == 391
    candidates = [m for m in doc.identity if m.entity_id == "54" and m.start < anaphor.start]
    assert anchor == max(candidates, key=lambda m: (m.start, m.end))


def test_it_reads_every_file_of_the_corefud_scorer_suite():
    files = sorted(p for p in COREFUD_TESTS.rglob("*") if p.suffix in (".key", ".response"))
    assert len(files) > 100
    for path in files:
        assert compact.read(path), path


def test_it_sniffs_compact_files_and_not_the_others():
    assert compact.sniff((GUM / "GUM_bio_byron.conllu").read_text(encoding="utf-8")[:4000])
    conll = CONFORMANCE / "conll-reference" / "TC-A-1" / "key.conll"
    assert not compact.sniff(conll.read_text(encoding="utf-8"))
    exploded = next((CODI22).glob("*.CONLLUA"))
    assert not compact.sniff(exploded.read_text(encoding="utf-8")[:4000])


# -- hand-made inputs ----------------------------------------------------------------------


def test_it_reads_nested_single_word_and_closing_mentions(tmp_path):
    path = write(
        tmp_path,
        row("1", "Entity=(e1-person-2-(e2-place-1-)"),
        row("2"),
        row("3", "Entity=e1)"),
        row("4", "Entity=(e1-person-1-)"),
    )
    [doc] = compact.read(path)
    spans = sorted((m.entity_id, m.parts, m.head) for m in doc.identity)
    assert spans == [("e1", ((0, 2),), 1), ("e1", ((3, 3),), 3), ("e2", ((0, 0),), 0)]
    assert dict(doc.identity[0].attributes)["etype"] == "person"


def test_it_joins_the_parts_of_a_discontinuous_mention(tmp_path):
    path = write(
        tmp_path,
        row("1", "Entity=(e9[1/2]-x-1-"),
        row("2", "Entity=e9[1/2])"),
        row("3"),
        row("4", "Entity=(e9[2/2]-x-1-)"),
    )
    [doc] = compact.read(path)
    [mention] = doc.identity
    assert mention.parts == ((0, 1), (3, 3))


def test_interleaved_parts_of_one_entity_continue_its_earliest_mention(tmp_path):
    """Two discontinuous mentions of e9 whose parts interleave: part k continues the earliest
    mention of e9 with k-1 parts (docs/scoring-deviations.md: no reference defines it)."""
    path = write(
        tmp_path,
        row("1", "Entity=(e9[1/2]-x-1-)"),
        row("2", "Entity=(e9[1/2]-x-1-)"),
        row("3", "Entity=(e9[2/2]-x-1-)"),
        row("4", "Entity=(e9[2/2]-x-1-)"),
    )
    [doc] = compact.read(path)
    assert sorted(m.parts for m in doc.identity) == [((0, 0), (2, 2)), ((1, 1), (3, 3))]


def test_it_reads_empty_nodes_as_zeros_and_skips_multiword_ranges(tmp_path):
    path = write(
        tmp_path,
        row("1-2", form="dont"),
        row("1", "Entity=(e1-x-1-)"),
        row("2"),
        row("2.1", "Entity=(e1-x-1-)", deps="2:nsubj"),
        row("2.2", "Entity=(e2-x-2-"),
        row("3", "Entity=e2)"),
    )
    [doc] = compact.read(path)
    assert doc.tokens == ("w1", "w2", "w3")
    zero, multi = (
        [m for m in doc.identity if m.entity_id == "e1"][1],
        [m for m in doc.identity if m.entity_id == "e2"][0],
    )
    assert (zero.parts, zero.zero) == (((2, 2),), 1)
    # sentence 0 first; parent word 2 is position 1
    assert dict(zero.attributes)["deps"] == "@0|1:nsubj"
    # a mention of the second empty node and word 3, headed by word 3
    assert (multi.parts, multi.zeros, multi.head, multi.head_zero) == (((2, 2),), ((2, 2),), 2, 0)


def test_a_zero_s_dependencies_name_nodes_of_its_own_sentence_by_position(tmp_path):
    """A zero's DEPS name nodes of its sentence: its last word, another empty node, the root;
    an ID its sentence does not have (the first sentence has a word 4) is kept as written."""
    path = write(
        tmp_path,
        *(row(str(i)) for i in range(1, 5)),
        "\n# sent_id = d-2\n",
        row("1"),
        row("2"),
        row("2.1", "Entity=(e1-x-1-)", deps="3:obj|2.2:conj|0:root|4:nmod"),
        row("2.2", "Entity=(e2-x-1-)", deps="2:nsubj"),
        row("3"),
    )
    [doc] = compact.read(path, layout=False)
    deps = {m.entity_id: dict(m.attributes)["deps"] for m in doc.identity}
    # sentence 2's words are positions 4-6; its empty nodes come before position 6
    assert deps == {"e1": "@1|6:obj|6.2:conj|root:root|4:nmod", "e2": "@1|5:nsubj"}


def test_it_marks_a_zero_head_of_a_multi_word_mention(tmp_path):
    path = write(tmp_path, row("1", "Entity=(e1-x-2-"), row("1.1"), row("2", "Entity=e1)"))
    [doc] = compact.read(path)
    [mention] = doc.identity
    assert (mention.parts, mention.zeros, mention.head, mention.head_zero) == (
        ((0, 1),),
        ((1, 1),),
        1,
        1,
    )


def test_it_takes_the_field_order_from_global_entity(tmp_path):
    header = "# newdoc id = d\n# global.Entity = GRP-etype-infstat-minspan\n"
    path = write(
        tmp_path,
        row("1", "Entity=(7-person-new-2,3"),
        row("2"),
        row("3", "Entity=7)"),
        header=header,
    )
    [doc] = compact.read(path)
    [mention] = doc.identity
    # GUM's minspan is kept as an attribute: v2 (udapi) does not match on it
    assert (mention.entity_id, mention.head, mention.min_span) == ("7", None, None)
    assert ("infstat", "new") in mention.attributes and ("minspan", "2,3") in mention.attributes


def test_it_numbers_unnamed_documents_and_splits_at_newdoc(tmp_path):
    text = "# newdoc\n" + row("1", "Entity=(e1-x-1-)") + "\n# newdoc\n" + row("1") + "\n"
    path = tmp_path / "f.conllu"
    path.write_text(text, encoding="utf-8")
    docs = compact.read(path)
    assert [d.name for d in docs] == ["1", "2"]
    assert [len(d.identity) for d in docs] == [1, 0]


def test_it_warns_about_dangling_and_one_antecedent_split_antecedents(tmp_path):
    path = write(
        tmp_path,
        row("1", "Entity=(e1-x-1-)"),
        row("2", "Entity=(e2-x-1-)"),
        row("3", "Entity=(e3-x-1-)|SplitAnte=e1<e3,e1<e3,e9<e3"),
    )
    warnings: list[str] = []
    [doc] = compact.read(path, warnings=warnings)
    assert [m.element_of for m in doc.identity] == [("e3",), (), ()]
    text = "\n".join(warnings)
    assert "repeated" in text and "e9" in text and "one antecedent" in text
    assert all(w.startswith(f"{path}:6: ") for w in warnings)


@pytest.mark.parametrize(
    "rows, line, code",
    [
        ((row("1", "Entity=(e1-x-1-"), row("2")), 4, "unclosed"),
        ((row("1"), row("2", "Entity=e5)")), 5, "unopened"),
        ((row("1", "Entity=(e1-x-3-"), row("2", "Entity=e1)")), 4, "head"),
        ((row("1", "Entity=(e1-x-1-)junk"),), 4, "brackets"),
        (("1\tw\t_\t_\n",), 4, "columns"),
        ((row("x1"),), 4, "token_id"),
        ((row("1", "Entity=(e1[2/2]-x-1-)"),), 4, "brackets"),
    ],
)
def test_it_reports_bad_input_with_file_and_line(tmp_path, rows, line, code):
    path = write(tmp_path, *rows)
    with pytest.raises(ScoringInputError) as caught:
        compact.read(path)
    assert caught.value.code == code
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_it_reports_bytes_that_are_not_utf8_with_their_line(tmp_path):
    path = tmp_path / "bad.conllu"
    path.write_bytes(HEADER.encode() + row("1").encode() + b"2\t\xff\t_\t_\t_\t_\t0\t_\t_\t_\n")
    with pytest.raises(ScoringInputError) as caught:
        compact.read(path)
    assert (caught.value.code, caught.value.line) == ("encoding", 5)


def test_it_escapes_and_unescapes_field_delimiters():
    for value in ["12-Pseudo", "a,b:c", "(x)|y=z", "100%", "plain"]:
        escaped = compact.escape(value)
        assert not set("-,:()|=") & set(escaped)
        assert compact.unescape(escaped) == value


def test_collect_receives_the_problem_instead_of_an_exception(tmp_path):
    path = write(tmp_path, row("1", "Entity=(e1-x-1-"))
    problems: list = []
    assert compact.read(path, collect=problems) == []
    assert [p.code for p in problems] == ["unclosed"]
    with pytest.raises(ScoringInputError) as caught:
        compact.read(tmp_path / "missing.conllu")
    assert caught.value.code == "unreadable"


# -- a mention without a head annotation (v2 reads it through udapi) -------------------------

HEADLESS = "# newdoc id = d\n# global.Entity = eid-etype\n# sent_id = d-1\n"


def headless_pair(tmp_path: Path, response_rows: list[str]) -> tuple[str, str]:
    """Key: e1 = {w1 w2 w3, w5}; no mention has a head field."""
    key = [
        row("1", "Entity=(e1-x"),
        row("2"),
        row("3", "Entity=e1)"),
        row("4"),
        row("5", "Entity=(e1-x)"),
    ]
    (tmp_path / "k").mkdir()
    (tmp_path / "r").mkdir()
    return (
        str(write(tmp_path / "k", *key, header=HEADLESS)),
        str(write(tmp_path / "r", *response_rows, header=HEADLESS)),
    )


@pytest.mark.parametrize("first, last, aligned", [(1, 2, True), (1, 3, True), (2, 3, False)])
def test_partial_matching_takes_the_first_word_of_a_headless_key_as_its_minimum(
    tmp_path, first, last, aligned
):
    """udapi gives a mention without a head its first node as head; v2's partial-corefud
    score needs the key's head inside the response mention, which lies inside the key."""
    from scoring import score_files

    rows = [row(str(i), "_") for i in range(1, 6)]
    rows[first - 1] = row(str(first), "Entity=(e1-x" + (")" if first == last else ""))
    if last != first:
        rows[last - 1] = row(str(last), "Entity=e1)")
    rows[4] = row("5", "Entity=(e1-x)")
    key, response = headless_pair(tmp_path, rows)
    result = score_files(key, response, ["-f", "corefud", "-a", "partial-corefud", "-m", "muc"])
    assert result["metrics"]["muc"]["recall"] == (1.0 if aligned else 0.0)
    exact = score_files(key, response, ["-f", "corefud", "-m", "muc"])
    assert exact["metrics"]["muc"]["recall"] == (1.0 if (first, last) == (1, 3) else 0.0)


@pytest.mark.parametrize("first, aligned", [(1, True), (2, False)])
def test_head_matching_compares_the_first_words_of_headless_mentions(tmp_path, first, aligned):
    from scoring import score_files

    rows = [row(str(i), "_") for i in range(1, 6)]
    rows[first - 1] = row(str(first), "Entity=(e1-x")
    rows[first] = row(str(first + 1), "Entity=e1)")
    rows[4] = row("5", "Entity=(e1-x)")
    key, response = headless_pair(tmp_path, rows)
    result = score_files(key, response, ["-f", "corefud", "-a", "head", "-m", "muc"])
    assert result["metrics"]["muc"]["recall"] == (1.0 if aligned else 0.0)


@pytest.mark.parametrize("head, zero", [("", True), ("-2", False), ("-1", True)])
def test_a_headless_mention_that_opens_on_an_empty_node_is_a_zero(tmp_path, head, zero):
    """v2's ``is_zero`` is its head's ``is_empty()``, the first node when none is annotated.
    Without -z zeros leave: key e1 = {1.1-2, 4}, response e1 = {1.1-2}, e2 = {4}."""
    from scoring import score_files

    header = "# newdoc id = d\n# global.Entity = eid-etype-head\n# sent_id = d-1\n"

    def doc(entity_of_4: str) -> list[str]:
        return [
            row("1"),
            row("1.1", f"Entity=(e1-x{head}"),
            row("2", "Entity=e1)"),
            row("3"),
            row("4", f"Entity=({entity_of_4}-x)"),
        ]

    (tmp_path / "k").mkdir()
    (tmp_path / "r").mkdir()
    key = str(write(tmp_path / "k", *doc("e1"), header=header))
    response = str(write(tmp_path / "r", *doc("e2"), header=header))
    result = score_files(key, response, ["-f", "corefud", "-s", "-m", "bcub"])
    assert result["metrics"]["bcub"]["recall"] == (1.0 if zero else 0.5)


def test_reading_without_layout_keeps_sentence_ids_and_every_annotation(tmp_path):
    """layout=False (how scoring reads) drops only the token rows a converter needs: the
    documents, tokens, mentions and sentence comments are those of a full read."""

    from scoring.readers import compact as reader

    samples = sorted(GUM.glob("*.conllu"))
    assert samples
    for path in samples:
        full = reader.read(path)
        lean = reader.read(path, layout=False)
        assert [(d.name, d.tokens, d.identity, d.bridging) for d in lean] == [
            (d.name, d.tokens, d.identity, d.bridging) for d in full
        ]
        assert [[s.comments for s in d.sentences] for d in lean] == [
            [s.comments for s in d.sentences] for d in full
        ]
        assert all(not s.rows for d in lean for s in d.sentences)


# -- what the exploded reader refuses, refused here too (issue 25, item 5) ----------------

TWO_DOCS = (
    "# newdoc id = a\n# global.Entity = eid-etype-head-other\n# sent_id = a-1\n"
    "1\tw\t_\t_\t_\t_\t0\t_\t_\tEntity=(1--1-)\n2\tv\t_\t_\t_\t_\t1\t_\t_\t_\n\n"
    "# newdoc id = b\n# sent_id = b-1\n"
    "1\tw\t_\t_\t_\t_\t0\t_\t_\tEntity=(1--1-)\n\n"
)


@pytest.mark.parametrize(
    "where, line, column",
    [
        ("Entity=(1--1-)", 4, 32),  # in MISC
        ("# sent_id = a-1", 3, 4),  # in a comment
        ("\tv\t", 5, 4),  # in a form
    ],
)
@pytest.mark.parametrize("layout", [True, False])
def test_a_nul_character_is_refused_with_its_line_and_column(tmp_path, where, line, column, layout):
    """Anywhere in the file, as the CONLL-UA reader refuses it (``nul_character``)."""
    at = TWO_DOCS.index(where) + (
        len(where) - 1 if where.startswith("Entity") else 3 if where.startswith("#") else 2
    )
    path = tmp_path / "nul.conllu"
    path.write_text(TWO_DOCS[:at] + "\x00" + TWO_DOCS[at:], encoding="utf-8")
    with pytest.raises(ScoringInputError) as error:
        compact.read(path, layout=layout)
    assert (error.value.line, error.value.code) == (line, "nul_character")
    assert f"column {column}" in error.value.message
    problems: list = []
    assert compact.read(path, collect=problems) == [] and problems[0].line == line


@pytest.mark.parametrize("layout", [True, False])
def test_the_same_document_twice_is_refused_at_its_second_newdoc(tmp_path, layout):
    path = tmp_path / "twice.conllu"
    path.write_text(TWO_DOCS.replace("newdoc id = b", "newdoc id = a"), encoding="utf-8")
    with pytest.raises(ScoringInputError) as error:
        compact.read(path, layout=layout)
    assert (error.value.line, error.value.code) == (7, "duplicate_document")
    assert "document 'a' appears twice" in error.value.message
    assert (
        len(
            compact.read(
                tmp_path / "ok.conllu"
                if (tmp_path / "ok.conllu").write_text(TWO_DOCS, encoding="utf-8")
                else path,
                layout=layout,
            )
        )
        == 2
    )


def test_uploads_and_keys_are_refused_alike(tmp_path):
    """The validator of uploads and the scorer (keys too) read with the same reader."""
    from scoring import score_files, validate_response

    key = tmp_path / "key.conllu"
    key.write_text(TWO_DOCS, encoding="utf-8")
    twice = tmp_path / "twice.conllu"
    twice.write_text(TWO_DOCS + TWO_DOCS[TWO_DOCS.index("# newdoc id = b") :], encoding="utf-8")
    (problem,) = validate_response(str(key), str(twice), ["-f", "corefud"])
    assert (problem.line, problem.code) == (11, "duplicate_document")
    for pair in ((key, twice), (twice, key)):
        with pytest.raises(ScoringInputError) as error:
            score_files(str(pair[0]), str(pair[1]), ["-f", "corefud"])
        assert (error.value.path, error.value.code) == (str(twice), "duplicate_document")
