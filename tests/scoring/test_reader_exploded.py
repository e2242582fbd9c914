"""The exploded CONLL-UA reader on hand-written files: layout, brackets, attributes, layers."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.errors import ScoringInputError
from scoring.readers import exploded
from tests.paths import CONFORMANCE, COREFUD_TESTS, CORPORA

FIXTURES = CONFORMANCE / "ua-fixtures"
HEADER = (
    "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY "
    "BRIDGING DISCOURSE_DEIXIS REFERENCE NOM_SEM"
)


def row(
    number: str, form: str, identity: str = "_", bridging: str = "_", dd: str = "_", sep: str = "\t"
) -> str:
    return sep.join([number, form] + ["_"] * 8 + [identity, bridging, dd, "_", "_"])


def write(
    tmp_path: Path,
    lines: list[str],
    name: str = "f.conllua",
    newline: str = "\n",
    header: str | None = HEADER,
) -> str:
    path = tmp_path / name
    text = newline.join(([header] if header else []) + lines) + newline
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def spans(doc, layer: str = "identity") -> dict[str, tuple]:
    return {m.markable_id: m.parts for m in getattr(doc, layer)}


def test_it_reads_closings_first_and_nested_single_token_markables(tmp_path):
    """`)(…)` closes the outer markable, then opens and closes a one-token one."""
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            row("1", "the", "(EntityID=4|MarkableID=m7|Min=2|SemType=dn"),
            row("2", "car", ")(EntityID=5|MarkableID=m8|Min=2)"),
            row("3", "of", "(EntityID=6|MarkableID=m9(EntityID=7|MarkableID=m10"),
            row("4", "it", "))"),
        ],
    )
    [doc] = exploded.read(path)
    assert spans(doc) == {"m7": ((0, 1),), "m8": ((1, 1),), "m9": ((2, 3),), "m10": ((2, 3),)}
    assert doc.tokens == ("the", "car", "of", "it")
    assert doc.token_lines == (3, 4, 5, 6)
    assert {m.markable_id: m.min_span for m in doc.identity}["m7"] == (1, 1)


def test_it_splits_on_runs_of_spaces_and_reads_missing_trailing_columns_as_empty(tmp_path):
    """The CODI-CRAC files pad with spaces and often lack the last column; CRLF is fine."""
    lines = [
        "# newdoc id = d",
        "1   a     _ _ _ _ _ _ _ _  (EntityID=1|MarkableID=m1|Min=1,2   _  _  _",
        "2   dog   _ _ _ _ _ _ _ _  )                                   _  _",
    ]
    path = write(tmp_path, lines, newline="\r\n")
    [doc] = exploded.read(path)
    assert spans(doc) == {"m1": ((0, 1),)}
    assert doc.identity[0].min_span == (0, 1)


@pytest.mark.parametrize(
    "newdoc",
    [
        "# newdoc id = abc/def",
        "# newdoc id=abc/def",
        "#newdoc id = abc/def",
        "# newdoc id =abc/def  ",
    ],
)
def test_it_reads_every_spelling_of_newdoc_to_the_same_name(tmp_path, newdoc):
    """The name is what follows ``id =``, however spaced (the reference cut line[14:])."""
    path = write(tmp_path, [newdoc, row("1", "a")])
    assert [doc.name for doc in exploded.read(path)] == ["abc/def"]


def test_the_newdoc_no_spaces_fixture_keeps_its_full_name():
    """Fixture newdoc_no_spaces: the reference names the document 'cdef'; we read 'abcdef'."""
    [doc] = exploded.read(str(FIXTURES / "newdoc_no_spaces" / "key.conllua"))
    assert doc.name == "abcdef"


def test_it_reads_attributes_non_referring_and_split_antecedents(tmp_path):
    """EntityID keeps its -Pseudo suffix; ElementOf is a comma list; other attributes stay."""
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            row("1", "it", "(EntityID=3-Pseudo|MarkableID=m1|SemType=expletive)"),
            row("2", "she", "(EntityID=1|MarkableID=m2|ElementOf=5,6)"),
            row("3", "they", "(EntityID=5|MarkableID=m3)"),
        ],
    )
    [doc] = exploded.read(path)
    by_id = {m.markable_id: m for m in doc.identity}
    assert by_id["m1"].non_referring and not by_id["m2"].non_referring
    assert by_id["m2"].element_of == ("5", "6")
    assert ("SemType", "expletive") in by_id["m1"].attributes
    assert by_id["m1"].line == 3


def test_it_reads_bridging_links_and_the_dd_layer(tmp_path):
    """BRIDGING cells give (anaphor, anchor, Rel); DISCOURSE_DEIXIS is its own layer."""
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            row(
                "1",
                "house",
                "(EntityID=1|MarkableID=m1)",
                "_",
                "(EntityID=2-DD|MarkableID=dd1|Min=1,2",
            ),
            row(
                "2",
                "door",
                "(EntityID=2|MarkableID=m2)",
                "(MarkableID=m2|Rel=poss|MentionAnchor=m1|EntityAnchor=1)",
                ")",
            ),
            row("3", "that", "(EntityID=3|MarkableID=m3)", "_", "(EntityID=2-DD|MarkableID=m3)"),
        ],
    )
    [doc] = exploded.read(path)
    [link] = doc.bridging
    assert (link.anaphor, link.anchor, link.relation, link.line) == ("m2", "m1", "poss", 4)
    assert spans(doc, "discourse_deixis") == {"dd1": ((0, 1),), "m3": ((2, 2),)}
    assert doc.discourse_deixis[0].min_span == (0, 1)


def test_it_takes_column_positions_from_global_columns(tmp_path):
    """The UA v1.0 layout has a SPLIT column before BRIDGING: positions follow the header."""
    header = (
        "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC "
        "IDENTITY SPLIT BRIDGING DISCOURSE_DEIXIS"
    )
    cells = ["_"] * 8
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            "\t".join(["1", "house", *cells, "(EntityID=1|MarkableID=m1)", "_", "_", "_"]),
            "\t".join(
                [
                    "2",
                    "door",
                    *cells,
                    "(EntityID=2|MarkableID=m2)",
                    "_",
                    "(MarkableID=m2|Rel=poss|MentionAnchor=m1)",
                    "_",
                ]
            ),
        ],
        header=header,
    )
    [doc] = exploded.read(path, layers=["identity", "bridging"])
    assert [(b.anaphor, b.anchor) for b in doc.bridging] == [("m2", "m1")]


def test_it_reads_codi_crac_positions_without_a_header(tmp_path):
    """No ``# global.columns``: IDENTITY, BRIDGING, DISCOURSE_DEIXIS are columns 11-13."""
    path = write(
        tmp_path, ["# newdoc id = d", row("1", "a", "(EntityID=1|MarkableID=m1)")], header=None
    )
    assert spans(exploded.read(path)[0]) == {"m1": ((0, 0),)}


