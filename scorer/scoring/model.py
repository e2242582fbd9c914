"""The document model: what every reader produces and everything downstream consumes.

A reader turns one file into a list of `Document`s. A document holds its tokens and three
annotation layers exactly as annotated (identity markables, discourse-deixis markables and
bridging links); no scoring mode has been applied yet. Modes (singletons, split antecedents,
non-referring, minimum spans) are applied later, when a document is turned into the integer
arrays the metrics work on.

Token positions are 0-based indices of the document's word tokens, in file order. Zeros (empty
nodes, exploded-format IDs such as ``5.1``) are not word tokens: a zero markable sits at the
position of the next word and carries ``zero = k`` (its 1-based rank among the zeros written
before that word). In compact files an empty node before the first word of its sentence
(``0.k``) counts from `LEADING_RANK` instead (rank ``LEADING_RANK + k``): it then differs
from the empty nodes after the last word of the sentence before, which sit before the same
word, whatever the number of those (it differs between a key and a response).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

Span = tuple[int, int]
"""An inclusive interval of token positions, ``(start, end)``."""

LEADING_RANK = 1000
"""Where the ranks of a compact file's empty nodes before a sentence's first word start."""


NON_REFERRING = "-Pseudo"
"""The entity id suffix of non-referring entities (spec Q25)."""


class Markable(NamedTuple):
    """One annotated mention (a markable) of one annotation layer.

    ``entity_id`` is the cluster label exactly as written (``"12"``, ``"12-Pseudo"``,
    ``"3-DD"``); labels are only compared within one file. ``parts`` holds the mention's
    contiguous pieces, sorted; a contiguous mention has one part. ``min_span`` is the
    minimum span (``Min=`` in exploded files), ``head`` the head token (compact files), both
    as 0-based token positions. ``element_of`` lists the plural entities this markable's
    entity is an element of (split antecedents). ``line`` is the 1-based file line where the
    markable opens, for error messages.

    A named tuple (immutable and hashable, like the other model classes) because readers
    build one per markable, and a tuple is built four times faster than a frozen dataclass.
    """

    markable_id: str
    entity_id: str
    parts: tuple[Span, ...]
    line: int
    min_span: Span | None = None
    head: int | None = None
    element_of: tuple[str, ...] = ()
    zero: int = 0
    attributes: tuple[tuple[str, str], ...] = ()
    # Compact (CorefUD) files: empty nodes inside a mention of several words, as
    # ``(position, rank)`` pairs in the sense of ``zero``; ``head_zero = k > 0`` means the
    # head is the zero of rank k at position ``head`` (an empty node, not a word).
    zeros: tuple[tuple[int, int], ...] = ()
    head_zero: int = 0

    @property
    def start(self) -> int:
        return self.parts[0][0]

    @property
    def end(self) -> int:
        return self.parts[-1][1]

    @property
    def non_referring(self) -> bool:
        """Non-referring status comes only from the ``-Pseudo`` suffix (spec Q25)."""
        return self.entity_id.endswith(NON_REFERRING)


@dataclass(frozen=True, slots=True)
class BridgingLink:
    """A bridging annotation: the anaphor markable refers to (an entity of) the anchor."""

    anaphor: str  # MarkableID of the anaphor
    anchor: str  # MarkableID of the anchor (MentionAnchor)
    relation: str = ""
    line: int = 0


class Sentence(NamedTuple):
    """Layout a writer needs to reproduce a file: comment lines and raw token rows.

    ``rows`` keeps every token line's fields as read (zeros included), so a converter can
    write the other format without losing columns the scorer does not use. A named tuple,
    as `Markable` is: the compact reader builds one per sentence even when scoring (its
    ``sent_id`` comments are checked against the key's), 50,000 in a 1,000-document file.
    """

    comments: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(slots=True)
class Document:
    """One document of a key or response file, as annotated."""

    name: str
    path: str
    line: int  # 1-based line of the document's first line (``# newdoc``)
    tokens: tuple[str, ...]  # word forms, zeros excluded
    identity: tuple[Markable, ...] = ()
    discourse_deixis: tuple[Markable, ...] = ()
    bridging: tuple[BridgingLink, ...] = ()
    token_lines: tuple[int, ...] = ()  # file line of each word token
    sentences: tuple[Sentence, ...] = ()  # filled by readers that support conversion
    metadata: dict[str, str] = field(default_factory=dict)  # e.g. global.columns, format
    entity_order: tuple[str, ...] = ()
    """Compact files: the document's identity entities in udapi's order, which the CorefUD
    scorer takes them in (by first mention over the whole file, ties by entity id); empty
    where the order of first appearance in the document holds (`scoring.clusters`)."""

    def layer(self, discourse_deixis: bool = False) -> tuple[Markable, ...]:
        return self.discourse_deixis if discourse_deixis else self.identity
