"""`scoring.native._speedups` does steps of the compact reader in C, each beside its Python
twin: `split_document` (`compact.split_document`: a plain CoNLL-U document's sentences, rows
and annotated cells), `special_nodes` (`_DocumentBuilder.special_rows`: the nodes of a
document with empty nodes or multiword tokens), `entity_mentions` (`_DocumentBuilder.annotate`:
the mentions of a document's Entity= annotations, on its nodes) and `mention_markables`
(`_DocumentBuilder.markable`: their markables, where they cover words only). Each returns None
where the input is not plain, and the Python reading decides. The reader takes the C ones
where `make venv` built them; both ways must give the same documents, warnings and errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.errors import ScoringInputError
from scoring.readers import compact
from tests import paths
from tests.paths import GUM

COREFUD_TESTS = paths.COREFUD_TESTS / "tests-corefud"
DATA = Path(__file__).resolve().parent / "data"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

native = compact._native_split_document


def test_the_extension_is_built():
    """`make venv` compiles scoring/native/_speedups.c (setup.py); without it every CorefUD file is
    read at the Python path's speed."""
    assert native is not None, "scoring.native._speedups is not built: run `make venv`"
    assert compact._split_document is native


def compact_files() -> list[Path]:
    files = sorted(GUM.glob("*.conllu")) + sorted(
        p for p in COREFUD_TESTS.rglob("*") if p.suffix in (".key", ".response")
    )
    files += sorted(DATA.rglob("*.conllu")) + sorted(FIXTURES.rglob("*.conllu"))
    return files


def document_blocks(path: Path) -> list[tuple[int, str]]:
    return [
        (line, block)
        for line, block, is_document in compact._blocks(str(path))
        if is_document and "\n\n\n" not in block
    ]


def start(block: str) -> int:
    """Where the split starts, as `_Reader.fast_document` gives it: after # newdoc and the
    blank lines after it."""
    pos = block.index("\n") + 1
    while block.startswith("\n", pos):
        pos += 1
    return pos


def both(block: str, number: int = 3):
    pos = start(block)
    return compact.split_document(block, pos, number), native(block, pos, number)


def test_real_documents_split_the_same_both_ways():
    blocks = [b for path in compact_files() for b in document_blocks(path)]
    assert len(blocks) > 100
    plain = 0
    for line, block in blocks:
        python, c = both(block, line + 1)
        assert c == python, block[:200]
        plain += python is not None
    assert plain > 100  # documents split, not only refused


ROW_EDITS = [
    "",
    "# x = y",
    " ",
    "1\t" + "\t".join("_" * 9),
    "1.1\t" + "\t".join("_" * 9),
    "2-3\t" + "\t".join("_" * 9),
    "1\t" + "\t".join("_" * 8),
    "1\t" + "\t".join("_" * 10),
]
CHARACTER_EDITS = [
    "\n",
    "# c\n",
    " \n",
    "1\t",
    "\t",
    "5.1\t",
    "5-6\t",
    "x",
    "é",
    "\u2028",
    "#",
    "1.\t",
    "-1\t",
    "\t\t",
    "_",
    "\n\n",
    "\U0001d518",
    "\r",
    "(",
    ")",
]


def edited(block: str, rng: random.Random) -> str:
    """The block with one to three line-level edits: rows added or removed, characters
    inserted into or removed from a line."""
    lines = block.split("\n")
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(1, len(lines))
        choice = rng.random()
        if choice < 0.3:
            lines.insert(at, rng.choice(ROW_EDITS))
        elif choice < 0.5:
            del lines[at]
        else:
            text, cut = lines[at], rng.randint(0, len(lines[at]))
            lines[at] = (
                text[:cut] + rng.choice(CHARACTER_EDITS) + text[cut:]
                if rng.random() < 0.5
                else text[:cut] + text[cut + 1 :]
            )
    text = "\n".join(lines)
    return text if text.endswith("\n") else text + "\n"


