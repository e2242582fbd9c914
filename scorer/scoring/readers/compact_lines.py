"""Compact files as text: escaping, sniffing, and the file cut into documents and lines.

`_blocks` streams a file's decoded text a megabyte at a time (`CHUNK`) and cuts it into
documents at ``# newdoc`` lines; `split_document` splits a plain document into sentences and
token rows with compiled expressions (its twin in C, `scoring.native._speedups`, is taken
where built); `scan` names the documents without reading a token line. Re-exported by
`scoring.readers.compact`, whose reader (`_Reader`) reads the blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import accumulate, chain, compress
from operator import add, itemgetter, methodcaller
from pathlib import Path
from typing import Any

from scoring.errors import ScoringInputError
from scoring.readers.text import count_newlines as _newlines
from scoring.readers.text import find_text as _find

__all__ = [
    "CHUNK",
    "COLUMNS",
    "Split",
    "escape",
    "python_unescape",
    "scan",
    "sniff",
    "split_document",
    "unescape",
]

COLUMNS = 10
_NEWDOC = re.compile(r"^#\s*newdoc(?:\s+id\s*=\s*(.*?))?\s*$")
_GLOBAL_ENTITY = re.compile(r"^#\s*global\.Entity\s*=\s*(.*?)\s*$")

# Percent-escaping of values inside an Entity bracket (the writer uses the same table).
_ESCAPED = "%-,:()|=<>+/[] \t"


def escape(value: str) -> str:
    """Escape the characters that delimit compact Entity fields, as %XX."""
    if not any(ch in _ESCAPED for ch in value):
        return value
    return "".join(f"%{ord(ch):02X}" if ch in _ESCAPED else ch for ch in value)


def python_unescape(value: str) -> str:
    """``value`` with each ``%XX`` (two hex digits) made the character U+00XX (`escape`
    undone)."""
    if "%" not in value:
        return value
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), value)


try:  # where `make venv` built it: the same, without a regular expression per value
    from scoring.native._speedups import unescape
except ImportError:  # pragma: no cover - a checkout without the build step
    unescape = python_unescape


def sniff(text_head: str) -> bool:
    """True for CoNLL-U text: a ``# global.Entity`` line or a first token line of 10 columns."""
    for line in text_head.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if _GLOBAL_ENTITY.match(stripped):
                return True
            if stripped.lower().startswith(("#begin document", "# global.columns")):
                return False
            continue
        fields = line.rstrip("\r\n").split("\t")
        return len(fields) == COLUMNS and bool(re.match(r"^\d+([.-]\d+)?$", fields[0]))
    return False


def scan(path: str | Path) -> list[tuple[str, int]]:
    """(name, line) of every document of a compact file, as `read` names them, without
    parsing a token line: the ``# newdoc`` lines (and a first document without one).
    Raises what decoding the file raises; an empty list where reading must say what is wrong.
    """
    names: list[tuple[str, int]] = []
    for line, block, is_document in _blocks(str(path)):
        if is_document:
            newdoc = block[: block.index("\n")].strip()
            name = _NEWDOC.match(newdoc).group(1)  # type: ignore[union-attr]
            names.append((name or str(len(names) + 1), line))
            continue
        for number, raw in enumerate(block.split("\n"), start=line):
            if raw.strip() and not raw.startswith("#"):  # a token line before any # newdoc
                names.append(("1", number))
                break
    return names


# ---------------------------------------------------------------------------------------
# Streaming: decoded text a megabyte at a time, cut into documents at # newdoc lines

CHUNK = 1 << 20


def _newdoc_words(text: str) -> Iterator[int]:
    """Where the word ``newdoc`` stands in ``text`` (not overlapping), by `find_text`."""
    position = _find(text, "newdoc")
    while position >= 0:
        yield position
        position = _find(text, "newdoc", position + 6)


def _texts(path: str) -> Iterator[str]:
    """The file's text as UTF-8 in pieces that end at a line end (every piece ends with
    "\\n"), line ends made "\\n" as universal newlines read them. Bytes that are not UTF-8
    are a ScoringInputError naming their line and byte, as `read_text` says."""
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise ScoringInputError(
            path, None, f"cannot open the file ({exc.strerror})", code="unreadable"
        ) from None
    with handle:
        rest = b""
        offset = lines = 0  # bytes and "\n" before the piece
        encoding = "utf-8-sig"
        while True:
            data = handle.read(CHUNK)
            if not data:
                if rest:
                    data, rest = rest + b"\n", b""
                else:
                    return
            else:
                data = rest + data
                cut = data.rfind(b"\n") + 1
                if not cut:
                    rest = data
                    continue
                data, rest = data[:cut], data[cut:]
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError as exc:
                line = lines + data.count(b"\n", 0, exc.start) + 1
                raise ScoringInputError(
                    path,
                    line,
                    f"bytes that are not UTF-8 at byte "
                    f"{offset + exc.start} (expected a UTF-8 text file)",
                    code="encoding",
                ) from None
            encoding = "utf-8"
            if "\x00" in text:  # anywhere: MISC, a comment, a form (as the exploded reader)
                at = text.index("\x00")
                start = text.rfind("\n", 0, at) + 1
                raise ScoringInputError(
                    path,
                    lines + _newlines(text, 0, start) + 1,
                    f"a NUL character (byte 0x00) at column "
                    f"{at - start + 1} (expected text without NUL "
                    "characters)",
                    code="nul_character",
                )
            offset += len(data)
            lines += _newlines(data)
            if "\r" in text:
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            yield text


