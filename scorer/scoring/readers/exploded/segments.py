"""An exploded CONLL-UA file's bytes, cut at its ``# newdoc`` lines: the parts the reader reads
document by document (`segments`), and the fast pass that finds the documents without reading
them (`scan`), by the same rule."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, Any, NamedTuple

from scoring.readers.exploded.layout import NEWDOC, NEWDOC_ID
from scoring.readers.text import count_newlines as _newlines
from scoring.readers.text import find_bytes as _find

NEWDOC_HINT = re.compile(rb"#[ \t]*newdoc\b")
"""Where a ``# newdoc`` line (`_NEWDOC_LINE` at a line start) can match (the line start is
then checked); `newdoc_hints` finds the same places."""
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def newdoc_hints(data: bytes, end: int) -> Iterator[int]:
    """Where `NEWDOC_HINT` matches in ``data[:end]`` (the offset of its '#'), found from the
    literal ``newdoc`` (`find_bytes` skips text several bytes at a time; the expression
    tries every '#', and a file has a comment line per sentence)."""
    position = _find(data, b"newdoc", 0, end)
    while position >= 0:
        after = position + 6
        if after == end or data[after] not in _WORD:  # \b after "newdoc"
            hash_at = position - 1
            while hash_at >= 0 and data[hash_at] in b" \t":
                hash_at -= 1
            if hash_at >= 0 and data[hash_at] == 0x23:  # '#'
                yield hash_at
        position = _find(data, b"newdoc", after, end)


def segments(
    handle: IO[bytes], chunk_size: int, lineno: int = 1, limit: int | None = None
) -> Iterator[tuple[bytes, int]]:
    """The bytes of a file from where ``handle`` stands (line ``lineno``), at most ``limit``
    of them, read ``chunk_size`` bytes at a time, in parts cut before each ``# newdoc`` line,
    with their first line.

    Each byte is searched once and copied once into its part: a part longer than a chunk
    is gathered as a list of pieces (appending to one buffer would copy it again per chunk)."""
    pieces: list[bytes] = []  # the current part's whole lines read so far
    carry = b""  # an incomplete last line
    left = -1 if limit is None else limit
    while left:
        chunk = handle.read(chunk_size if left < 0 else min(chunk_size, left))
        if not chunk:
            break
        if left > 0:
            left -= len(chunk)
        data = carry + chunk if carry else chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            carry = data
            continue
        previous = 0
        for hash_at in newdoc_hints(data, cut):
            start = data.rfind(b"\n", 0, hash_at) + 1
            if (start > previous or pieces) and not data[start:hash_at].strip(b" \t"):
                pieces.append(data[previous:start])
                part = b"".join(pieces)
                yield part, lineno
                lineno += _newlines(part)
                pieces = []
                previous = start
        pieces.append(data[previous:cut])
        carry = data[cut:]
    pieces.append(carry)
    rest = b"".join(pieces)
    if rest:
        yield rest, lineno


class FileIndex(NamedTuple):
    """What one fast pass over a file's bytes finds (`scan`)."""

    names: list[tuple[str, int]]
    """``(name, line)`` of every ``# newdoc`` line, as the reader names them."""
    starts: list[tuple[int, int]]
    """``(byte offset, line)`` where each of those documents starts."""
    partable: bool
    """Whether the file reads in parts (`iter_documents`'s ``part``) exactly as whole: no
    ``newdoc`` outside a document's first line (a spelling only the reader would take for
    one) and no ``global.`` comment after the first document (a layout that changes midway)."""


SCAN_CHUNK = 1 << 16  # measured fastest of 64 KiB to 4 MiB
_NEWDOC_LINE = re.compile(rb"[ \t]*#[ \t]*(newdoc)\b[^\n]*")
_BOM_NEWDOC_LINE = re.compile(rb"\xef\xbb\xbf[ \t]*#[ \t]*(newdoc)\b[^\n]*")


def scan(path: str) -> FileIndex:
    """Find the documents of a file without parsing it: a search for the literal ``newdoc``,
    each hit checked to stand at the start of a comment line (the same rule `segments`
    cuts by), so the cost is that of `bytes.find` over the file, not of a pattern tried at
    every byte. Uses the reader's name rule; a file the reader rejects may still scan."""
    index = FileIndex([], [], True)
    state: list[Any] = [1, True, False]  # line at the block's start, partable, a document seen
    offset = 0
    tail = b""
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(SCAN_CHUNK)
            data = tail + chunk
            if chunk:
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    tail = data
                    continue
                block, tail = data[:cut], data[cut:]
            else:
                block, tail = data, b""
            _scan_block(block, offset, state, index)
            offset += len(block)
            if not chunk:
                break
    return index._replace(partable=state[1])


def _scan_block(block: bytes, offset: int, state: list[Any], index: FileIndex) -> None:
    line, partable, seen = state
    counted = 0  # newlines of ``block`` before this position are in ``line``
    position = _find(block, b"newdoc")
    while position >= 0:
        start = block.rfind(b"\n", 0, position) + 1
        pattern = (
            _BOM_NEWDOC_LINE
            if offset + start == 0 and block[:3] == b"\xef\xbb\xbf"
            else _NEWDOC_LINE
        )
        match = pattern.match(block, start)
        if match is None or match.start(1) != position:
            partable = False  # a newdoc the reader may see and the cut may not (or neither)
            position = _find(block, b"newdoc", position + 6)
            continue
        line += _newlines(block, counted, start)
        counted = start
        if not seen:
            seen = True
            partable = partable and _find(block, b"global.", match.end()) < 0
        text = match.group(0).decode("utf-8", errors="replace").lstrip("\ufeff").strip()
        newdoc = NEWDOC.match(text)  # it does: the line pattern matched
        id_match = NEWDOC_ID.match(newdoc.group(1)) if newdoc else None
        index.names.append((id_match.group(1).strip() if id_match else "", line))
        index.starts.append((offset + start, line))
        position = _find(block, b"newdoc", match.end())
    if seen and partable and index.starts and index.starts[0][0] < offset:
        partable = _find(block, b"global.") < 0
    state[:] = [line + _newlines(block, counted), partable, seen]


def document_names(path: str) -> list[tuple[str, int]]:
    """``(name, line)`` of every ``# newdoc`` line (see `scan`)."""
    return scan(path).names


def document_offsets(path: str) -> tuple[list[tuple[int, int]], bool]:
    """``(byte offset, line)`` where each document starts, and whether the file reads in
    parts as whole (see `scan`)."""
    index = scan(path)
    return index.starts, index.partable