def test_edited_documents_split_or_are_refused_the_same_both_ways():
    rng = random.Random(20261126)
    blocks = [block for path in compact_files()[:60] for _, block in document_blocks(path)]
    outcomes = {True: 0, False: 0}
    for _ in range(4000):
        block = edited(rng.choice(blocks), rng)
        if "\n\n\n" in block:
            continue  # fast_document leaves those to the line-by-line reading first
        python, c = both(block)
        assert c == python, block[:400]
        outcomes[python is None] += 1
    assert outcomes[True] > 500 and outcomes[False] > 500  # both outcomes are exercised


LINE = (
    st.one_of(
        st.just(""),
        st.just("# sent_id = s"),
        st.just(" # c"),
        st.lists(
            st.sampled_from(["_", "a", "Entity=(e1-x-1-)", "é", " ", "\U0001d518", "\x85"]),
            min_size=8,
            max_size=11,
        ).map("\t".join),
    )
    .flatmap(
        lambda rest: st.tuples(
            st.sampled_from(["1", "2.1", "3-4", "x", "", "1.", "12"]), st.just(rest)
        )
    )
    .map(
        lambda pair: (
            pair[1] if pair[1] in ("", "# sent_id = s", " # c") else pair[0] + "\t" + pair[1]
        )
    )
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=12))
def test_generated_documents_split_the_same_both_ways(lines):
    block = "# newdoc id = d\n" + "\n".join(lines) + "\n"
    if "\n\n\n" in block:
        return
    python, c = both(block)
    assert c == python


def read_both_ways(path: Path, monkeypatch):
    def reading():
        warnings: list[str] = []
        try:
            return list(compact.iter_documents(path, warnings=warnings, layout=False)), warnings
        except ScoringInputError as problem:
            return (problem.code, problem.line, str(problem)), warnings

    with monkeypatch.context() as patched:
        patched.setattr(compact, "_split_document", compact.split_document)
        patched.setattr(compact, "_entity_mentions", None)
        patched.setattr(compact, "_mention_markables", None)
        patched.setattr(compact, "_special_nodes", None)
        python = reading()
    return python, reading()


def test_files_read_to_the_same_documents_both_ways(monkeypatch):
    for path in compact_files():
        python, c = read_both_ways(path, monkeypatch)
        assert c == python, path


def test_a_line_of_eleven_columns_is_not_balanced_by_one_of_nine(tmp_path):
    """The total of tabs is right (9 per line on average) but neither line has ten columns:
    both splits refuse the document (the line of eleven would read from its second column,
    whose FORM is a number), and the reading names the first bad line."""
    good = "\t".join(["1", "a", "_", "_", "_", "_", "0", "_", "_", "_"])
    eleven = "\t".join(["2", "1990", "_", "_", "_", "_", "0", "_", "_", "_", "Entity=(e1-x-1-)"])
    nine = "\t".join(["3", "c", "_", "_", "_", "_", "0", "_", "_"])
    block = f"# newdoc id = d\n{good}\n{eleven}\n{nine}\n\n"
    assert compact.split_document(block, start(block), 2) is None
    if native is not None:
        assert native(block, start(block), 2) is None
    path = tmp_path / "columns.conllu"
    path.write_text(block, encoding="utf-8")
    with pytest.raises(ScoringInputError) as caught:
        compact.read(path, layout=False)
    assert (caught.value.code, caught.value.line) == ("columns", 3)


ENTITY_EDITS = [
    "(",
    ")",
    "e1)",
    "(e1-x-1-)",
    "(e2-y-",
    "%2D",
    "%",
    "[1/2]",
    "-",
    "|",
    "|SplitAnte=e1<e2",
    "|Bridge=e1<e2",
    "|DiscourseDeixis=(d1-x-)",
    "=",
    "é",
    "\U0001d518",
    "SpaceAfter=No|",
    "",
]


