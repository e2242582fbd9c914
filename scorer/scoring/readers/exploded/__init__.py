"""Reader of the exploded CONLL-UA format, as the CODI-CRAC files write it.

One token per line, fields separated by any run of whitespace (the real files pad with spaces),
missing trailing fields read as ``_``, LF or CRLF line ends. Comment lines start with ``#``;
``# newdoc id = NAME`` starts a document (``# newdoc id=NAME`` and ``#newdoc id = NAME`` are
read the same way: the name is everything after the first ``=``, stripped; the reference
scorer's ``line[14:]`` would cut the unspaced spelling to a shifted name, spec Q2).

Three annotation columns are read: IDENTITY, BRIDGING and DISCOURSE_DEIXIS. Their positions
come from ``# global.columns`` when the file has it (so the UA v1.0 layout with a SPLIT column
works), else from the CODI-CRAC layout (0-based 10, 11, 12).

Bracket cells (IDENTITY and DISCOURSE_DEIXIS) write closings first, then openings:
``)``, ``))``, ``)(EntityID=1|MarkableID=m_2)``, ``(…(…``. A bare ``)`` closes the most recently
opened markable. A closing may also name its markable (``m_1)``, the UA 2.0 spelling): it must
then close the innermost open markable, unless crossing markables were allowed
(``--allow-boundary-crossing``), in which case it closes the named one.

Zeros (token lines whose ID contains a dot, e.g. ``5.1``) are not word tokens: a markable on a
zero line must open and close there; it sits at the position of the next word, with
``zero = k`` for the k-th zero since the previous word (see `scoring.model`).

Every problem is a `ScoringInputError` ``FILE:LINE: what is wrong (what was expected)`` with a
stable ``code`` and the document name. Pass ``collect=[]`` to gather problems instead of
raising the first one (the platform shows them all); the bad cell or line is then skipped.

Codes: ``undecodable``, ``empty_file``, ``wrong_format``, ``no_newdoc``, ``bad_newdoc``,
``tokens_before_newdoc``, ``duplicate_document``, ``too_few_columns``, ``too_many_columns``,
``bad_columns_header``, ``bad_cell``, ``close_after_open``, ``unbalanced``, ``crossing``,
``unclosed``, ``missing_entity_id``, ``missing_markable_id``, ``duplicate_markable_id``,
``zero_in_span``, ``bad_min``, ``bridging_incomplete``, ``bridging_without_parens``,
``line_too_long``, ``nul_character``.

The package's modules: `layout` (the format's names, `sniff`, `other_format`), `segments`
(the file's bytes cut at ``# newdoc`` lines; `scan`), `reader` (one pass over a file),
`document` (the document being read) and `cells` (its markable columns' brackets). This
module is its face: `iter_documents`, `read` and the names callers use.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from scoring.model import Document
from scoring.readers.exploded.layout import (
    BRIDGING,
    CODI_CRAC_COLUMNS,
    DISCOURSE_DEIXIS,
    FORMAT,
    IDENTITY,
    LAYERS,
    MAX_LINE_CHARACTERS,
    NEWDOC,
    NEWDOC_ID,
    other_format,
    parse_attributes,
    sniff,
)
from scoring.readers.exploded.reader import Abort as _Abort
from scoring.readers.exploded.reader import Reader as _Reader
from scoring.readers.exploded.segments import (
    SCAN_CHUNK,
    FileIndex,
    document_names,
    document_offsets,
    scan,
)

try:  # the rest of a document at once in C, where `make venv` built it (setup.py)
    from scoring.native._exploded import read_document as _native_read_document
except ImportError:  # pragma: no cover - a checkout without the build step
    _native_read_document = None
_read_document = _native_read_document
"""What `iter_documents` hands its reader to read a document with after its first line,
None: line by line (tests set it to None to compare the two readings)."""

CHUNK = 1 << 18
"""Bytes read from the file at a time."""

__all__ = [
    "BRIDGING",
    "CHUNK",
    "CODI_CRAC_COLUMNS",
    "DISCOURSE_DEIXIS",
    "FORMAT",
    "IDENTITY",
    "LAYERS",
    "MAX_LINE_CHARACTERS",
    "NEWDOC",
    "NEWDOC_ID",
    "SCAN_CHUNK",
    "FileIndex",
    "document_names",
    "document_offsets",
    "iter_documents",
    "other_format",
    "parse_attributes",
    "read",
    "scan",
    "sniff",
]


def iter_documents(
    path: str,
    *,
    collect: list[Any] | None = None,
    layers: Collection[str] | None = None,
    check_min: bool = False,
    read_min: bool = True,
    discontinuous: bool = False,
    allow_crossing: bool = False,
    layout: bool = True,
    part: tuple[int, int, int, int] | None = None,
) -> Iterator[Document]:
    """Yield the documents of an exploded CONLL-UA file one by one, reading it lazily.

    Parameters
    ----------
    collect : list or None
        None: raise the first problem. A list: append every problem and go on.
    layers : subset of {"identity", "bridging", "discourse_deixis"} or None
        The columns a scoring mode reads. Only these are parsed and checked, and a token line
        that lacks one of them is an error. None reads every column the file has, missing
        trailing columns as ``_``.
    check_min : bool
        Make a malformed ``Min`` (``1-2``) or one outside the document an error. Otherwise it
        reads as no Min (the reference scorers read Min only in MIN modes).
    read_min : bool
        False leaves every ``min_span`` None (exact matching never looks at Min).
    discontinuous : bool
        Read a MarkableID that opens again (same EntityID) as one more part of a discontinuous
        markable, as UA scorer v2 does. Otherwise a repeated MarkableID is an error.
    allow_crossing : bool
        Let a named closing (``m_1)``) close a markable that is not the innermost one.
    layout : bool
        Keep comments and raw rows in ``Document.sentences``, and the attributes scoring does
        not use (``SemType``, …) in ``Markable.attributes`` (for converters).
    part : (prefix, start, end, line) or None
        Read only the documents from byte ``start`` (line ``line``) to byte ``end``, as the
        whole file's reading reads them, after the file's first ``prefix`` bytes (its lines
        before the first document, e.g. ``# global.columns``). The offsets come from
        `scan` (``starts``); None reads the whole file.
    """
    reader = _Reader(
        path,
        collect=collect,
        layers=layers,
        check_min=check_min,
        discontinuous=discontinuous,
        allow_crossing=allow_crossing,
        layout=layout,
        read_min=read_min,
        part=part,
        native=_read_document,
        chunk_size=CHUNK,
    )
    try:
        yield from reader.run()
    except _Abort:
        return


def read(path: str, *, collect: list[Any] | None = None, **settings: Any) -> list[Document]:
    """Read every document of an exploded CONLL-UA file (see `iter_documents`)."""
    return list(iter_documents(path, collect=collect, **settings))
