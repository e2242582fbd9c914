"""The compact reader reads a file a document at a time, and most documents whole with
C-level operations on their text (`compact._Reader.fast_document`): the documents, errors
and warnings are those of the line-by-line reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.errors import ScoringInputError
from scoring.readers import compact, compact_lines
from tests import paths
from tests.paths import GUM

COREFUD_TESTS = paths.COREFUD_TESTS / "tests-corefud"
DATA = Path(__file__).resolve().parent / "data"

HEADER = "# global.Entity = eid-etype-head-other\n"


def row(token_id: str, misc: str = "_", form: str | None = None, deps: str = "_") -> str:
    return (
        "\t".join([token_id, form or f"w{token_id}", "_", "_", "_", "_", "0", "_", deps, misc])
        + "\n"
    )


def document(name: str, *sentences: list[str]) -> str:
    text = f"# newdoc id = {name}\n"
    for number, rows in enumerate(sentences, 1):
        text += f"# sent_id = {name}-{number}\n# text = t\n" + "".join(rows) + "\n"
    return text


RICH = (
    HEADER
    + document(
        "plain",
        [row("1", "Entity=(e1-person-1-"), row("2", "Entity=e1)"), row("3", "SpaceAfter=No")],
        [row("1", "Entity=(e2-thing-1-)|SpaceAfter=No"), row("2", "Entity=(e1-person-1-)")],
    )
    + document(
        "zeros-and-ranges",
        [
            row("1", "Entity=(e1-person-1-)", deps="0:root"),
            row("1.1", "Entity=(e2-person-1-)", deps="1:nsubj"),
            row("2-3", "Entity=(e9-x-1-)"),
            row("2"),
            row("3", "Entity=(e3-thing-2-"),
        ],
        [
            row("1", "Entity=e3)"),
            row("1.1", "Entity=(e1-person-1-)", deps="1:obj|0:root"),
            row("1.2", deps="1.1:conj"),
            row("2", "Entity=(e4[1/2]-x-1-)"),
            row("3"),
            row("4", "Entity=(e4[2/2]-x-1-)"),
        ],
    )
    + document(
        "split-and-bridge",
        [
            row("1", "Entity=(e1-person-1-)"),
            row("2", "Entity=(e2-person-1-)"),
            row("3", "Entity=(e3-person-1-)|SplitAnte=e1<e3,e2<e3"),
            row("4", "Entity=(e4-thing-1-)"),
            row("5", "Entity=(e5-thing-1-)|Bridge=e4<e5:part"),
        ],
        [row("1", "Entity=(e9-person-1-)|SplitAnte=e7<e9")],
    )
    + "# newdoc\n"
    + "# sent_id = u-1\n"
    + row("1", "Entity=(e1-x-1-)")
    + "\n"
)


def line_by_line(monkeypatch, path, **kwargs):
    with monkeypatch.context() as patched:
        patched.setattr(compact._Reader, "fast_document", lambda self, line, block: False)
        warnings: list[str] = []
        return list(compact.iter_documents(path, warnings=warnings, **kwargs)), warnings


def fast_reads(monkeypatch) -> list[bool]:
    taken: list[bool] = []
    original = compact._Reader.fast_document

    def counting(self, line, block):
        taken.append(original(self, line, block))
        return taken[-1]

    monkeypatch.setattr(compact._Reader, "fast_document", counting)
    return taken


def both_readings(monkeypatch, path):
    slow, slow_warnings = line_by_line(monkeypatch, path, layout=False)
    taken = fast_reads(monkeypatch)
    warnings: list[str] = []
    fast = list(compact.iter_documents(path, warnings=warnings, layout=False))
    return slow, slow_warnings, fast, warnings, taken


def test_a_document_read_whole_equals_its_line_by_line_reading(tmp_path, monkeypatch):
    path = tmp_path / "rich.conllu"
    path.write_text(RICH, encoding="utf-8")
    slow, slow_warnings, fast, warnings, taken = both_readings(monkeypatch, path)
    assert taken == [True, True, True, True]  # every document of the file was read whole
    assert fast == slow
    assert warnings == slow_warnings and any("SplitAnte e7<e9" in w for w in warnings)
    zeros = next(d for d in fast if d.name == "zeros-and-ranges")
    assert zeros.tokens == ("w1", "w2", "w3", "w1", "w2", "w3", "w4")
    assert any(m.zero for m in zeros.identity)
    assert [d.name for d in fast] == ["plain", "zeros-and-ranges", "split-and-bridge", "4"]


def test_real_and_suite_files_read_the_same_both_ways(monkeypatch):
    files = sorted(GUM.glob("*.conllu")) + sorted(
        p for p in COREFUD_TESTS.rglob("*") if p.suffix in (".key", ".response")
    )
    files += sorted(DATA.rglob("*.conllu"))
    assert len(files) > 100
    whole = 0
    for path in files:
        slow, slow_warnings, fast, warnings, taken = both_readings(monkeypatch, path)
        monkeypatch.undo()
        assert fast == slow, path
        assert warnings == slow_warnings, path
        whole += sum(taken)
    assert whole > 100  # the comparison covers documents read whole, not only fallbacks


@pytest.mark.parametrize(
    "rows, code",
    [
        ((row("1", "Entity=(e1-x-1-"), row("2")), "unclosed"),
        ((row("1"), row("2", "Entity=e5)")), "unopened"),
        ((row("1", "Entity=(e1-x-3-"), row("2", "Entity=e1)")), "head"),
        ((row("1", "Entity=(e1-x-1-)junk"),), "brackets"),
        ((row("1"), "2\tw\t_\t_\n"), "columns"),
        ((row("1"), row("2")[:-1] + "\textra\n"), "columns"),
        ((row("1"), row("x1")), "token_id"),
        ((row("1"), row("1..2")), "token_id"),
        ((row("1", "Entity=(e1[2/2]-x-1-)"),), "brackets"),
    ],
)
def test_malformed_lines_are_refused_with_the_same_file_and_line(tmp_path, monkeypatch, rows, code):
    """A document after a good one: the error names the file and line as the line-by-line
    reading does, and the good document was handed out before it."""
    path = tmp_path / "bad.conllu"
    path.write_text(
        HEADER + document("good", [row("1"), row("2")]) + document("bad", list(rows)),
        encoding="utf-8",
    )
    with pytest.raises(ScoringInputError) as slow:
        line_by_line(monkeypatch, path, layout=False)
    seen = []
    with pytest.raises(ScoringInputError) as fast:
        for doc in compact.iter_documents(path, layout=False):
            seen.append(doc.name)
    assert seen == ["good"]
    assert (fast.value.code, fast.value.line, str(fast.value)) == (
        slow.value.code,
        slow.value.line,
        str(slow.value),
    ) and fast.value.code == code
    assert str(fast.value).startswith(f"{path}:{slow.value.line}: ")


def test_pieces_line_ends_and_byte_order_mark_do_not_move_lines(tmp_path, monkeypatch):
    """The file is read a piece at a time: documents cut across pieces, Windows line ends and
    a byte order mark give the documents and line numbers of the whole text."""
    crlf = tmp_path / "crlf.conllu"
    crlf.write_bytes(b"\xef\xbb\xbf" + RICH.replace("\n", "\r\n").encode())
    plain = tmp_path / "plain.conllu"
    plain.write_text(RICH, encoding="utf-8")
    expected = compact.read(plain, layout=False)
    monkeypatch.setattr(compact_lines, "CHUNK", 7)
    got = compact.read(crlf, layout=False)
    assert [(d.name, d.line, d.tokens, d.token_lines, d.identity) for d in got] == [
        (d.name, d.line, d.tokens, d.token_lines, d.identity) for d in expected
    ]
    assert compact.scan(crlf) == [(d.name, d.line) for d in expected]


def test_bytes_that_are_not_utf8_are_refused_with_their_line_and_byte(tmp_path, monkeypatch):
    path = tmp_path / "bad.conllu"
    data = (HEADER + document("a", [row("1"), row("2")])).encode() + b"1\t\xff\n"
    path.write_bytes(data)
    monkeypatch.setattr(compact_lines, "CHUNK", 16)
    with pytest.raises(ScoringInputError) as caught:
        compact.read(path)
    assert (caught.value.code, caught.value.line) == ("encoding", data.count(b"\n"))
    bad = data.index(bytes([0xFF]))
    assert f"at byte {bad} " in str(caught.value)


def test_scan_names_documents_as_the_reading_does(tmp_path):
    path = tmp_path / "names.conllu"
    path.write_text(
        HEADER
        + row("1")
        + "\n"
        + document("x", [row("1")])
        + "# newdoc\n"
        + row("1")
        + "\n# newdocument = not a boundary\n"
        + row("2")
        + "\n",
        encoding="utf-8",
    )
    read = compact.read(path, layout=False)
    assert compact.scan(path) == [(d.name, d.line) for d in read] == [("1", 2), ("x", 4), ("3", 9)]


@pytest.mark.parametrize("chunk", [compact.CHUNK, 5, 40])
def test_a_document_named_after_newdoc_is_one_document(tmp_path, monkeypatch, chunk):
    """A name holding the word ``newdoc`` ("# newdoc id = newdoc-1 newdoc") does not cut its
    own line again: that made an empty document that the scan could not name (a crash, not
    an error message), whatever the size of the pieces read."""
    path = tmp_path / "named.conllu"
    path.write_text(
        HEADER
        + document("newdoc-1 newdoc", [row("1", "Entity=(e1-x-1-)")])
        + document("newdoc", [row("1")]),
        encoding="utf-8",
    )
    monkeypatch.setattr(compact_lines, "CHUNK", chunk)
    read = compact.read(path, layout=False)
    assert [(d.name, d.line, len(d.identity)) for d in read] == [
        ("newdoc-1 newdoc", 2, 1),
        ("newdoc", 7, 0),
    ]
    assert compact.scan(path) == [("newdoc-1 newdoc", 2), ("newdoc", 7)]