FIELD_VALUES = [
    "",
    "x",
    "p%2Cq",
    "1",
    "SemType:dn",
    "a,b",
    "2",
    "0",
    "01",
    "+1",
    "1,2",
    "3,1",
    "1,",
    "\u0661",
    "ElementOf:e2",
    "Bridge:m1/part",
    "Bridge:m2",
    "ElementOf:e1,Bridge:m1/x,Sem:y",
    ":z",
    "m7",
]
"""Bracket field values: plain and odd numbers (a head or min), ua records, mids."""


def edited_miscs(rng: random.Random, miscs: list[str]) -> list[str]:
    """``miscs`` after zero to three edits: an `ENTITY_EDITS` text put in, or a character
    taken out (a cell left empty or with a tab becomes "_")."""
    for _ in range(rng.randint(0, 3)):
        at = rng.randrange(len(miscs))
        text, cut = miscs[at], rng.randint(0, len(miscs[at]))
        miscs[at] = (
            text[:cut] + rng.choice(ENTITY_EDITS) + text[cut:]
            if rng.random() < 0.7
            else text[:cut] + text[cut + 1 :]
        )
        if not miscs[at] or "\t" in miscs[at]:
            miscs[at] = "_"
    return miscs


def mention_document(rng: random.Random, header: str) -> str:
    """A words-only document of random well-formed mentions (nested, single-word, escaped
    ids), then one to three edits of its MISC cells."""
    n = rng.randint(3, 14)
    cells: list[list[str]] = [[] for _ in range(n)]
    for _ in range(rng.randint(1, 6)):
        start = rng.randrange(n)
        end = rng.randrange(start, n)
        entity = rng.choice(["e1", "e2", "e3", "7%2DPseudo", "e%25"])
        fields = "-".join(rng.choice(FIELD_VALUES) for _ in range(rng.randint(0, 5)))
        opening = f"({entity}-{fields}" if fields else f"({entity}"
        if start == end:
            cells[start].append(opening + ")")
        else:
            cells[start].append(opening)
            cells[end].insert(0, entity + ")")
    miscs = edited_miscs(rng, ["Entity=" + "".join(c) if c else "_" for c in cells])
    rows = "".join(f"{i + 1}\tw{i}\t_\t_\t_\t_\t0\t_\t_\t{misc}\n" for i, misc in enumerate(miscs))
    return f"# global.Entity = {header}\n# newdoc id = d\n# sent_id = s1\n{rows}\n"


def node_document(rng: random.Random, header: str) -> str:
    """A document of two sentences with empty nodes (5.1, with DEPS naming words and other
    empty nodes) and multiword tokens (5-6), random well-formed mentions over its nodes
    (zeros, mentions around empty nodes, heads on them), then edits of its MISC cells, some
    on the multiword rows (whose annotations are not read)."""
    rows: list[list[str]] = []  # [ID, FORM, DEPS, MISC cells], in file order
    nodes: list[int] = []  # the row of each node
    sentence_starts = []
    for _ in range(2):
        sentence_starts.append(len(rows))
        words = rng.randint(2, 7)
        for word in range(1, words + 1):
            if word < words and rng.random() < 0.2:
                rows.append([f"{word}-{word + 1}", "mw", "_", []])
            nodes.append(len(rows))
            rows.append([str(word), f"w{word}", f"{word - 1}:dep" if word > 1 else "0:root", []])
            for rank in range(1, rng.choice([1, 1, 2, 3])):
                deps = rng.choice(
                    [
                        "_",
                        "0:root",
                        f"{word}:nsubj",
                        f"{word}.{rank - 1 or 1}:conj",
                        f"{word}:nsubj|{rng.randint(1, words)}:obj",
                    ]
                )
                nodes.append(len(rows))
                rows.append([f"{word}.{rank}", "_", deps, []])
    for _ in range(rng.randint(1, 6)):
        start = rng.randrange(len(nodes))
        end = min(len(nodes) - 1, start + rng.choice([0, 0, 1, 2, 4]))
        entity = rng.choice(["e1", "e2", "e3", "7%2DPseudo"])
        fields = "-".join(rng.choice(FIELD_VALUES) for _ in range(rng.randint(0, 4)))
        opening = f"({entity}-{fields}" if fields else f"({entity}"
        if start == end:
            rows[nodes[start]][3].append(opening + ")")
        else:
            rows[nodes[start]][3].append(opening)
            rows[nodes[end]][3].insert(0, entity + ")")
    miscs = edited_miscs(rng, ["Entity=" + "".join(row[3]) if row[3] else "_" for row in rows])
    lines = [f"# global.Entity = {header}", "# newdoc id = d"]
    for index, (row, misc) in enumerate(zip(rows, miscs)):
        if index in sentence_starts:
            if index:
                lines.append("")
            lines.append(f"# sent_id = s{sentence_starts.index(index) + 1}")
        token_id, form, deps, _ = row
        lines.append("\t".join([token_id, form, "_", "_", "_", "_", "_", "_", deps, misc]))
    return "\n".join(lines) + "\n\n"