def test_zeros_are_not_word_tokens_and_sit_before_the_next_word(tmp_path):
    """A ``5.1`` line is a zero: no token; its markable is at the next word, zero = rank."""
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            row("1", "came", "(EntityID=1|MarkableID=m1)"),
            row("1.1", "_", "(EntityID=2|MarkableID=z1)"),
            row("1.2", "_", "(EntityID=2|MarkableID=z2)"),
            row("2", "home", "(EntityID=2|MarkableID=m2)"),
        ],
    )
    [doc] = exploded.read(path)
    assert doc.tokens == ("came", "home")
    assert {m.markable_id: (m.parts, m.zero) for m in doc.identity} == {
        "m1": (((0, 0),), 0),
        "z1": (((1, 1),), 1),
        "z2": (((1, 1),), 2),
        "m2": (((1, 1),), 0),
    }


def test_a_repeated_markable_id_is_one_discontinuous_markable_when_asked(tmp_path):
    """v2 reads the same MarkableID opened twice as one markable of two parts."""
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            row("1", "a", "(EntityID=1|MarkableID=m1)"),
            row("2", "b"),
            row("3", "c", "(EntityID=1|MarkableID=m1"),
            row("4", "d", ")"),
        ],
    )
    [doc] = exploded.read(path, discontinuous=True)
    assert spans(doc) == {"m1": ((0, 0), (2, 3))}
    with pytest.raises(ScoringInputError) as error:
        exploded.read(path)
    assert (error.value.code, error.value.line) == ("duplicate_markable_id", 5)


def test_named_closings_close_crossing_markables_only_when_allowed(tmp_path):
    """``m1)`` closes m1 by name; crossing m1/m2 needs --allow-boundary-crossing."""
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            row("1", "a", "(EntityID=1|MarkableID=m1"),
            row("2", "b", "(EntityID=2|MarkableID=m2"),
            row("3", "c", "m1)"),
            row("4", "d", "m2)"),
        ],
    )
    [doc] = exploded.read(path, allow_crossing=True)
    assert spans(doc) == {"m1": ((0, 2),), "m2": ((1, 3),)}
    with pytest.raises(ScoringInputError) as error:
        exploded.read(path)
    assert (error.value.code, error.value.line) == ("crossing", 5)


