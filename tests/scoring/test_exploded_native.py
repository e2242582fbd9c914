"""`scoring.native._exploded.read_document` reads the rest of an exploded CONLL-UA document in
C: what `_Reader.read_lines` reads line by line in Python. It returns None where a document is
not plain (a zero, a named closing, anything malformed, a comment the reader acts on), and the
Python reading then reads the whole document and words every error. The reader takes the C
step where `make venv` built it; both ways must give the same documents, warnings and errors.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from scoring.errors import ScoringInputError
from scoring.model import Markable
from scoring.readers import exploded
from scoring.readers.exploded import segments
from tests.paths import CONFORMANCE, CORPORA

DATA = Path(__file__).resolve().parent / "data"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

native = exploded._native_read_document

SETTINGS = [
    {"layout": False},
    {"layout": False, "read_min": False},
    {"layout": False, "layers": ["identity"]},
    {"layout": False, "layers": ["identity", "bridging"], "check_min": True},
    {"layout": False, "layers": ["discourse_deixis"], "discontinuous": True},
    {"layout": False, "layers": ["identity"], "allow_crossing": True, "discontinuous": True},
]
"""Reader settings the scoring modes use (layout mode keeps raw rows: never in C)."""


def test_the_extension_is_built():
    """`make venv` compiles scoring/native/_exploded.c (setup.py); without it every exploded
    file is read line by line in Python."""
    assert native is not None, "scoring.native._exploded is not built: run `make venv`"
    assert exploded._read_document is native


def reading(path: Path, settings: dict):
    """Documents and collected problems, and the first problem when raising."""
    collected: list[ScoringInputError] = []
    documents = exploded.read(str(path), collect=collected, **settings)
    problems = [(p.code, p.line, str(p)) for p in collected]
    try:
        exploded.read(str(path), **settings)
        first = None
    except ScoringInputError as problem:
        first = (problem.code, problem.line, str(problem))
    return documents, problems, first


def both_ways(path: Path, settings: dict, monkeypatch):
    with monkeypatch.context() as patched:
        patched.setattr(exploded, "_read_document", None)
        python = reading(path, settings)
    return python, reading(path, settings)


class Taken:
    """Counts the documents `read_document` read and those it left to Python."""

    def __init__(self, monkeypatch):
        self.read = self.left = 0
        original = exploded._Reader.native

        def counted(reader, text, start, lineno):
            done = original(reader, text, start, lineno)
            if reader.doc is not None and reader.doc.fast is not None:
                if done:
                    self.read += 1
                else:
                    self.left += 1
            return done

        monkeypatch.setattr(exploded._Reader, "native", counted)


def exploded_files() -> list[Path]:
    files = [
        p
        for p in sorted(CORPORA.glob("codi-crac2*/**/*"))
        if p.is_file()
        and p.suffix.upper() in (".CONLLUA", ".CONLL", ".UA")
        or p.name.endswith("CONLLUA")
    ]
    files += [
        p
        for p in sorted((CONFORMANCE).rglob("*"))
        if p.is_file() and p.suffix in (".key", ".response", ".conllua", ".CONLLUA")
    ]
    files += [
        p
        for p in sorted(FIXTURES.rglob("*")) + sorted(DATA.rglob("*"))
        if p.is_file() and p.suffix.upper() == ".CONLLUA"
    ]
    return sorted(set(files))


def test_files_read_to_the_same_documents_both_ways(monkeypatch):
    """Every exploded file here (the CODI-CRAC corpora, the conformance cases, fixtures), in
    every reader setting the modes use."""
    files = exploded_files()
    assert len(files) > 100, len(files)
    taken = Taken(monkeypatch)
    for path in files:
        for settings in SETTINGS:
            python, c = both_ways(path, settings, monkeypatch)
            assert c == python, (path, settings)
    assert taken.read > 1000 and taken.left > 0, vars(taken)


HEADER = (
    "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY "
    "BRIDGING DISCOURSE_DEIXIS REFERENCE NOM_SEM\n"
)
EDITS = [
    "(",
    ")",
    "))",
    "m_1)",
    "(EntityID=1|MarkableID=m_1)",
    "(EntityID=2|MarkableID=m_9",
    "|Min=1,2",
    "|Min=x",
    "|Min=٣",
    "|ElementOf=1,,2",
    "|EntityID=",
    "=",
    "|",
    " ",
    "\t",
    "\u00a0",
    "\x00",
    "(",
    ".1",
    "_",
    "é",
    "\U0001d518",
    "EntityID=3",
    "|MarkableID=m_1",
]


def exploded_document(rng: random.Random, name: str) -> str:
    """A document of random well-formed markables (nested, single-word, Min, ElementOf, a
    second layer, bridging), then up to three edits of its lines."""
    n = rng.randint(3, 16)
    cells = {column: [[] for _ in range(n)] for column in (10, 12)}
    bridging = ["_"] * n
    for k in range(rng.randint(1, 7)):
        column = rng.choice([10, 10, 10, 12])
        start = rng.randrange(n)
        end = rng.randrange(start, n)
        attributes = [f"EntityID={rng.choice(['1', '2', '3-Pseudo', '4'])}", f"MarkableID=m_{k}"]
        if rng.random() < 0.6:
            first = rng.randint(start + 1, end + 1)
            attributes.append(
                f"Min={first}" if rng.random() < 0.5 else f"Min={first},{rng.randint(first, n + 1)}"
            )
        if rng.random() < 0.2:
            attributes.append("ElementOf=" + rng.choice(["1", "1,2", ",2", ""]))
        if rng.random() < 0.3:
            attributes.append("SemType=dn")
        rng.shuffle(attributes)
        opening = "(" + "|".join(attributes)
        if start == end:
            cells[column][start].append(opening + ")")
        else:
            cells[column][start].append(opening)
            cells[column][end].insert(0, ")")
        if column == 10 and k and rng.random() < 0.2:
            bridging[start] = f"(MarkableID=m_{k}|Rel=part-of|MentionAnchor=m_0)"

    def cell(parts: list[str]) -> str:
        closings = "".join(p for p in parts if p == ")")
        return closings + "".join(p for p in parts if p != ")") if parts else "_"

    lines = [f"# newdoc id = {name}"]
    mirrors, short = rng.random() < 0.5, rng.random() < 0.5
    for i in range(n):
        if i % 5 == 0:
            lines += ["", f"# sent_id = {name}-{i}"]
        mirror = (
            [
                f"(MarkableID={part.split('MarkableID=')[1].split('|')[0].rstrip(')')}"
                "|Entity_Type=x)"
                for part in cells[10][i]
                if "MarkableID=" in part
            ]
            if mirrors
            else []
        )
        row = [
            str(i + 1),
            f"w{i % 4}",
            "_",
            "_",
            "_",
            "_",
            "_",
            "_",
            "_",
            "_",
            cell(cells[10][i]),
            bridging[i],
            cell(cells[12][i]),
            "_",
            "".join(mirror) or "_",
        ]
        if row[-1] == "_" and short:  # an empty last column left out, as the real files do
            row.pop()
        lines.append("\t".join(row))
    for _ in range(rng.randint(0, 3)):
        at = rng.randrange(1, len(lines))
        text = lines[at]
        cut = rng.randint(0, len(text))
        edit = rng.random()
        if edit < 0.6:
            text = text[:cut] + rng.choice(EDITS) + text[cut:]
        elif edit < 0.7:
            text = text[:cut] + text[cut + 1 :]
        elif edit < 0.8:  # a cell deleted (the IDENTITY cell, often), or the last one
            parts = text.split("\t")
            del parts[rng.choice([10, 10, -1, rng.randrange(len(parts))]) % len(parts)]
            text = "\t".join(parts)
        elif edit < 0.9:
            text = rng.choice(
                [
                    "# a comment",
                    "# global.columns = ID FORM IDENTITY",
                    "",
                    "4.1\tzero\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=z)\t_\t_\t_\t_",
                ]
            )
        else:
            text = text.replace("\t", "  ")
        lines[at] = text
    return "\n".join(lines) + "\n"


def test_edited_documents_read_the_same_both_ways(tmp_path, monkeypatch):
    """Random markables, some lines then broken: the same documents, or the same problems
    (code, line, message), with and without the C step, in every setting."""
    rng = random.Random(2611)
    taken = Taken(monkeypatch)
    refused = 0
    path = tmp_path / "edited.CONLLUA"
    for k in range(600):
        text = HEADER + "".join(
            exploded_document(rng, f"d{k}-{j}") for j in range(rng.randint(1, 3))
        )
        if rng.random() < 0.1:
            text = text.replace("\n", "\r\n")
        path.write_text(text, encoding="utf-8")
        settings = SETTINGS[k % len(SETTINGS)]
        python, c = both_ways(path, settings, monkeypatch)
        assert c == python, (settings, text)
        refused += bool(c[1])
    assert taken.read > 300 and taken.left > 100 and refused > 100, (vars(taken), refused)


SETTINGS_OF = (13, 15, 10, 12, 9, 10, 12, -1, 9, 13, True, False, Markable)
"""`read_document` settings of the CODI-CRAC layout read for identity and discourse deixis,
Min read, not checked."""


def plain(*cells: tuple[str, str, str]) -> str:
    return "".join(
        f"{i + 1}\tw{i}\t_\t_\t_\t_\t_\t_\t_\t_\t{a}\t{b}\t{c}\t_\t_\n"
        for i, (a, b, c) in enumerate(cells)
    )


def test_read_document_reads_plain_markables():
    text = (
        "# newdoc id = d\n"
        + plain(
            ("(EntityID=1|MarkableID=m_1|Min=2|SemType=dn", "_", "_"),
            ("_", "_", "(EntityID=5-DD|MarkableID=d_1)"),
            (")(EntityID=1|MarkableID=m_2|ElementOf=7,,8)", "_", "_"),
        )
        + "\n# comment\n"
    )
    tokens, lines, identity, dd, bridging = native(text, text.index("\n") + 1, 2, SETTINGS_OF)
    assert tokens == ["w0", "w1", "w2"] and lines == [2, 3, 4] and bridging == []
    assert identity == (
        Markable("m_1", "1", ((0, 2),), 2, (1, 1)),
        Markable("m_2", "1", ((2, 2),), 4, None, element_of=("7", "8")),
    )
    assert dd == (Markable("d_1", "5-DD", ((1, 1),), 3),)
    assert all(type(m) is Markable for m in identity + dd)


def test_read_document_leaves_what_is_not_plain_to_python():
    """Each of these is read (or refused) by the Python reading, never guessed at in C."""
    cases = {
        "a zero": [("_", "_", "_")] * 2,
        "a named closing": [("(EntityID=1|MarkableID=m_1", "_", "_"), ("m_1)", "_", "_")],
        "never closed": [("(EntityID=1|MarkableID=m_1", "_", "_")],
        "closing nothing": [(")", "_", "_")],
        "no EntityID": [("(MarkableID=m_1)", "_", "_")],
        "no NAME=VALUE": [("(EntityID=1|MarkableID=m_1|x)", "_", "_")],
        "a repeated MarkableID": [("(EntityID=1|MarkableID=m_1)", "_", "_")] * 2,
        "close after open": [("(EntityID=1|MarkableID=m_1))", "_", "_")],
        "a Min beyond the document": [("(EntityID=1|MarkableID=m_1|Min=9)", "_", "_")],
        "a short line with a mirror cell": [("_", "_", "_")],
        "a short line and a padded one": [("_", "_", "_")] * 2,
    }
    for what, cells in cases.items():
        text = "# newdoc id = d\n" + plain(*cells)
        if what == "a short line with a mirror cell":  # NOM_SEM left out, REFERENCE kept
            text = text.replace("\t_\t_\n", "\t(MarkableID=m_1|Entity_Type=person)\n")
        if what == "a short line and a padded one":
            text = text.replace("\t_\t_\n", "\t_\n", 1)
        if what == "a zero":
            text = text.replace("\n2\t", "\n1.1\t")
        settings = (
            SETTINGS_OF
            if what != "a Min beyond the document"
            else SETTINGS_OF[:11] + (True, Markable)
        )
        assert native(text, text.index("\n") + 1, 2, settings) is None, what
    for line in (
        "# newdoc id = e",
        "# global.columns = ID FORM IDENTITY",
        "1\tw\t_",
        "1\tw\t_\t_\t_\t_\t_\t_\t_\t(\t_\t_\t_\t_\t_",
        "1\tw\x00\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_",
        "1\t" + "w" * 100_001,
    ):
        text = "# newdoc id = d\n" + plain(("_", "_", "_")) + line + "\n"
        assert native(text, text.index("\n") + 1, 2, SETTINGS_OF) is None, line
    # short lines alone, with '_' in the mirror column, are plain
    text = "# newdoc id = d\n" + plain(("_", "_", "_"), ("_", "_", "_")).replace("\t_\n", "\n")
    assert native(text, text.index("\n") + 1, 2, SETTINGS_OF) is not None
    # the Python reading then names what is wrong
    assert native("# newdoc id = d\n" + plain(("_", "_", "_")), 16, 2, SETTINGS_OF) is not None


def test_cells_split_as_str_split_does():
    """A no-break space or U+2003 separates cells as `str.split()` separates them; a Unicode
    digit is a number as `str.isdigit()` reads it."""
    row = "1\u00a0w\u2003_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m)\t_\t_\t_\t_\n"
    text = "# newdoc id = d\n" + row + "\u0663\tx\t" + "\t".join(["_"] * 13) + "\n"
    tokens, lines, identity, _, _ = native(text, 16, 2, SETTINGS_OF)
    assert tokens == ["w", "x"] and identity[0].parts == ((0, 0),)


def test_newlines_counts_what_bytes_count_counts():
    """The readers count a file's lines with `newlines` (SSE2, memchr) where it is built."""
    from scoring.readers import text

    assert text.count_newlines is segments._newlines is text._native_newlines
    rng = random.Random(7)
    for _ in range(300):
        data = bytes(rng.choice(b"ab\n\r\x00") for _ in range(rng.randint(0, 200)))
        start, end = sorted(rng.randint(-5, len(data) + 5) for _ in range(2))
        assert text.count_newlines(data, start, end) == text.newlines(data, start, end)
        assert text.count_newlines(data) == data.count(b"\n")