def test_mentions_over_empty_nodes_and_multiword_tokens_read_the_same_both_ways(
    tmp_path, monkeypatch
):
    """Documents with empty nodes and multiword tokens, their mentions read in C on the
    nodes and their markables made there (those over an empty node by the Python reading):
    the same documents (zeros, their DEPS, heads on empty nodes), or the same error, with
    and without the C steps."""
    rng = random.Random(2711)
    outcomes = {"read": 0, "refused": 0, "zeros": 0}
    path = tmp_path / "nodes.conllu"
    for _ in range(1500):
        header = rng.choice(["eid-etype-head-other", "eid-etype-other-mid-min-ua", "eid-head"])
        path.write_text(node_document(rng, header), encoding="utf-8")
        python, c = read_both_ways(path, monkeypatch)
        assert c == python, path.read_text(encoding="utf-8")
        if isinstance(c[0], tuple):
            outcomes["refused"] += 1
        else:
            outcomes["read"] += 1
            outcomes["zeros"] += any(m.zero or m.zeros or m.head_zero for m in c[0][0].identity)
    assert outcomes["read"] > 300 and outcomes["refused"] > 100, outcomes
    assert outcomes["zeros"] > 200, outcomes


def test_edited_mentions_read_the_same_both_ways(tmp_path, monkeypatch):
    """Random nested, single-word and escaped mentions, some cells then broken: the same
    documents, or the same error (code, line, message), with and without the C steps."""
    rng = random.Random(2611)
    outcomes = {"read": 0, "refused": 0}
    path = tmp_path / "mentions.conllu"
    for _ in range(1500):
        header = rng.choice(
            [
                "eid-etype-head-other",
                "eid-etype-other-mid-min-ua",
                "eid-etype-eid",
                "GRP-etype-infstat",
            ]
        )
        path.write_text(mention_document(rng, header), encoding="utf-8")
        python, c = read_both_ways(path, monkeypatch)
        assert c == python, path.read_text(encoding="utf-8")
        outcomes["refused" if isinstance(c[0], tuple) else "read"] += 1
    assert outcomes["read"] > 300 and outcomes["refused"] > 100, outcomes


def test_the_mentions_step_reads_most_documents_and_leaves_the_rest(monkeypatch):
    """Plain Entity= annotations (escaped ids included) are read in C; a document with a
    discontinuous mention, links or another layer is left to the Python reading."""
    names = ("eid", "etype", "head", "other")
    rows = [0, 1, 2]
    plain = [(0, "Entity=(e1-person-1-(7%2DPseudo-x-1-)"), (1, "SpaceAfter=No"), (2, "Entity=e1)")]
    found = native_mentions(plain, [5, 6, 7], names, compact.unescape, False)
    assert found == [
        ("e1", {"eid": "e1", "etype": "person", "head": "1", "other": ""}, 5, 0, 2),
        ("7-Pseudo", {"eid": "7-Pseudo", "etype": "x", "head": "1", "other": ""}, 5, 0, 0),
    ]
    for misc in (
        "Entity=(e9[1/2]-x-1-)",
        "Entity=(e1-x-)|SplitAnte=e1<e2",
        "Entity=(e1-x-)|DiscourseDeixis=(d1-x-)",
        "Entity=(e1-x-",
        "Entity=e5)",
        "Entity=(e1-x-)junk",
        "Entity=",
    ):
        assert native_mentions([(0, misc)], rows, names, compact.unescape, False) is None, misc
    assert (
        native_mentions(
            [(0, "Entity=(e1-x-)|SplitAnte=e1<e2")], rows, names, compact.unescape, True
        )
        is not None
    )  # ua records: only informative