def test_it_keeps_the_layout_for_converters(tmp_path):
    """Comments and raw rows are kept per sentence, the header in the metadata."""
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            "# sent_id = d-1",
            row("1", "a"),
            "",
            "# sent_id = d-2",
            row("2", "b"),
            row("3", "c"),
        ],
    )
    [doc] = exploded.read(path)
    assert [s.comments for s in doc.sentences] == [
        ("# newdoc id = d", "# sent_id = d-1"),
        ("# sent_id = d-2",),
    ]
    assert [len(s.rows) for s in doc.sentences] == [1, 2]
    assert doc.sentences[1].rows[0][:2] == ("2", "b")
    assert doc.metadata["global.columns"] == HEADER
    assert exploded.read(path, layout=False)[0].sentences == ()


def test_only_the_layers_asked_for_are_read(tmp_path):
    """A scoring mode reads only its columns: the DD mode ignores a broken IDENTITY cell."""
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            row("1", "a", "x(broken", "_", "(EntityID=1-DD|MarkableID=d1)"),
        ],
    )
    [doc] = exploded.read(path, layers=["discourse_deixis"])
    assert spans(doc, "discourse_deixis") == {"d1": ((0, 0),)} and doc.identity == ()
    with pytest.raises(ScoringInputError):
        exploded.read(path, layers=["identity"])


def test_document_names_scans_the_names_and_lines_the_reader_sees(tmp_path):
    """The fast byte scan agrees with the reader on names and their lines."""
    path = write(
        tmp_path,
        ["# newdoc id = a", row("1", "x"), "", "#newdoc id=b/c", row("1", "y")],
        newline="\r\n",
    )
    assert exploded.document_names(path) == [("a", 2), ("b/c", 5)]
    assert [(d.name, d.line) for d in exploded.read(path)] == [("a", 2), ("b/c", 5)]


def test_iter_documents_yields_documents_one_at_a_time(tmp_path):
    """The reader is lazy: the first document arrives before the file's end is parsed."""
    path = write(
        tmp_path, ["# newdoc id = a", row("1", "x"), "# newdoc id = b", row("1", "y", ")")]
    )
    documents = exploded.iter_documents(path)
    assert next(documents).name == "a"
    with pytest.raises(ScoringInputError) as error:
        next(documents)
    assert error.value.code == "unbalanced"


def test_sniff_and_other_format_tell_exploded_files_from_the_rest():
    """Exploded heads sniff True; CoNLL-2012, compact and SGML heads are named."""
    assert exploded.sniff(HEADER + "\n# newdoc id = d\n")
    assert exploded.sniff(row("1", "a", "(EntityID=1|MarkableID=m)"))
    assert not exploded.sniff("#begin document (x); part 000\n")
    assert "CoNLL-2012" in exploded.other_format("#begin document (x); part 000\n")
    assert "corefud" in exploded.other_format("# global.Entity = eid-etype-head-other\n")
    assert "muc7" in exploded.other_format("<DOC>\n")
    assert exploded.other_format(HEADER + "\n") is None


def test_a_declared_exploded_file_is_never_taken_for_another_format():
    """A header naming IDENTITY wins over a first token line that lacks the columns."""
    head = HEADER + "\n# newdoc id = d\n" + "\t".join(["1", "a"] + ["_"] * 8) + "\n"
    assert exploded.other_format(head) is None
    assert "corefud" in exploded.other_format(head.split("\n", 1)[1])


# -- a file read in two parts reads as the whole file (what parallel scoring relies on) -------
SETTINGS = [
    {"layers": ["identity"], "layout": False, "read_min": False},
    {"layers": ["identity", "bridging"], "layout": False, "check_min": True},
    {"layers": ["discourse_deixis"], "layout": False, "discontinuous": True},
    {"layers": ["identity"], "layout": False, "allow_crossing": True, "discontinuous": True},
]


def outcome(path: str, settings: dict, parts=(None,)) -> tuple:
    """Documents and the first error (as plain values) of reading ``parts`` one after the
    other, stopping at the first part that raises."""
    docs = []
    for part in parts:
        try:
            docs.extend(exploded.iter_documents(path, part=part, **settings))
        except ScoringInputError as error:
            return docs, (str(error), error.code, error.line, error.document)
    return docs, None


