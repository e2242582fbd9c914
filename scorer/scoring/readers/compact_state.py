"""What the compact reader holds while it reads one document: its mentions being read
(`_Mention`) and the document's nodes and annotations (`_DocumentState`).

`_DocumentState` holds what the steps of `scoring.readers.compact_document._DocumentBuilder`
share: the mention reading (`scoring.readers.compact_mentions`) and the markable making
(`scoring.readers.compact_markables`) are each a class of steps over it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.errors import ScoringInputError
from scoring.model import Markable, Sentence

_Made = list[tuple[Markable, tuple[str, ...], Sequence[Any]]]
"""(markable, element_of, bridges) of each mention of a document."""
_SPECIAL_FIELDS = {"head", "mid", "min", "ua"}


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


class _DocumentState:
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