@pytest.mark.parametrize(
    "size", [15, 16, 17, 255 * 16 - 1, 255 * 16, 255 * 16 + 1, 3 * 255 * 16 + 9, 100_000]
)
def test_newlines_counts_long_runs_in_steps_of_sixteen_bytes(size):
    """Sixteen bytes per step, counters added up every 255 steps: data of nothing but line
    ends (every counter at its most), and of a few, across those boundaries and offsets."""
    from scoring.readers import text

    rng = random.Random(size)
    for data in (b"\n" * size, bytes(rng.choice(b"\n" + b"x" * 30) for _ in range(size))):
        for start in (0, 1, 7, 15):
            assert text.count_newlines(data, start) == data.count(b"\n", start)
            assert text.count_newlines(data.decode(), start) == data.count(b"\n", start)


def test_find_finds_what_bytes_find_finds():
    """The exploded reader's scan and segment cut search for ``newdoc`` and ``global.`` with
    `find_bytes` (SSE2, memmem) where it is built."""
    from scoring.readers import text

    assert text.find_bytes is segments._find is text._native_find
    rng = random.Random(11)
    for _ in range(2000):
        data = bytes(rng.choice(b"newdoc\n#") for _ in range(rng.randint(0, 60)))
        needle = bytes(rng.choice(b"newdoc") for _ in range(rng.randint(1, 3)))
        needle = rng.choice((needle, b"newdoc", b"global."))
        if rng.random() < 0.5:  # found, somewhere in a step of sixteen or in the last bytes
            at = rng.randint(0, len(data))
            data = data[:at] + needle + data[at:]
        start, end = (rng.randint(-70, 70) for _ in range(2))
        assert text.find_bytes(data, needle, start, end) == data.find(needle, start, end)
        assert text.find_bytes(data, needle, start) == data.find(needle, start)
        assert text.find_bytes(data, needle) == data.find(needle)
    with pytest.raises(ValueError):
        text.find_bytes(b"abc", b"")