def assert_parts_read_as_whole(path: str, settings: dict) -> int:
    """Cut the file before each of its documents in turn; the number of cuts tried. Files with
    unnamed or repeated documents are not cut (scoring stops on them before it parts a run)."""
    whole = outcome(path, settings)
    starts, partable = exploded.document_offsets(path)
    names = [name for name, _ in exploded.document_names(path)]
    if not partable or not starts or "" in names or len(set(names)) < len(names):
        return 0
    prefix = starts[0][0]
    for offset, line in starts[1:]:
        parts = [(prefix, 0, offset, 1), (prefix, offset, 1 << 62, line)]
        assert outcome(path, settings, parts) == whole, (path, line)
    return len(starts) - 1


def data_files() -> list[Path]:
    return sorted(
        p
        for folder in (CONFORMANCE, COREFUD_TESTS, CORPORA)
        for p in folder.rglob("*")
        if p.suffix.lower() == ".conllua"
    )


@pytest.mark.parametrize("reading", SETTINGS, ids=lambda s: "-".join(s["layers"]))
def test_every_data_file_reads_in_two_parts_as_whole(reading):
    files = data_files()
    assert len(files) > 100
    cuts = sum(
        assert_parts_read_as_whole(str(path), reading)
        for path in files
        if path.stat().st_size < 200_000
    )
    assert cuts > 50


@pytest.mark.parametrize(
    "lines",
    [
        [
            "# newdoc id = a",
            row("1", "x", "(EntityID=1|MarkableID=m1)"),
            row("2", "y"),
            "",
            "# a comment",
            row("3", "z", "(EntityID=1|MarkableID=m2"),
            row("4", "w", ")"),
            "# newdoc id = b",
            row("1", "x"),
            row("2", "y", "(EntityID=3|MarkableID=m1)"),
        ],
        ["# newdoc id = a", row("1", "x"), "# newdoc id = a", row("1", "x")],  # duplicate
        ["# newdoc id = a", row("1", "x"), "# newdoc", row("1", "x")],  # no name
        [
            "# newdoc id = a",
            row("1", "x", "(EntityID=1|MarkableID=m1"),
            "# newdoc id = b",
            row("1", "x", ")"),
        ],  # unclosed, then unbalanced
        ["# newdoc id = a", row("1", "x"), "1 x _", row("2", "y")],  # too few columns
        ["# newdoc id = a", row("1", "x") + "\t_\t_", row("2", "y")],  # too many columns
        [
            "# newdoc id = a",
            row("1", "x"),
            row("1.1", "∅", "(EntityID=1|MarkableID=m1)"),
            row("2", "y"),
        ],  # a zero
        ["# newdoc id = a", row("1", "x\u00a0y"), row("2", "y")],  # a space outside ASCII
        ["# newdoc id = a", row("1", "x\u2009y"), row("2", "é")],  # another one
        ["# newdoc id = a", row("1", "x"), "# global.columns = ID FORM IDENTITY", "1 x _"],
        ["# newdoc id = a", row("1", "x"), "#begin document (x); part 000"],
        [
            "# newdoc id = a",
            row("1", "x", "(EntityID=1|MarkableID=m1)", sep="   "),
            "  \t ",
            row("2", "x", "y(EntityID=1|MarkableID=m2)", sep=" \x1f"),
        ],  # bad cell
        [
            "# newdoc id = a",
            row("1", "x", "(EntityID=1|MarkableID=m1", "(MarkableID=m1|MentionAnchor=m0)"),
            row("2", "y", ")", ")"),
        ],
        ["# newdoc id = a", row("1", "x", "_", "_", "(EntityID=1|MarkableID=d1)")],
        ["# newdoc id = a", row("1", "#x"), "  # newdoc id = b", row("1", "y")],
        ["# newdoc id = a"],
        ["# newdoc id = a", "", ""],
        [row("1", "x"), "# newdoc id = a", row("1", "x")],  # tokens before newdoc
    ],
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("reading", SETTINGS, ids=lambda s: "-".join(s["layers"]))
def test_odd_files_read_in_two_parts_as_whole(tmp_path, lines, newline, reading):
    path = write(tmp_path, lines, newline=newline)
    assert_parts_read_as_whole(path, reading)


def test_small_read_chunks_give_the_same_documents_lines_and_errors(tmp_path, monkeypatch):
    lines = []
    for number in range(30):
        lines += [
            f"# newdoc id = d{number}",
            "# sent_id = 1",
            row("1", "w", f"(EntityID={number}|MarkableID=m1"),
            row("2", "v", ")"),
            "",
        ]
    lines += ["# newdoc id = bad", row("1", "x", ")")]
    path = write(tmp_path, lines)
    for chunk in (7, 64, 1000):
        monkeypatch.setattr(exploded, "CHUNK", chunk)
        docs, raised = outcome(path, SETTINGS[0])
        assert [doc.name for doc in docs] == [f"d{n}" for n in range(30)]
        assert [m.parts for m in docs[29].identity] == [((0, 1),)]
        assert docs[29].token_lines == (149, 150)
        assert raised[1:] == ("unbalanced", 153, "bad")
        offset = Path(path).read_bytes().index(b"# newdoc id = d29")
        assert exploded.document_offsets(path)[0][29] == (offset, 147)
        assert assert_parts_read_as_whole(path, SETTINGS[0]) == 30


def test_a_file_with_a_layout_change_or_a_hidden_newdoc_is_not_parted(tmp_path):
    base = ["# newdoc id = a", row("1", "x"), "# newdoc id = b", row("1", "y")]
    assert exploded.document_offsets(write(tmp_path, base))[1]
    changed = base[:2] + ["# global.columns = ID FORM IDENTITY"] + base[2:]
    assert not exploded.document_offsets(write(tmp_path, changed))[1]
    hidden = base[:2] + ["#\vnewdoc id = c"] + base[2:]
    assert not exploded.document_offsets(write(tmp_path, hidden))[1]


def test_a_byte_order_mark_is_skipped_and_each_bad_byte_is_reported_on_its_line(tmp_path):
    path = tmp_path / "f.conllua"
    lines = [
        HEADER,
        "# newdoc id = a",
        row("1", "x", "(EntityID=1|MarkableID=m1)"),
        row("2", "y"),
        "",
        "# newdoc id = b",
        row("1", "z"),
        row("2", "w"),
    ]
    data = "\n".join(lines).encode()
    data = data.replace(b"\ty\t", b"\ty\xff\t").replace(b"\tw\t", b"\t\xc3w\t")
    path.write_bytes(b"\xef\xbb\xbf" + data + b"\n")
    problems: list = []
    docs = exploded.read(str(path), collect=problems, layers=["identity"], layout=False)
    assert [(p.code, p.line) for p in problems] == [("undecodable", 4), ("undecodable", 8)]
    assert "byte 0xff at column 4" in str(problems[0])
    assert [doc.tokens for doc in docs] == [("x", "y\ufffd"), ("z", "\ufffdw")]
    assert docs[0].metadata["global.columns"] == HEADER  # the header after the mark is read
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode() + b"\n")
    assert [doc.token_lines for doc in exploded.read(str(path))] == [(3, 4), (7, 8)]


