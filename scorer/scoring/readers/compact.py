"""Reader for compact CONLL-UA / CorefUD 1.0 files (coreference in the MISC column).

A compact file is CoNLL-U: ten tab-separated columns, comment lines, blank lines between
sentences, ``# newdoc id = NAME`` at each document. Mentions live in ``Entity=`` in MISC::

    Entity=(e5-person-2-        opening: fields joined by "-", in the order of # global.Entity
    Entity=(e5-person-1-)       a single-word mention
    Entity=e5)                  a closing names its entity (the newest open mention of e5)
    Entity=(e9[1/2]--1)         part 1 of 2 of a discontinuous mention ... e9[2/2])
                                (part k continues the earliest mention of e9 with k-1 parts)

``# global.Entity`` gives the field order: CorefUD ``eid-etype-head-other`` (the default),
GUM ``GRP-etype-infstat-salience-centering-minspan-link-identity``, or the order our own
converter writes, ``eid-etype-head-other-mid-min-ua`` (see docs/formats.md). The first field
is the entity id. ``head`` is the 1-based position of the head among the mention's nodes,
empty nodes included; a word head is the ``min_span`` (CorefUD partial matching: the
response must contain the key's head, UA scorer v2 VCM). Without a head field, ``head`` stays
None here and scoring takes the first node (`scoring.clusters.with_first_node_heads`, as
udapi does for v2); GUM's ``minspan`` is an ordinary attribute, as in v2; ``min`` and ``mid``
(our converter) carry an exploded file's ``Min`` (1-based document token ids) and
``MarkableID``; ``ua`` carries the remaining exploded
attributes as ``Key:Value`` pairs. Every other field is kept in ``Markable.attributes``.

Token positions are 0-based document positions of words (integer IDs). Multiword-token
ranges (``3-4``) are not words. Empty nodes (``8.1``) are zeros as scoring.model says: a zero
sits at the position of the next word and carries its rank among the empty nodes before that
word; a mention of several nodes records the empty nodes it contains in ``Markable.zeros``.
Zero-headed mentions get a ``deps`` attribute: ``@S`` (S the 0-based index of the head's
sentence in its document), then the head's DEPS with each parent as a 0-based document word
position (``12``), an empty node (``12.1``) or ``root``, joined by ``|``
(`scoring.zero_matching.split_deps`).

Split antecedents: ``SplitAnte=e1<e3,e2<e3`` (on the anaphor's first word) makes ``e1`` and
``e2`` elements of the plural entity ``e3``: the first mention of each antecedent entity gets
``element_of = ("e3",)``, which is what an exploded ``ElementOf`` means (an entity-level
relation). Bridging: ``Bridge=e12<e15[:rel]`` on the first word of a mention of ``e15`` (the
anaphor) links it to the nearest mention of ``e12`` that starts before it (the nearest one
after it if none starts before). In files written by our converter (a ``ua`` field in the
header) the exact markable-level ``ElementOf`` and ``Bridge`` records of the ``ua`` field are
used instead, and ``SplitAnte=``/``Bridge=`` are only informative. Discourse deixis, which
CorefUD lacks, is read from ``DiscourseDeixis=`` in MISC (same syntax as ``Entity=``).

Bad input raises ScoringInputError (``FILE:LINE: ...``). Dangling, repeated or one-antecedent
SplitAnte and dangling Bridge targets occur in real gold files (UD_English-GUM #82, #93,
udapi-python #101): they are reported as warnings (``warnings=`` list) and dropped.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from functools import partial
from itertools import accumulate, chain, compress, repeat
from operator import add, is_, itemgetter, methodcaller, not_, sub
from pathlib import Path
from typing import Any, cast

from scoring.clusters import first_node, mention_key, mention_nodes
from scoring.errors import ScoringInputError
from scoring.model import LEADING_RANK, BridgingLink, Document, Markable, Sentence
from scoring.readers.entity_ranks import EntityRanks
from scoring.readers.text import count_newlines as _newlines
from scoring.readers.text import find_text as _find
from scoring.readers.text import read_collecting, read_text  # noqa: F401 (re-exported)

FORMAT = "corefud"
_new_markable = partial(tuple.__new__, Markable)
_Made = list[tuple[Markable, tuple[str, ...], Sequence[Any]]]
"""(markable, element_of, bridges) of each mention of a document."""
DEFAULT_ENTITY_FIELDS = ("eid", "etype", "head", "other")
COLUMNS = 10
MISC = 9
DEPS = 8
ID_FIELDS = ("eid", "grp")  # the first field is the entity id whatever it is called
_SPECIAL_FIELDS = {"head", "mid", "min", "ua"}

_ITEM = re.compile(r"\(([^()]*)(\))?|([^()]+)\)")
_PART = re.compile(r"^(.*)\[(\d+)/(\d+)\]$")
_EMPTY_ID = re.compile(r"^\d+\.\d+$")
_RANGE_ID = re.compile(r"^\d+-\d+$")
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


def read(
    path: str | Path,
    *,
    warnings: list[str] | None = None,
    collect: list[Any] | None = None,
    layout: bool = True,
) -> list[Document]:
    """Read every document of a compact CONLL-UA / CorefUD file.

    ``warnings`` collects problems that do not stop reading (``FILE:LINE: message``).
    ``collect``: None raises the first ScoringInputError; a list receives it instead and
    no document is returned (the exploded reader's convention). ``layout=False`` keeps each
    sentence's comments (its ``# sent_id``) but not its token rows, which only a converter
    needs: scoring reads that way, in a fraction of the memory.
    """
    return read_collecting(
        lambda p, w: list(iter_documents(p, warnings=w, layout=layout)), path, warnings, collect
    )


def iter_documents(
    path: str | Path,
    *,
    warnings: list[str] | None = None,
    collect: list[Any] | None = None,
    layout: bool = True,
) -> Iterator[Document]:
    """Yield the documents of a compact file one by one, reading it a document at a time.

    Only one document's text and structures are held at once. ``collect``: None raises the
    first ScoringInputError; a list receives it and the documents stop there (those before
    it were yielded). ``warnings`` and ``layout`` as in `read`.
    """
    reader = _Reader(str(path), warnings, layout=layout)
    try:
        for line, block, is_document in _blocks(str(path)):
            if not (is_document and reader.fast_document(line, block)):
                for number, raw in enumerate(block.split("\n")[:-1], start=line):
                    reader.line(number, raw)
            yield from reader.take()
        reader.finish()
        yield from reader.take()
        if not reader.count:
            raise ScoringInputError(
                str(path),
                None,
                "no token lines (expected a CoNLL-U file with Entity= annotations in MISC)",
                code="empty_file",
            )
    except ScoringInputError as problem:
        if collect is None:
            raise
        collect.append(problem)
    finally:
        reader.close()


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


_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)

_new_sentence = partial(tuple.__new__, Sentence)
"""A `Sentence` from the tuple of its fields, built in C (the named tuple's ``__new__`` is a
Python function)."""


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


try:  # the same in C, where `make venv` built it (setup.py)
    from scoring.native._speedups import entity_mentions as _native_entity_mentions
    from scoring.native._speedups import mention_markables as _native_mention_markables
    from scoring.native._speedups import special_nodes as _native_special_nodes
    from scoring.native._speedups import split_document as _native_split_document
except ImportError:  # pragma: no cover - a checkout without the build step
    _native_split_document = _native_entity_mentions = _native_mention_markables = None
    _native_special_nodes = None
_split_document = _native_split_document or split_document
# `_DocumentBuilder.special_rows` in C, with each node's line and the annotated nodes.
_special_nodes = _native_special_nodes
# The Entity= annotations of a words-only document, read in C: [(entity, fields, line,
# first row, last row)] in opening order, or None where the document has anything else
# (discontinuous mentions, other layers or links, a malformed or unclosed bracket):
# `_DocumentBuilder.annotate` then reads it, and reports what is wrong.
_entity_mentions = _native_entity_mentions
# What `_DocumentBuilder.markable` makes of those mentions, made in C: [(markable,
# element_of, bridges)], or None where one is not plain (an escaped ua value, a head or min
# that is not a plain number, a head outside its mention): `markable` then makes them all.
_mention_markables = _native_mention_markables


class _Mention:
    """A mention being read: node-index ranges of its parts (part -> [first, last]), the
    parts closed, and its bracket fields."""

    __slots__ = (
        "entity",
        "fields",
        "line",
        "order",
        "layer",
        "parts_total",
        "ranges",
        "closed",
        "attribute_names",
    )

    def __init__(
        self,
        entity: str,
        fields: dict[str, str],
        line: int,
        order: int,
        layer: str,
        parts_total: int = 1,
        attribute_names: tuple[str, ...] = (),
    ) -> None:
        self.entity = entity
        self.fields = fields
        self.attribute_names = attribute_names  # the fields of its header that are attributes
        self.line = line
        self.order = order
        self.layer = layer
        self.parts_total = parts_total
        self.ranges: dict[int, list[int]] = {}
        self.closed: set[int] = set()


class _Reader:
    def __init__(self, path: str, warnings: list[str] | None, *, layout: bool = True) -> None:
        self.path = path
        self.layout = layout
        self.sentence_tokens = 0
        self.warnings = warnings
        self.count = 0  # documents finished
        self.ready: list[Document] = []  # finished, not yet handed out
        self.fields: tuple[str, ...] = DEFAULT_ENTITY_FIELDS
        self.header = "-".join(DEFAULT_ENTITY_FIELDS)
        self.doc: _DocumentBuilder | None = None
        self.comments: list[str] = []
        self.rows: list[tuple[str, ...]] = []
        self.globals: dict[str, str] = {}
        self.names: set[str] = set()  # the documents begun so far
        # udapi's order (order_entities): the rank of every entity id met so far (file-wide:
        # an id in two documents is one entity); ranks grow with the documents, so an id met
        # in an earlier document sorts before the ids a later one brings
        self.entity_ranks = EntityRanks()
        self.next_rank = 0

    def take(self) -> list[Document]:
        ready, self.ready = self.ready, []
        return ready

    # a whole document at once
    def fast_document(self, line: int, block: str) -> bool:
        """Read a document from its ``# newdoc`` line to the next with C-level operations on
        its text: the token lines are located, split and checked by compiled expressions, and
        only lines whose MISC carries an annotation are parsed one by one. False (nothing
        read) where the document needs the line-by-line reading: rows kept for a converter,
        a ``# global.Entity`` after its first token line, lines that are not plain (spaces
        for tabs, a comment among token lines, a paragraph of comments only, a blank line of
        spaces, an ID that is not 5, 5.1 or 5-6), or any malformed line, which that reading
        reports."""
        if self.layout or _find(block, "\n\n\n") >= 0:
            return False
        pos = block.index("\n") + 1
        number = line + 1
        while block.startswith("\n", pos):  # blank lines after # newdoc
            pos += 1
            number += 1
        split = _split_document(block, pos, number)
        if split is None:
            return False  # a line that is not ten tab-separated columns with a plain ID, a
            # comment among token lines or a paragraph of comments only
        comments, sizes, row_lines, words_only, first, annotated = split
        headers: list[str] = []  # a # global.Entity in the document's first comments
        if _find(block, "global.Entity") >= 0:
            lead = comments[0] if comments else []
            headers = [m.group(1) for c in lead if (m := _GLOBAL_ENTITY.match(c))]
            if block.count("global.Entity") != len(headers) or not all(
                h.split("-")[0].strip() for h in headers
            ):
                return False  # elsewhere, or one the line-by-line reading refuses
            comments[0] = [c for c in lead if not _GLOBAL_ENTITY.match(c)]
        self.end_sentence()
        newdoc = _NEWDOC.match(block[: block.index("\n")].strip())  # it does: a newdoc block
        self.start_document(line, (newdoc.group(1) if newdoc else "") or None)
        for header in headers:
            self.set_fields(line, header)
        doc = self.doc
        assert doc is not None
        doc.sentences = list(map(_new_sentence, zip(map(tuple, comments), repeat(()))))
        doc.sentence_index = len(comments)
        rows = len(row_lines)
        if words_only:  # node = row = word position
            doc.tokens = first
            doc.token_lines = row_lines
            doc.positions = range(rows)
            node_lines = row_lines
        elif _special_nodes is not None:  # its nodes, their lines and annotations, in C
            (
                doc.tokens,
                doc.token_lines,
                doc.positions,
                doc.empty_count,
                doc.ranks,
                doc.local_ids,
                doc.node_deps,
                doc.node_sentences,
                node_lines,
                annotated,
            ) = _special_nodes(first, row_lines, sizes)
        else:
            row_node = doc.special_rows(first, row_lines, sizes)
            miscs = list(map(itemgetter(-1), first))
            marked = compress(range(rows), map("_".__ne__, miscs))  # rows annotated
            if isinstance(row_node, range):  # empty nodes, no multiword token: row = node
                annotated = [(row, miscs[row]) for row in marked]
                node_lines = row_lines
            else:  # a multiword token's row is no node, and its annotations are not read
                annotated = [
                    (node, miscs[row]) for row in marked if (node := row_node[row]) is not None
                ]
                node_lines = list(compress(row_lines, map(row_node.__contains__, range(rows))))
        found = (
            None
            if _entity_mentions is None
            else _entity_mentions(annotated, node_lines, doc.fields, unescape, doc.exact_ua)
        )
        if found is not None:  # every annotation read in C: mentions of one part
            made = (
                None
                if _mention_markables is None
                else _mention_markables(
                    found,
                    doc.attribute_names,
                    Markable,
                    *(() if words_only else (doc.positions, doc.empty_count)),
                )
            )
            if made is not None:  # and their markables made there, but those left as None
                doc.made, doc.found = made, found
            else:
                doc.take_mentions(found)
        else:
            annotate = doc.annotate
            for node, misc in annotated or ():
                annotate(node_lines[node], node, misc)
        self.comments = []
        self.finish_document()
        return True

    # one physical line
    def line(self, number: int, raw: str) -> None:
        line = raw.rstrip("\r\n")
        if not line.strip():
            self.end_sentence()
            return
        if line.startswith("#"):
            self.comment(number, line.strip())
            return
        if self.doc is None:
            self.start_document(number, None)
        doc = self.doc
        assert doc is not None  # start_document made it
        fields = tuple(line.split("\t"))
        if len(fields) != COLUMNS:
            spaced = tuple(line.split())
            if len(spaced) == COLUMNS:
                fields = spaced
            else:
                raise ScoringInputError(
                    self.path,
                    number,
                    f"{len(fields)} tab-separated columns (expected {COLUMNS}: "
                    "ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC)",
                    code="columns",
                    document=doc.name,
                )
        if self.layout:
            self.rows.append(fields)
        self.sentence_tokens += 1
        doc.token(number, fields)

    def comment(self, number: int, line: str) -> None:
        if match := _NEWDOC.match(line):
            self.end_sentence()
            self.start_document(number, match.group(1) or None)
            return
        if match := _GLOBAL_ENTITY.match(line):
            self.set_fields(number, match.group(1))
            return
        if self.doc is None and line.startswith("# global."):
            key, _, value = line[1:].partition("=")
            self.globals[key.strip()] = value.strip()  # file-level header comments
            return
        self.comments.append(line)

    def set_fields(self, number: int, header: str) -> None:
        names = tuple(name.strip().lower() for name in header.split("-"))
        if not names or not names[0]:
            raise ScoringInputError(
                self.path,
                number,
                f"global.Entity = {header!r} names no fields (expected e.g. eid-etype-head-other)",
                code="entity_header",
            )
        self.fields = names
        self.header = header
        if self.doc is not None:
            self.doc.set_fields(names, header)

    def start_document(self, number: int, name: str | None) -> None:
        self.finish_document()
        if name is None:
            name = str(self.count + 1)
        if name in self.names:  # as the exploded reader: one name, one document
            raise ScoringInputError(
                self.path,
                number,
                f"document '{name}' appears twice in "
                "the file (expected unique '# newdoc id' names)",
                code="duplicate_document",
                document=name,
            )
        self.names.add(name)
        self.doc = _DocumentBuilder(
            self.path, name, number, self.fields, self.header, self.warnings
        )
        self.doc.globals = dict(self.globals)

    def end_sentence(self) -> None:
        if self.sentence_tokens:
            assert self.doc is not None
            self.doc.sentence(Sentence(tuple(self.comments), tuple(self.rows)))
            self.comments = []
            self.rows = []
            self.sentence_tokens = 0

    def finish_document(self) -> None:
        self.end_sentence()
        if self.doc is not None:
            self.ready.append(self.order_entities(self.doc.build()))
            self.count += 1
            self.doc = None
        self.comments = []

    def order_entities(self, doc: Document) -> Document:
        """``doc`` with its ``entity_order``: udapi's order of the file's entities, which the
        CorefUD scorer scores in (a span in two entities maps to the last of them). udapi
        keeps one entity per id for the whole file and orders entities by their first
        mention: the earlier document first, then the earlier first node, the longer
        mention, the earlier last node, and the smaller entity id (as text). What is kept
        across documents is one rank (an int) per id, not its sort key, and past a few
        thousand ids not in memory (`EntityRanks`)."""
        ids = dict.fromkeys(map(_SECOND, doc.identity))
        # a legacy GRP header (UD GUM 2.8): udapi names each document's entities apart
        grp = "grp" in self.fields
        ranks = {} if grp else self.entity_ranks.known(ids)
        found: dict[str, tuple[Any, ...]] = {}
        get = found.get
        for markable in doc.identity:
            eid = markable[1]  # (by index: a named tuple's attributes are a call each)
            if eid in ranks:
                continue
            best = get(eid)
            if markable[7] or markable[9]:  # a zero, or empty nodes inside
                nodes = sorted(mention_nodes(mention_key(markable)))
                key = (nodes[0], -len(nodes), nodes[-1])
            else:
                parts = markable[2]
                start = parts[0][0]
                if best is not None and best[0] < (start, 0):
                    continue  # starts after the entity's first mention (most do)
                end = parts[-1][1]
                length = end - start + 1 if len(parts) == 1 else sum(b - a + 1 for a, b in parts)
                key = ((start, 0), -length, (end, 0))
            if best is None or key < best:
                found[eid] = key
        # the document's new ids in udapi's order (ids compared as written), ranked after
        # every id met before
        new = {
            eid: rank
            for rank, eid in enumerate(
                sorted(found, key=lambda eid: (*found[eid], escape(eid))), self.next_rank
            )
        }
        self.next_rank += len(new)
        if not grp:
            self.entity_ranks.add(new)
        ranks.update(new)
        doc.entity_order = tuple(sorted(ids, key=ranks.__getitem__))
        return doc

    def finish(self) -> None:
        self.finish_document()

    def close(self) -> None:
        self.entity_ranks.close()


class _RowNodes(dict[Any, Any]):
    """Row → node index of a document with multiword ranges (None for a range's row)."""

    def __missing__(self, key: int) -> None:
        return None


class _SentenceIndex(dict[Any, Any]):
    """(sentence, token ID) → node index, each sentence's built on its first use (only zero
    heads need it, and a zero's dependencies are in its own sentence)."""

    def __init__(self, doc: _DocumentBuilder) -> None:
        super().__init__()
        self.doc = doc
        self.indexed: set[int] = set()

    def get(self, key: Any, default: Any = None) -> Any:
        sentence = key[0]
        if sentence not in self.indexed:
            self.indexed.add(sentence)
            # its nodes (node_sentences never decreases); a later node of the same ID wins,
            # as it would one by one
            sentences = self.doc.node_sentences
            lo, hi = bisect_left(sentences, sentence), bisect_right(sentences, sentence)
            ids = self.doc.local_ids[lo:hi]
            self.update(zip(zip(repeat(sentence), ids), range(lo, hi)))
        return super().get(key, default)


def _part_nodes(
    positions: Sequence[int], rank: Any, ranges: dict[int, list[int]]
) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    """The nodes of a mention's parts (part -> [first, last] node), in part order, and the
    sorted word positions and (position, rank) of the empty nodes among them, each once."""
    nodes = [i for part in sorted(ranges) for i in range(ranges[part][0], ranges[part][1] + 1)]
    words = sorted({positions[i] for i in nodes if rank(i) == 0})
    zeros = sorted({(positions[i], rank(i)) for i in nodes if rank(i)})
    return nodes, words, zeros


def _span_nodes(
    positions: Sequence[int], ranks: Sequence[int], first: int, last: int
) -> tuple[range, list[int], list[tuple[int, int]]]:
    """`_part_nodes` of a mention of one part, nodes ``first``..``last``, by C-level steps:
    nodes in file order are in the order of their (position, rank), each once."""
    ranks, at = ranks[first : last + 1], positions[first : last + 1]
    return (
        range(first, last + 1),
        list(compress(at, map(not_, ranks))),
        list(compress(zip(at, ranks), ranks)),
    )


class _DocumentBuilder:
    """One document being read. Its nodes (words and empty nodes, in file order) are
    parallel sequences: word position, rank among the empty nodes before the next word (0
    for a word), and, where the document has empty nodes, sentence, ID and DEPS (a zero's
    dependencies need them)."""

    def __init__(
        self,
        path: str,
        name: str,
        line: int,
        fields: tuple[str, ...],
        header: str,
        warnings: list[str] | None,
    ) -> None:
        self.path = path
        self.name = name
        self.line = line
        self.warnings = warnings
        self.globals: dict[str, str] = {}
        self.set_fields(fields, header)
        self.tokens: list[str] = []
        self.token_lines: list[int] = []
        self.positions: list[int] | range = []
        self.ranks: list[int] | None = None  # None: no empty node
        self.empty_count: list[int] | None = None  # empty nodes among nodes[0..i]
        self.node_sentences: list[int] = []
        self.local_ids: list[str] = []
        self.node_deps: list[str] = []
        self.sentences: list[Sentence] = []
        self.sentence_index = 0
        self.zeros_before = 0  # empty nodes since the last word
        self.open: dict[tuple[str, str], list[_Mention]] = {}  # (layer, entity) -> stack
        self.parts_open: dict[tuple[str, str, int, int], list[_Mention]] = {}
        self.pending: dict[tuple[str, str, int], list[_Mention]] = {}
        self.mentions: list[_Mention] = []
        self.made: list[tuple[Markable, tuple[str, ...], Sequence[Any]] | None] | None = None
        """(markable, element_of, bridges) of each mention, where `mention_markables` made
        them (then `mentions` stays empty); None for one it left to `markable`."""
        self.found: list[tuple[str, dict[str, str], int, int, int]] = []
        """The mentions `entity_mentions` read, where `made` holds their markables."""
        self.split_ante: list[tuple[str, str, int]] = []  # (antecedent, plural, line)
        # (anchor, anaphor, relation, line, node index)
        self.bridges: list[tuple[str, str, str, int, int]] = []

    def set_fields(self, fields: tuple[str, ...], header: str) -> None:
        self.fields = fields
        self.header = header
        self.exact_ua = "ua" in fields
        self.not_attributes = _SPECIAL_FIELDS | {fields[0]}
        # the fields kept in Markable.attributes, in header order (a name given twice once;
        # an empty name, from a header like eid--etype, names nothing)
        self.attribute_names = tuple(
            dict.fromkeys(
                name
                for name in fields
                if name and name not in self.not_attributes and name[0] != "_"
            )
        )

    def fail(self, line: int, message: str, code: str = "invalid") -> ScoringInputError:
        return ScoringInputError(self.path, line, message, code=code, document=self.name)

    def warn(self, line: int, message: str) -> None:
        if self.warnings is not None:
            self.warnings.append(f"{self.path}:{line}: {message}")

    def rank(self, node: int) -> int:
        return self.ranks[node] if self.ranks is not None else 0

    # token lines
    def token(self, number: int, fields: tuple[str, ...]) -> None:
        token_id = fields[0]
        if token_id.isdigit():
            rank = 0
            self.tokens.append(fields[1])
            self.token_lines.append(number)
            self.zeros_before = 0
        elif _EMPTY_ID.match(token_id):
            if not self.node_sentences or self.node_sentences[-1] != self.sentence_index:
                self.zeros_before = LEADING_RANK  # before the sentence's first word
            self.zeros_before += 1
            rank = self.zeros_before
        elif _RANGE_ID.match(token_id):
            return  # a multiword token: its words follow on their own lines
        else:
            raise self.fail(
                number,
                f"token ID {token_id!r} (expected a word ID such as 5, an "
                "empty node such as 5.1 or a multiword range such as 5-6)",
                "token_id",
            )
        self.add_node(rank, token_id, fields[DEPS])
        self.annotate(number, len(self.positions) - 1, fields[MISC])

    def add_node(self, rank: int, token_id: str, deps: str) -> None:
        """One more node, at the current word position (its rank: 0 for a word)."""
        assert isinstance(self.positions, list)
        index = len(self.positions)
        if rank and self.ranks is None:  # the first empty node: keep ranks from now on
            self.ranks = [0] * index
            self.empty_count = [0] * index
        self.positions.append(len(self.tokens) - (rank == 0))
        if self.ranks is not None and self.empty_count is not None:  # kept together
            self.ranks.append(rank)
            self.empty_count.append((self.empty_count[-1] if index else 0) + (rank > 0))
        self.node_sentences.append(self.sentence_index)
        self.local_ids.append(token_id)
        self.node_deps.append(deps)

    def special_rows(
        self, rows: list[tuple[str, str, str, str]], row_lines: list[int], sizes: list[int]
    ) -> Sequence[int | None] | _RowNodes:
        """The nodes of a document with empty nodes or multiword tokens, from its token rows
        (ID, FORM, DEPS, MISC), by C-level operations over the columns; the node index of
        each row (None for a multiword range)."""
        ids = list(map(itemgetter(0), rows))
        words = list(map(str.isdigit, ids))
        self.tokens = list(compress(map(itemgetter(1), rows), words))
        self.token_lines = list(compress(row_lines, words))
        deps = list(map(itemgetter(2), rows))
        sentences = list(chain.from_iterable(map(repeat, range(len(sizes)), sizes)))
        row_node: list[int | None] | range | _RowNodes
        if "-" in "\t".join(ids):  # multiword ranges: rows that are not nodes
            is_node = list(map(not_, map(str.__contains__, ids, repeat("-"))))
            node_rows = list(compress(range(len(ids)), is_node))
            ids, words, deps, sentences = (
                list(compress(column, is_node)) for column in (ids, words, deps, sentences)
            )
            row_node = _RowNodes(zip(node_rows, range(len(node_rows))))
        else:
            row_node = range(len(ids))
        empty = list(map(not_, words))
        self.positions = list(map(sub, accumulate(map(int, words)), words))
        self.empty_count = list(accumulate(map(int, empty)))
        ranks = [0] * len(ids)
        for node in compress(range(len(ids)), empty):  # its rank among the empty nodes
            if not node or sentences[node] != sentences[node - 1]:
                ranks[node] = LEADING_RANK + 1  # before the sentence's first word
            else:
                ranks[node] = ranks[node - 1] + 1 if empty[node - 1] else 1
        self.ranks = ranks
        self.local_ids, self.node_deps, self.node_sentences = ids, deps, sentences
        return row_node

    def take_mentions(self, found: list[tuple[str, dict[str, str], int, int, int]]) -> None:
        """The identity mentions `scoring.native._speedups.entity_mentions` read: each of one part,
        closed, on the nodes ``first``..``last`` (rows of a words-only document)."""
        names, mentions = self.attribute_names, self.mentions
        for entity, fields, line, first, last in found:
            mention = _Mention(entity, fields, line, len(mentions), "identity", 1, names)
            mention.ranges[1] = [first, last]
            mention.closed.add(1)
            mentions.append(mention)

    def annotate(self, number: int, index: int, misc: str) -> None:
        """The annotations in the MISC of node ``index`` (on line ``number``)."""
        if misc == "_" or "=" not in misc:
            return
        if misc.startswith("Entity=") and "|" not in misc:  # the usual MISC: only Entity=
            self.brackets(number, index, misc[7:], "identity")
            return
        for item in misc.split("|"):
            key, _, value = item.partition("=")
            if key == "Entity":
                self.brackets(number, index, value, "identity")
            elif key == "DiscourseDeixis":
                self.brackets(number, index, value, "discourse_deixis")
            elif key == "SplitAnte" and not self.exact_ua:
                self.read_split_ante(number, value)
            elif key == "Bridge" and not self.exact_ua:
                self.read_bridge(number, value, index)

    def brackets(self, number: int, index: int, value: str, layer: str) -> None:
        if len(value) > 1:  # the usual values: one opening, one closing, one single-word mention
            first, last = value[0], value[-1]
            if first == "(":
                inner = value[1:-1] if last == ")" else value[1:]
                if "(" not in inner and ")" not in inner:
                    self.open_mention(number, index, inner, layer, last == ")")
                    return
            elif last == ")" and "(" not in value and ")" not in value[:-1]:
                self.close(number, index, value[:-1], layer)
                return
        pos = 0
        for match in _ITEM.finditer(value):
            if match.start() != pos:
                break
            pos = match.end()
            if match.group(3) is not None:
                self.close(number, index, match.group(3), layer)
            else:
                mention = self.open_mention(number, index, match.group(1), layer)
                if match.group(2):
                    self.close_part(number, index, mention, layer)
        if pos != len(value) or not value:
            key = "Entity" if layer == "identity" else "DiscourseDeixis"
            raise self.fail(
                number,
                f"cannot read {key}={value!r} (expected openings "
                "'(e1-…', single-word mentions "
                "'(e1-…)' and closings 'e1)')",
                "brackets",
            )

    def open_mention(
        self, number: int, index: int, content: str, layer: str, single: bool = False
    ) -> _Mention:
        """The mention (or next part of a discontinuous mention) an opening starts on node
        ``index``; ``single``: it closes there too (``(e1-…)``)."""
        values = content.split("-")
        names = self.fields
        if "%" in content:
            fields = {
                name: (values[i] if name == "ua" else unescape(values[i]))
                if i < len(values)
                else ""
                for i, name in enumerate(names)
            }
        else:  # nothing escaped (the common case): the same dict, built in C
            fields = dict(zip(names, values))
            if len(values) < len(names):
                for name in names[len(values) :]:
                    fields[name] = ""
        raw_id = values[0]
        part, total = 1, 1
        if "[" in raw_id and (match := _PART.match(raw_id)):
            raw_id, part, total = match.group(1), int(match.group(2)), int(match.group(3))
            if not 1 <= part <= total:
                raise self.fail(
                    number,
                    f"discontinuous part [{part}/{total}] (expected [k/n] with 1 <= k <= n)",
                    "brackets",
                )
        entity = unescape(raw_id) if "%" in raw_id else raw_id
        if not entity:
            raise self.fail(
                number,
                f"opening '({content}' has no entity id (expected '({self.fields[0]}-…')",
                "brackets",
            )
        if part == 1:
            mention = _Mention(
                entity, fields, number, len(self.mentions), layer, total, self.attribute_names
            )
            self.mentions.append(mention)
            if total > 1:
                self.pending.setdefault((layer, entity, total), []).append(mention)
        else:
            # the part continues the earliest mention of the entity whose next part it is
            candidates = [
                m for m in self.pending.get((layer, entity, total), ()) if len(m.ranges) == part - 1
            ]
            if not candidates:
                raise self.fail(
                    number,
                    f"part [{part}/{total}] of entity {entity} has no "
                    f"part [{part - 1}/{total}] before it",
                    "brackets",
                )
            mention = candidates[0]
            for name, val in fields.items():
                if val and not mention.fields.get(name):
                    mention.fields[name] = val
        mention.ranges[part] = [index, index]
        if total > 1:
            self.parts_open.setdefault((layer, entity, part, total), []).append(mention)
            mention.fields["_part"] = str(part)  # which part a closing ends (close_part)
            if single:
                self.close_part(number, index, mention, layer)
        elif single:  # opened and closed on this node: never on the stack of open mentions
            mention.closed.add(1)
        elif (stack := self.open.get((layer, entity))) is None:
            self.open[(layer, entity)] = [mention]
        else:
            stack.append(mention)
        return mention

    def close(self, number: int, index: int, content: str, layer: str) -> None:
        raw_id = content.split("-", 1)[0]
        if "[" in raw_id and (match := _PART.match(raw_id)):
            entity = unescape(match.group(1))
            part, total = int(match.group(2)), int(match.group(3))
            stack = self.parts_open.get((layer, entity, part, total))
            if not stack:
                raise self.fail(
                    number,
                    f"closing '{content})' has no open part [{part}/{total}] "
                    f"of entity {entity} (expected an earlier '({raw_id}-…')",
                    "unopened",
                )
            mention = stack.pop()
            self.finish_part(number, index, mention, part)
            return
        entity = unescape(raw_id)
        stack = self.open.get((layer, entity))
        if not stack:
            raise self.fail(
                number,
                f"closing '{content})' has no open mention of entity "
                f"{entity} (expected an earlier '({raw_id}-…')",
                "unopened",
            )
        mention = stack.pop()  # a mention of one part (finish_part, inlined)
        mention.ranges[1][1] = index
        mention.closed.add(1)

    def close_part(self, number: int, index: int, mention: _Mention, layer: str) -> None:
        if mention.parts_total == 1:  # the usual mention, of one part (finish_part, inlined)
            self.open[(layer, mention.entity)].pop()
            mention.ranges[1][1] = index
            mention.closed.add(1)
            return
        part = int(mention.fields["_part"])
        self.parts_open[(layer, mention.entity, part, mention.parts_total)].pop()
        self.finish_part(number, index, mention, part)

    def finish_part(self, number: int, index: int, mention: _Mention, part: int) -> None:
        mention.ranges[part][1] = index
        mention.closed.add(part)
        if len(mention.closed) == mention.parts_total and mention.parts_total > 1:
            self.pending[(mention.layer, mention.entity, mention.parts_total)].remove(mention)

    def read_split_ante(self, number: int, value: str) -> None:
        for entry in value.split(","):
            ante, sep, plural = entry.partition("<")
            if not sep or not ante or not plural:
                raise self.fail(
                    number,
                    f"SplitAnte entry {entry!r} (expected "
                    "ANTECEDENT<PLURAL, e.g. SplitAnte=e1<e3,e2<e3)",
                    "split_ante",
                )
            self.split_ante.append((ante, plural, number))

    def read_bridge(self, number: int, value: str, index: int) -> None:
        for entry in value.split(","):
            anchor, sep, rest = entry.partition("<")
            anaphor, _, relation = rest.partition(":")
            if not sep or not anchor or not anaphor:
                raise self.fail(
                    number,
                    f"Bridge entry {entry!r} (expected ANCHOR<ANAPHOR[:rel], e.g. Bridge=e12<e15)",
                    "bridge",
                )
            self.bridges.append((anchor, anaphor, relation, number, index))

    def sentence(self, sentence: Sentence) -> None:
        self.sentences.append(sentence)
        self.sentence_index += 1

    # the finished document
    def build(self) -> Document:
        for stack in list(self.open.values()) + list(self.parts_open.values()):
            if stack:
                mention = stack[0]
                raise self.fail(
                    mention.line,
                    f"mention of entity {mention.entity} is never "
                    f"closed (expected '{mention.entity})' before the end of "
                    f"document {self.name})",
                    "unclosed",
                )
        for stack in self.pending.values():
            if stack:
                mention = stack[0]
                missing = sorted(set(range(1, mention.parts_total + 1)) - mention.closed)
                raise self.fail(
                    mention.line,
                    f"discontinuous mention of entity {mention.entity} "
                    f"lacks part(s) {missing} of {mention.parts_total}",
                    "unclosed",
                )
        built: list[Markable] = []
        mids: dict[str, int] = {}
        ua_links: list[tuple[str, str, str, int]] = []  # (anaphor mid, anchor mid, rel, line)
        ua_elements: dict[int, tuple[str, ...]] = {}
        if self.made is not None:  # read in C (`mention_markables`): identity mentions
            made = self.make_the_rest(self.made) if None in self.made else cast(_Made, self.made)
            layers = ["identity"] * len(made)
            built = list(map(_FIRST, made))
            mids = dict(zip(map(_FIRST, built), range(len(built))))  # (markable_id first)
            if (
                len(mids) == len(built)
                and not any(map(_SECOND, made))
                and not any(map(_THIRD, made))
            ):
                made = []  # no mid twice, no ElementOf, no bridges: nothing left to check
            else:
                built, mids = [], {}  # the loop below says which mid is used twice
        else:
            read = self.markable
            locals_by_sentence = _SentenceIndex(self)
            made = [read(mention, locals_by_sentence) for mention in self.mentions]
            layers = [m.layer for m in self.mentions]
        for (markable, element_of, bridges), layer in zip(made, layers):
            if layer == "identity":
                mid = markable.markable_id
                if mid in mids:
                    raise self.fail(
                        markable.line,
                        f"markable id {mid} is used twice (expected one mid per mention)",
                        "duplicate_markable",
                    )
                mids[mid] = len(built)
            if element_of:
                ua_elements[len(built)] = element_of
            if bridges:
                ua_links.extend(
                    (markable.markable_id, anchor, rel, markable.line) for anchor, rel in bridges
                )
            built.append(markable)
        if self.exact_ua:
            built = [
                self.with_elements(markable, ua_elements[i]) if i in ua_elements else markable
                for i, markable in enumerate(built)
            ]
            bridging = self.exact_bridges(ua_links, mids)
        else:
            built = self.apply_split_ante(built, layers)
            bridging = self.resolve_bridges(built, layers)
        if "discourse_deixis" in layers:
            identity = tuple(m for m, layer in zip(built, layers) if layer == "identity")
            deixis = tuple(m for m, layer in zip(built, layers) if layer == "discourse_deixis")
        else:
            identity, deixis = tuple(built), ()
        return Document(
            name=self.name,
            path=self.path,
            line=self.line,
            tokens=tuple(self.tokens),
            identity=identity,
            discourse_deixis=deixis,
            bridging=tuple(bridging),
            token_lines=tuple(self.token_lines),
            sentences=tuple(self.sentences),
            metadata={**self.globals, "format": FORMAT, "global.Entity": self.header},
        )

    def make_the_rest(
        self, made: list[tuple[Markable, tuple[str, ...], Sequence[Any]] | None]
    ) -> _Made:
        """``made`` with the markables `mention_markables` left (None) made by `markable`:
        mentions over empty nodes, or whose fields are not plain."""
        names, locals_by_sentence = self.attribute_names, _SentenceIndex(self)
        complete: _Made = cast(_Made, list(made))
        for order in compress(range(len(made)), map(is_, made, repeat(None))):
            entity, fields, line, first, last = self.found[order]
            mention = _Mention(entity, fields, line, order, "identity", 1, names)
            mention.ranges[1] = [first, last]
            mention.closed.add(1)
            complete[order] = self.markable(mention, locals_by_sentence)
        return complete

    def markable(
        self, mention: _Mention, locals_by_sentence: dict[tuple[int, str], int]
    ) -> tuple[Markable, tuple[str, ...], Sequence[tuple[str, str]]]:
        ranges = mention.ranges
        zero = 0
        positions = self.positions
        if len(ranges) == 1 and (self.empty_count is None or self._no_empty_node(*ranges[1])):
            first, last = ranges[1]  # the common case: contiguous words only
            nodes: range | list[int] = range(first, last + 1)
            parts: list[tuple[int, int]] | tuple[tuple[int, int], ...] = (
                (positions[first], positions[last]),
            )
            zeros: list[tuple[int, int]] | tuple[Any, ...] = ()
        else:
            if len(ranges) == 1 and self.ranks is not None:  # most zeros
                nodes, words, zeros = _span_nodes(positions, self.ranks, *ranges[1])
            else:
                nodes, words, zeros = _part_nodes(positions, self.rank, ranges)
            if words:
                parts = []
                for w in words:
                    if parts and parts[-1][1] == w - 1:
                        parts[-1] = (parts[-1][0], w)
                    else:
                        parts.append((w, w))
            else:  # a zero mention: the first empty node is the mention
                position, zero = zeros.pop(0)
                parts = [(position, position)]
        fields = mention.fields
        head = head_zero = None
        if "head" in fields and fields["head"]:
            try:
                h = int(fields["head"])
            except ValueError:
                raise self.fail(
                    mention.line,
                    f"head {fields['head']!r} of entity {mention.entity} (expected a number)",
                    "head",
                ) from None
            if not 1 <= h <= len(nodes):
                raise self.fail(
                    mention.line,
                    f"head {h} of entity {mention.entity} is outside "
                    f"its mention of {len(nodes)} nodes (expected 1..{len(nodes)})",
                    "head",
                )
            node = nodes[h - 1]
            head, head_zero = positions[node], self.ranks[node] if self.ranks else 0
        min_span = None
        element_of: tuple[str, ...] = ()
        bridges: Sequence[tuple[str, str]] = ()
        if least := fields.get("min"):
            try:
                bounds = list(map(int, least.split(",")))
            except ValueError:
                raise self.fail(
                    mention.line,
                    f"min {fields['min']!r} (expected a token number or two joined by a comma)",
                    "min",
                ) from None
            min_span = (bounds[0] - 1, bounds[-1] - 1)
        if min_span is None and head is not None and not head_zero:
            min_span = (head, head)  # CorefUD partial matching: the head is the minimum
        names = mention.attribute_names  # most mentions have none of them filled
        attributes = (
            [(name, fields[name]) for name in names if fields.get(name)]
            if any(map(fields.get, names))
            else []
        )
        if ua := fields.get("ua"):
            bridges = links = []
            plain = unescape if "%" in ua else str  # str(text) is text itself
            for pair in ua.split(","):
                key, _, value = pair.partition(":")
                key = plain(key)
                if key == "ElementOf":
                    element_of += tuple(plain(value).split(","))
                elif key == "Bridge":
                    anchor, _, rel = value.partition("/")
                    links.append((plain(anchor), plain(rel)))
                elif key:
                    attributes.append((key, plain(value)))
        markable_id = fields.get("mid") or f"m{mention.order + 1}"
        # Markable(markable_id, entity_id, parts, line, min_span, head, element_of, zero,
        # attributes, zeros, head_zero), built as the tuple it is
        markable = _new_markable(
            (
                markable_id,
                mention.entity,
                tuple(parts),
                mention.line,
                min_span,
                head,
                (),
                zero,
                tuple(attributes),
                tuple(zeros),
                head_zero or 0,
            )
        )
        if head is not None and not head_zero or head is None and not zero and not zeros:
            return markable, element_of, bridges  # headed by a word
        # The node that heads it when scored (v2: the first one when none is annotated).
        head_node = (head, head_zero or 0) if head is not None else first_node(markable)
        if head_node[1]:  # an empty node: a zero, which carries its head's dependencies
            source = next(i for i in nodes if (positions[i], self.rank(i)) == head_node)
            markable = markable._replace(
                attributes=markable.attributes
                + (("deps", self.doc_deps(source, locals_by_sentence)),)
            )
        return markable, element_of, bridges

    def _no_empty_node(self, first: int, last: int) -> bool:
        if self.empty_count is None:
            return True
        before = self.empty_count[first - 1] if first else 0
        return self.empty_count[last] == before

    def doc_deps(self, node: int, locals_by_sentence: dict[tuple[int, str], int]) -> str:
        deps = self.node_deps[node]
        out = [f"@{self.node_sentences[node]}"]  # the sentence: v2 pairs no zeros across
        if deps in ("", "_"):
            return out[0]
        for dep in deps.split("|"):
            parent, _, label = dep.partition(":")
            if parent == "0":
                where = "root"
            else:
                target = locals_by_sentence.get((self.node_sentences[node], parent))
                if target is None:
                    where = parent
                elif self.rank(target):
                    where = f"{self.positions[target]}.{self.rank(target)}"
                else:
                    where = str(self.positions[target])
            out.append(f"{where}:{label}")
        return "|".join(out)

    @staticmethod
    def with_elements(markable: Markable, elements: tuple[str, ...]) -> Markable:
        merged = tuple(dict.fromkeys(markable.element_of + elements))
        return Markable(
            markable.markable_id,
            markable.entity_id,
            markable.parts,
            markable.line,
            markable.min_span,
            markable.head,
            merged,
            markable.zero,
            markable.attributes,
            markable.zeros,
            markable.head_zero,
        )

    def apply_split_ante(self, built: list[Markable], layers: list[str]) -> list[Markable]:
        if not self.split_ante:
            return built
        first: dict[str, int] = {}
        for i, (markable, layer) in enumerate(zip(built, layers)):
            if layer == "identity":
                first.setdefault(markable.entity_id, i)
        seen: set[tuple[str, str]] = set()
        antecedents: dict[str, set[str]] = {}
        additions: dict[int, list[str]] = {}
        for ante, plural, line in self.split_ante:
            if (ante, plural) in seen:
                self.warn(line, f"SplitAnte {ante}<{plural} is repeated; read once")
                continue
            seen.add((ante, plural))
            missing = [e for e in (ante, plural) if e not in first]
            if missing:
                self.warn(
                    line,
                    f"SplitAnte {ante}<{plural} names entity {missing[0]}, which has "
                    "no mention in the document; ignored",
                )
                continue
            antecedents.setdefault(plural, set()).add(ante)
            additions.setdefault(first[ante], []).append(plural)
        for plural, antes in antecedents.items():
            if len(antes) < 2:
                line = next(line for a, p, line in self.split_ante if p == plural)
                self.warn(
                    line,
                    f"SplitAnte of entity {plural} has one antecedent "
                    f"({next(iter(antes))}); a split antecedent needs two",
                )
        return [
            self.with_elements(m, tuple(additions[i])) if i in additions else m
            for i, m in enumerate(built)
        ]

    def resolve_bridges(self, built: list[Markable], layers: list[str]) -> list[BridgingLink]:
        if not self.bridges:
            return []
        by_entity: dict[str, list[Markable]] = {}
        opened_at: dict[tuple[int, str], Markable] = {}
        for markable, layer in zip(built, layers):
            if layer == "identity":
                by_entity.setdefault(markable.entity_id, []).append(markable)
                opened_at.setdefault((markable.line, markable.entity_id), markable)
        links: list[BridgingLink] = []
        seen: set[tuple[str, str, str]] = set()
        for anchor_entity, anaphor_entity, relation, line, node in self.bridges:
            anaphor = opened_at.get((line, anaphor_entity))
            if anaphor is None:
                later = [
                    m for m in by_entity.get(anaphor_entity, ()) if m.start >= self.positions[node]
                ]
                anaphor = later[0] if later else None
            if anaphor is None or anchor_entity not in by_entity:
                missing = anaphor_entity if anaphor is None else anchor_entity
                self.warn(
                    line,
                    f"Bridge {anchor_entity}<{anaphor_entity} names entity "
                    f"{missing}, which has no mention here; ignored",
                )
                continue
            candidates = by_entity[anchor_entity]
            before = [m for m in candidates if m.start < anaphor.start]
            anchor = (
                max(before, key=lambda m: (m.start, m.end))
                if before
                else min(candidates, key=lambda m: (m.start, m.end))
            )
            key = (anaphor.markable_id, anchor.markable_id, relation)
            if key in seen:
                self.warn(line, f"Bridge {anchor_entity}<{anaphor_entity} is repeated; read once")
                continue
            seen.add(key)
            links.append(BridgingLink(anaphor.markable_id, anchor.markable_id, relation, line))
        return links

    def exact_bridges(
        self, records: list[tuple[str, str, str, int]], mids: dict[str, int]
    ) -> list[BridgingLink]:
        links = []
        for anaphor, anchor, relation, line in records:
            if anchor not in mids or anaphor not in mids:
                self.warn(
                    line,
                    f"bridging anchor {anchor} of {anaphor} is not a mention of "
                    "the document; ignored",
                )
                continue
            links.append(BridgingLink(anaphor, anchor, relation, line))
        return links