def test_find_finds_what_str_find_finds():
    """The compact reader's cut searches its decoded text for ``newdoc`` with `find_text`:
    the C search on one-byte text, str.find on wider text (here both, and needles wider than
    the text), long enough to take the sixteen-position steps."""
    from scoring.readers import compact, text

    assert compact._find is text.find_text is text._native_find
    rng = random.Random(13)
    for _ in range(3000):
        alphabet = rng.choice(("newdoc\n# ", "newdoc\n# é", "newdoc\n# €", "newdoc\n# 😀"))
        data = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 90)))
        needle = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
        needle = rng.choice((needle, "newdoc", "# newdoc", "é"))
        if rng.random() < 0.5:
            at = rng.randint(0, len(data))
            data = data[:at] + needle + data[at:]
        start, end = (rng.randint(-100, 100) for _ in range(2))
        assert text.find_text(data, needle, start, end) == data.find(needle, start, end)
        assert text.find_text(data, needle) == data.find(needle)
    with pytest.raises(ValueError):
        text.find_text("abc", "")
    with pytest.raises(TypeError):
        text.find_text(b"abc", "a")


def test_newdoc_hints_are_where_the_expression_matches():
    """The segment cut finds '# newdoc' from the literal word; it must find exactly where
    `_NEWDOC_HINT` matches (a '#', spaces or tabs, ``newdoc`` and a word boundary)."""
    rng = random.Random(5)
    pieces = [
        b"#",
        b" ",
        b"\t",
        b"newdoc",
        b"\n",
        b"x",
        b"_",
        b"newdocs",
        b"#newdoc",
        b"-",
        b"\xc3\xa9",
        b"0",
    ]
    found = 0
    for _ in range(20_000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        end = rng.randint(0, len(data))
        expected = [m.start() for m in segments.NEWDOC_HINT.finditer(data, 0, end)]
        assert list(segments.newdoc_hints(data, end)) == expected, (data, end)
        found += bool(expected)
    assert found > 1000