# -- the fast path for plain word lines reads as the general path -----------------------------
def plain(markables) -> list[tuple]:
    """Markables without the attributes only layout reading keeps."""
    return [
        (m.markable_id, m.entity_id, m.parts, m.line, m.min_span, m.element_of, m.zero)
        for m in markables
    ]


def reading(path: str, settings: dict, layout: bool) -> tuple:
    problems: list = []
    docs = exploded.read(path, collect=problems, **{**settings, "layout": layout})
    return (
        [
            (
                d.name,
                d.line,
                d.tokens,
                d.token_lines,
                plain(d.identity),
                plain(d.discourse_deixis),
                d.bridging,
            )
            for d in docs
        ],
        [(p.code, p.line, p.document, str(p)) for p in problems],
    )


@pytest.mark.parametrize("mode", SETTINGS, ids=lambda s: "-".join(s["layers"]))
def test_plain_lines_read_fast_as_every_line_reads_with_layout(mode):
    """Scoring reads plain word lines on a shortcut; reading with layout takes every line
    through the general path. Both give the same documents and problems on every data file."""
    files = [p for p in data_files() if p.stat().st_size < 2_000_000]
    assert len(files) > 100
    for path in files:
        assert reading(str(path), mode, False) == reading(str(path), mode, True), path