native_mentions = compact._native_entity_mentions


def test_the_markables_step_makes_what_the_reader_makes_and_leaves_the_rest():
    """`mention_markables` turns `entity_mentions` records into (markable, element_of,
    bridges) as `_DocumentBuilder.markable` does; an escaped ua value, a head or min that
    is not a plain number, or a head outside its mention is left to the Python reading."""
    from scoring.model import Markable

    make = compact._native_mention_markables
    names = ("other",)
    found = [
        (
            "e1",
            {
                "eid": "e1",
                "head": "2",
                "min": "",
                "other": "x",
                "mid": "",
                "ua": "ElementOf:e9,Bridge:m4/part,SemType:dn",
            },
            5,
            3,
            6,
        ),
        ("e2", {"eid": "e2", "min": "4,7", "other": "", "mid": "m4", "ua": ""}, 6, 4, 4),
    ]
    assert make(found, names, Markable) == [
        (
            Markable(
                "m1", "e1", ((3, 6),), 5, (4, 4), 4, attributes=(("other", "x"), ("SemType", "dn"))
            ),
            ("e9",),
            [("m4", "part")],
        ),
        (Markable("m4", "e2", ((4, 4),), 6, (3, 6)), (), ()),
    ]
    for fields in (
        {"head": "5"},
        {"head": "+1"},
        {"head": "x"},
        {"min": "1,"},
        {"min": "\u0661"},
        {"ua": "SemType:a%2Cb"},
    ):
        assert make([("e1", fields, 5, 3, 6)], names, Markable) == [None], fields
    # Nodes w1 e1.1 w2 w3 (an empty node after the first word): a mention of words only is
    # made on their positions, one over the empty node is left (None) with the rest made.
    positions, empty_count = [0, 0, 1, 2], [0, 1, 1, 1]
    words, zero = ("e1", {"head": "2"}, 5, 2, 3), ("e2", {"head": "1"}, 5, 0, 2)
    assert make([words, zero, words], names, Markable, positions, empty_count) == [
        (Markable("m1", "e1", ((1, 2),), 5, (2, 2), 2), (), ()),
        None,
        (Markable("m3", "e1", ((1, 2),), 5, (2, 2), 2), (), ()),
    ]
    with pytest.raises(IndexError):  # a node the lists do not have: not read past them
        make([("e1", {}, 5, 2, 9)], names, Markable, positions, empty_count)


def test_newlines_counts_what_str_count_counts():
    """The compact reader counts a document's lines with `count_newlines` (memchr on
    one-byte text where the C module is built)."""
    from scoring.readers import text as texts

    assert compact._newlines is texts.count_newlines
    rng = random.Random(11)
    for _ in range(300):
        text = "".join(rng.choice("ab\n\ré\U0001d518") for _ in range(rng.randint(0, 60)))
        if rng.random() < 0.5:
            text = text.encode("ascii", "ignore").decode()  # one-byte text
        start, end = sorted(rng.randint(-5, len(text) + 5) for _ in range(2))
        assert (
            texts.count_newlines(text, start, end)
            == texts.newlines(text, start, end)
            == text.count("\n", start, end)
        )
        assert texts.count_newlines(text) == text.count("\n")


