"""`scoring._speedups.split_document` (C) and `compact.split_document` (Python) are two ways to
the same split of a CoNLL-U document: the same sentences, rows and annotated cells where a
document is plain, None (the Python reading decides) where it is not. The reader takes the C
one where `make venv` built it; both must give the same documents."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.errors import ScoringInputError
from scoring.readers import compact

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
GUM = SHARED / "data" / "gum-compact-samples"
COREFUD_TESTS = SHARED / "data" / "corefud-scorer-tests" / "tests-corefud"
DATA = Path(__file__).resolve().parent / "data"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

native = compact._native_split_document


def test_the_extension_is_built():
    """`make venv` compiles scoring/_speedups.c (setup.py); without it every CorefUD file is
    read at the Python path's speed."""
    assert native is not None, "scoring._speedups is not built: run `make venv`"
    assert compact._split_document is native


def compact_files() -> list[Path]:
    files = sorted(GUM.glob("*.conllu")) + sorted(
        p for p in COREFUD_TESTS.rglob("*") if p.suffix in (".key", ".response"))
    files += sorted(DATA.rglob("*.conllu")) + sorted(FIXTURES.rglob("*.conllu"))
    return files


def document_blocks(path: Path) -> list[tuple[int, str]]:
    return [(line, block) for line, block, is_document in compact._blocks(str(path))
            if is_document and "\n\n\n" not in block]


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


@pytest.mark.skipif(native is None, reason="scoring._speedups is not built")
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared (data) is absent")
def test_real_documents_split_the_same_both_ways():
    blocks = [b for path in compact_files() for b in document_blocks(path)]
    assert len(blocks) > 100
    plain = 0
    for line, block in blocks:
        python, c = both(block, line + 1)
        assert c == python, block[:200]
        plain += python is not None
    assert plain > 100  # documents split, not only refused


ROW_EDITS = ["", "# x = y", " ", "1\t" + "\t".join("_" * 9), "1.1\t" + "\t".join("_" * 9),
             "2-3\t" + "\t".join("_" * 9), "1\t" + "\t".join("_" * 8),
             "1\t" + "\t".join("_" * 10)]
CHARACTER_EDITS = ["\n", "# c\n", " \n", "1\t", "\t", "5.1\t", "5-6\t", "x", "é", "\u2028",
                   "#", "1.\t", "-1\t", "\t\t", "_", "\n\n", "\U0001d518", "\r", "(", ")"]


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
            lines[at] = (text[:cut] + rng.choice(CHARACTER_EDITS) + text[cut:]
                         if rng.random() < 0.5 else text[:cut] + text[cut + 1:])
    text = "\n".join(lines)
    return text if text.endswith("\n") else text + "\n"


@pytest.mark.skipif(native is None, reason="scoring._speedups is not built")
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared (data) is absent")
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


LINE = st.one_of(
    st.just(""), st.just("# sent_id = s"), st.just(" # c"),
    st.lists(st.sampled_from(["_", "a", "Entity=(e1-x-1-)", "é", " ", "\U0001d518", "\x85"]),
             min_size=8, max_size=11).map("\t".join),
).flatmap(lambda rest: st.tuples(st.sampled_from(["1", "2.1", "3-4", "x", "", "1.", "12"]),
                                 st.just(rest))).map(
    lambda pair: pair[1] if pair[1] in ("", "# sent_id = s", " # c") else
    pair[0] + "\t" + pair[1])


@pytest.mark.skipif(native is None, reason="scoring._speedups is not built")
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
        python = reading()
    return python, reading()


@pytest.mark.skipif(native is None, reason="scoring._speedups is not built")
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared (data) is absent")
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
