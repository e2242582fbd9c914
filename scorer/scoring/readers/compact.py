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

from collections.abc import Iterator, Sequence
from functools import partial
from itertools import compress, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any

from scoring.clusters import mention_key, mention_nodes
from scoring.errors import ScoringInputError
from scoring.model import Document, Markable, Sentence
from scoring.readers.compact_document import (  # noqa: F401 (re-exported)
    DEPS,
    FORMAT,
    MISC,
    _DocumentBuilder,
    _RowNodes,
)
from scoring.readers.compact_lines import (  # noqa: F401 (re-exported)
    _GLOBAL_ENTITY,
    _NEWDOC,
    CHUNK,
    COLUMNS,
    Split,
    _blocks,
    escape,
    python_unescape,
    scan,
    sniff,
    split_document,
    unescape,
)
from scoring.readers.compact_markables import _part_nodes, _span_nodes  # noqa: F401
from scoring.readers.compact_state import _Mention  # noqa: F401 (re-exported)
from scoring.readers.entity_ranks import EntityRanks
from scoring.readers.text import count_newlines as _newlines  # noqa: F401 (re-exported)
from scoring.readers.text import find_text as _find
from scoring.readers.text import read_collecting, read_text  # noqa: F401 (re-exported)

__all__ = [
    "CHUNK",
    "COLUMNS",
    "DEFAULT_ENTITY_FIELDS",
    "DEPS",
    "FORMAT",
    "ID_FIELDS",
    "MISC",
    "Split",
    "escape",
    "iter_documents",
    "python_unescape",
    "read",
    "read_collecting",
    "read_text",
    "scan",
    "sniff",
    "split_document",
    "unescape",
]

DEFAULT_ENTITY_FIELDS = ("eid", "etype", "head", "other")
ID_FIELDS = ("eid", "grp")  # the first field is the entity id whatever it is called
_SECOND = itemgetter(1)
_new_sentence = partial(tuple.__new__, Sentence)
"""A `Sentence` from the tuple of its fields, built in C (the named tuple's ``__new__`` is a
Python function)."""


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
        headers = _leading_headers(block, comments)
        if headers is None:
            return False
        self.end_sentence()
        newdoc = _NEWDOC.match(block[: block.index("\n")].strip())  # it does: a newdoc block
        self.start_document(line, (newdoc.group(1) if newdoc else "") or None)
        for header in headers:
            self.set_fields(line, header)
        doc = self.doc
        assert doc is not None
        doc.sentences = list(map(_new_sentence, zip(map(tuple, comments), repeat(()))))
        doc.sentence_index = len(comments)
        if words_only:  # node = row = word position
            doc.tokens = first
            doc.token_lines = row_lines
            doc.positions = range(len(row_lines))
            node_lines = row_lines
        else:
            node_lines, annotated = _special_document(doc, first, row_lines, sizes)
        _read_annotations(doc, annotated, node_lines, words_only)
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


def _leading_headers(block: str, comments: list[list[str]]) -> list[str] | None:
    """The ``# global.Entity`` headers among a document's first comments (taken out of
    them), or None where one is elsewhere or is one the line-by-line reading refuses."""
    if _find(block, "global.Entity") < 0:
        return []
    lead = comments[0] if comments else []
    headers = [m.group(1) for c in lead if (m := _GLOBAL_ENTITY.match(c))]
    if block.count("global.Entity") != len(headers) or not all(
        h.split("-")[0].strip() for h in headers
    ):
        return None
    comments[0] = [c for c in lead if not _GLOBAL_ENTITY.match(c)]
    return headers


def _special_document(
    doc: _DocumentBuilder, first: list[Any], row_lines: list[int], sizes: list[int]
) -> tuple[Sequence[int], list[tuple[int, str]] | None]:
    """The nodes of a document with empty nodes or multiword tokens, from its rows (ID, FORM,
    DEPS, MISC): (the line of each node, (node, MISC) of each annotated node)."""
    if _special_nodes is not None:  # its nodes, their lines and annotations, in C
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
        return node_lines, annotated
    row_node = doc.special_rows(first, row_lines, sizes)
    rows = len(row_lines)
    miscs = list(map(itemgetter(-1), first))
    marked = compress(range(rows), map("_".__ne__, miscs))  # rows annotated
    if isinstance(row_node, range):  # empty nodes, no multiword token: row = node
        return row_lines, [(row, miscs[row]) for row in marked]
    # a multiword token's row is no node, and its annotations are not read
    return (
        list(compress(row_lines, map(row_node.__contains__, range(rows)))),
        [(node, miscs[row]) for row in marked if (node := row_node[row]) is not None],
    )


def _read_annotations(
    doc: _DocumentBuilder,
    annotated: list[tuple[int, str]] | None,
    node_lines: Sequence[int],
    words_only: bool,
) -> None:
    """The mentions of ``annotated`` (node, MISC): read, and their markables made, in C where
    every annotation is plain (`_entity_mentions`, `_mention_markables`), else one by one."""
    found = (
        None
        if _entity_mentions is None
        else _entity_mentions(annotated, node_lines, doc.fields, unescape, doc.exact_ua)
    )
    if found is None:
        annotate = doc.annotate
        for node, misc in annotated or ():
            annotate(node_lines[node], node, misc)
        return
    # every annotation read in C: mentions of one part
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