@pytest.mark.parametrize(
    "miscs, outcome",
    [
        # the same mid twice: refused at the second mention's line, whichever way
        (
            ["Entity=(e1-x-_-m1-)", "Entity=(e2-x-_-m2-)", "Entity=(e3-x-_-m1-)"],
            "duplicate_markable",
        ),
        # an ElementOf, then a bridge, in the ua field: read into element_of, a bridging link
        (
            ["Entity=(e1-x-_-m1-)", "Entity=(e2-x-_-m2--ElementOf:e1)", "Entity=(e3-x-_-m3-)"],
            "read",
        ),
        (
            ["Entity=(e1-x-_-m1-)", "Entity=(e2-x-_-m2-)", "Entity=(e3-x-_-m3--Bridge:m1/part)"],
            "read",
        ),
        # none of them: the markables as C made them
        (["Entity=(e1-x-_-m1-)", "Entity=(e2-x-_-m2-)", "Entity=(e1-x-_-m3-)"], "read"),
    ],
)
def test_markables_made_in_c_are_checked_as_the_python_reading_checks_them(
    tmp_path, monkeypatch, miscs, outcome
):
    """`build` takes the markables `mention_markables` made whole where no mid repeats and
    none has an ElementOf or a bridge; otherwise its loop checks and links them, as for the
    Python reading's markables."""
    rows = "".join(f"{i + 1}\tw{i}\t_\t_\t_\t_\t0\t_\t_\t{misc}\n" for i, misc in enumerate(miscs))
    path = tmp_path / "made.conllu"
    path.write_text(
        f"# global.Entity = eid-etype-other-mid-min-ua\n# newdoc id = d\n# sent_id = s1\n{rows}\n",
        encoding="utf-8",
    )
    made = []
    real = compact._mention_markables
    monkeypatch.setattr(
        compact, "_mention_markables", lambda *args: made.append(real(*args)) or made[-1]
    )
    python, c = read_both_ways(path, monkeypatch)
    assert made and made[-1] is not None  # the C reading made them
    assert c == python
    if outcome == "read":
        [document], warnings = c
        assert [m.markable_id for m in document.identity] == ["m1", "m2", "m3"]
        assert document.identity[1].element_of == (("e1",) if "ElementOf" in miscs[1] else ())
        assert len(document.bridging) == ("Bridge" in miscs[2])
    else:
        assert c[0][:2] == (outcome, 6)


def test_unescape_undoes_percent_escapes_as_the_expression_does():
    """The compact reader's `unescape` is the C twin of `python_unescape` (a regular
    expression per value): each %XX of two hex digits made one character, left to right,
    not overlapping; wide characters and odd percent signs kept."""
    from scoring.native import _speedups

    assert compact.unescape is _speedups.unescape
    rng = random.Random(17)
    alphabet = "%%%%0123456789abcdefABCDEFgG-x é€\U0001d518"
    for _ in range(20_000):
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert compact.unescape(value) == compact.python_unescape(value), value
    assert compact.unescape("7%2DPseudo") == "7-Pseudo"
    assert compact.unescape("%%41%4") == "%A%4"
    plain = "e12"
    assert compact.unescape(plain) is plain
    with pytest.raises(TypeError):
        compact.unescape(b"%41")


def test_a_span_over_empty_nodes_has_the_nodes_words_and_zeros_its_parts_have():
    """`_span_nodes` (one part, by C-level steps) gives what `_part_nodes` (any parts, by
    sets) gives for a mention of one part, over random layouts of words and empty nodes."""
    rng = random.Random(97)
    for _ in range(500):
        ranks: list[int] = []
        for _ in range(rng.randint(1, 12)):
            ranks.append(0)
            ranks.extend(range(1, rng.choice([1, 1, 2, 3, 4])))
        if rng.random() < 0.3:
            ranks[:0] = [1, 2][: rng.randint(1, 2)]  # empty nodes before the first word
        words = [rank == 0 for rank in ranks]
        positions = [sum(words[:i]) for i in range(len(ranks))]  # empty: the next word's
        first = rng.randrange(len(ranks))
        last = rng.randrange(first, len(ranks))
        nodes, found_words, zeros = compact._span_nodes(positions, ranks, first, last)
        assert (list(nodes), found_words, zeros) == tuple(
            map(list, compact._part_nodes(positions, ranks.__getitem__, {1: [first, last]}))
        )