@pytest.mark.parametrize("mode", SETTINGS, ids=lambda s: "-".join(s["layers"]))
def test_zeros_between_plain_lines_count_from_the_last_word(tmp_path, mode):
    path = write(
        tmp_path,
        [
            "# newdoc id = d",
            row("1", "a"),
            row("1.1", "∅", "(EntityID=1|MarkableID=m1)"),
            row("1.2", "∅", "(EntityID=2|MarkableID=m2)"),
            row("2", "b"),
            row("2.1", "∅", "(EntityID=1|MarkableID=m3)"),
            row("3", "c"),
            row("4", "d"),
            "# sent_id = 2",
            row("4.1", "∅", "(EntityID=3|MarkableID=m4)", sep="  "),
            row("1-2", "ab"),
            row("5", "e"),
        ],
    )
    fast, general = reading(path, mode, False), reading(path, mode, True)
    assert fast == general
    if "identity" in mode["layers"]:
        [doc] = exploded.read(path, **mode)
        assert [(m.markable_id, m.parts[0][0], m.zero) for m in doc.identity] == [
            ("m1", 1, 1),
            ("m2", 1, 2),
            ("m3", 2, 1),
            ("m4", 4, 1),
        ]
        assert doc.tokens == ("a", "b", "c", "d", "ab", "e")


def test_the_scan_finds_what_the_reader_reads(tmp_path):
    """A byte-order mark before the first newdoc and 'newdoc' inside a name or a token:
    the scan's names and lines are the reader's; only a newdoc the reader might take for a
    document while the cut would not makes the file unpartable."""
    lines = ["# newdoc id = newdoc/1", row("1", "newdoc"), "", "#newdoc id=b", row("1", "y")]
    path = tmp_path / "f.conllua"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode() + b"\n")
    index = exploded.scan(str(path))
    read = [(d.name, d.line) for d in exploded.read(str(path))]
    assert index.names == read == [("newdoc/1", 1), ("b", 4)]
    assert index.starts == [(0, 1), (len("\n".join(lines[:3]).encode()) + 4, 4)]
    assert not index.partable  # the token 'newdoc'
    lines[1] = row("1", "x")
    path.write_bytes("\n".join(lines).encode() + b"\n")
    assert exploded.scan(str(path)).partable


def test_markables_built_in_c_carry_every_field(tmp_path):
    """The reader builds markables from the tuple of all their fields: a field added to the
    model must be added there too."""
    from scoring.model import Markable

    path = write(tmp_path, ["# newdoc id = d", row("1", "a", "(EntityID=1|MarkableID=m1)")])
    [doc] = exploded.read(path, layout=False)
    [markable] = doc.identity
    assert len(markable) == len(Markable._fields)
    assert markable == Markable("m1", "1", ((0, 0),), 3)


ODD_IDS = ["7", "7.1", "1-2", "²", "٣", "x", "07", "7."]
ODD_SEPARATORS = ["\t", "  ", " \t ", "\xa0", "\x0b", "\r\t", "\u3000"]
ODD_CELLS = [
    "_",
    ")",
    "(EntityID=1|MarkableID=m9)",
    "(EntityID=2|MarkableID=m8",
    "x",
    "_x",
    "(",
    "m1)",
    "(=1|MarkableID=m7)",
]


def odd_line(number: str, separator: str, cells: list[str], count: int) -> str:
    fields = [number, "w"] + ["_"] * 8 + cells + ["_", "_"]
    return separator.join(fields[:count])


@pytest.mark.parametrize("mode", SETTINGS, ids=lambda s: "-".join(s["layers"]))
def test_odd_token_lines_read_fast_as_the_general_path_reads_them(tmp_path, mode):
    """A fuzz of token lines between plain ones: IDs that are not ASCII digits or are zeros,
    separators other than tabs and spaces, junk or markables in the columns read, too few or
    too many columns. The shortcut for plain lines must read each document as the general
    path does: the same tokens, lines, markables and problems."""
    import random

    rng = random.Random(13)
    for round_ in range(60):
        lines = ["# newdoc id = d", row("1", "a", "(EntityID=1|MarkableID=m1)"), row("2", "b")]
        for _ in range(6):
            cells = [rng.choice(ODD_CELLS) for _ in range(3)]
            lines.append(
                odd_line(
                    rng.choice(ODD_IDS),
                    rng.choice(ODD_SEPARATORS),
                    cells,
                    rng.choice([2, 10, 11, 12, 13, 15, 16]),
                )
            )
            lines.append(row(str(rng.randint(3, 9)), "c"))
        lines += [row("10", "d", ")"), "# sent_id = 2", ""]
        path = write(
            tmp_path, lines, name=f"odd{round_}.conllua", newline=rng.choice(["\n", "\r\n"])
        )
        assert reading(path, mode, False) == reading(path, mode, True), lines