def _blocks(path: str) -> Iterator[tuple[int, str, bool]]:
    """(first line, text, starts with # newdoc) of the file's lines before its first
    ``# newdoc`` (possibly empty), then of each document from its ``# newdoc`` line to the
    next; every text ends with "\\n"."""
    parts: list[str] = []
    line = 1  # the first line of the pending block
    is_document = False
    base = 1  # the line of the current piece's first character
    for text in _texts(path):
        start = 0
        cut_here = -1  # the line this text was last cut at
        for word in _newdoc_words(text):
            at = text.rfind("\n", 0, word) + 1  # the start of its line
            # (a second "newdoc" on a line already cut at, as in "# newdoc id = newdoc-1",
            # is part of that line)
            if (
                text[at] != "#"
                or at < start
                or at == cut_here
                or not _NEWDOC.match(text[at : text.index("\n", word)].strip())
            ):
                continue
            cut_here = at
            parts.append(text[start:at])
            block = "".join(parts)
            if block or is_document:
                yield line, block, is_document
            parts = []
            base += _newlines(text, start, at)
            line = base
            start = at
            is_document = True
        parts.append(text[start:])
        base += _newlines(text, start)
    block = "".join(parts)
    if block or is_document:
        yield line, block, is_document


# ---------------------------------------------------------------------------------------
# Parsing

# A document a fast read takes whole: sentences of comment lines, then token lines of ten
# tab-separated columns with plain IDs (5, 5.1, 5-6), one blank line between sentences.
_PARAGRAPH = re.compile(r"((?:#[^\n]*\n)*)([^\n]+(?:\n[^\n]+)*)\n(\n*)")
_FIRST_ID = re.compile(r"[0-9]+(?:[.-][0-9]+)?\t")
_BAD_START = re.compile(r"\n(?![0-9]+(?:[.-][0-9]+)?\t|\Z)")
_SPECIAL_FIRST = re.compile(r"[0-9]+[.-]")
_SPECIAL_ID = re.compile(r"\n[0-9]+[.-]")
_FORM_MISC = re.compile(r"^[0-9.-]+\t([^\t\n]*)\t" + r"[^\t\n]*\t" * 7 + r"([^\t\n]*)\n", re.M)
_ROW = re.compile(r"^([^\t\n]*)\t([^\t\n]*)\t(?:[^\t\n]*\t){6}([^\t\n]*)\t([^\t\n]*)$", re.M)


Split = tuple[
    list[list[str]], list[int], list[int], bool, list[Any], "list[tuple[int, str]] | None"
]


def split_document(block: str, pos: int, number: int) -> Split | None:
    """A plain CoNLL-U document's sentences and token rows, by compiled expressions over its
    text from offset ``pos`` (line ``number``): (comments, sizes, row_lines, words_only,
    first, second), or None where it is not that plain (see `_Reader.fast_document`).

    - comments: one list per sentence, its comment lines stripped; sizes: its token lines;
    - row_lines: the line of every token line; words_only: no ID like 5.1 or 5-6;
    - first: words_only, the FORM of every row; otherwise (ID, FORM, DEPS, MISC) per row;
    - second: words_only, (row, MISC) of each row whose MISC is not "_"; otherwise None.

    `scoring.native._speedups.split_document` does the same in C, in a fifth of the time; the
    reader uses it where `make venv` built it (tests/scoring/test_speedups.py: the same
    results, and the same documents read)."""
    # per sentence: its comment lines, its token lines, the blank lines after them
    paragraphs = _PARAGRAPH.findall(block, pos)
    leads = list(map(itemgetter(0), paragraphs))
    bodies = list(map(itemgetter(1), paragraphs))
    lead_lines = list(map(methodcaller("count", "\n"), leads))
    sizes = [body.count("\n") + 1 for body in bodies]  # token lines
    spans = map(add, map(add, lead_lines, sizes), map(len, map(itemgetter(2), paragraphs)))
    before = accumulate(chain((number,), spans))  # each paragraph's first line + 1
    starts = list(map(add, before, lead_lines))  # the line of each first token line
    comments = [list(map(str.strip, lead[:-1].split("\n"))) if lead else [] for lead in leads]
    del paragraphs, leads
    text = "\n".join(bodies) + "\n" if bodies else ""
    del bodies
    rows = len(text) and text.count("\n")
    if (
        not rows
        or text.count("\t") != 9 * rows
        or _FIRST_ID.match(text) is None
        or _BAD_START.search(text) is not None
    ):
        return None  # no token line, a line that is not ten tab-separated columns with a
        # plain ID, a comment among token lines or a paragraph of comments only
    words_only = _SPECIAL_ID.search(text) is None and _SPECIAL_FIRST.match(text) is None
    cells = (_FORM_MISC if words_only else _ROW).findall(text)
    if len(cells) != rows:  # each line matched from its start: each has ten columns
        return None
    row_lines = list(chain.from_iterable(map(range, starts, map(add, starts, sizes))))
    if not words_only:
        return comments, sizes, row_lines, False, cells, None
    miscs = list(map(itemgetter(1), cells))
    annotated = list(
        zip(compress(range(rows), map("_".__ne__, miscs)), compress(miscs, map("_".__ne__, miscs)))
    )
    return comments, sizes, row_lines, True, list(map(itemgetter(0), cells)), annotated
