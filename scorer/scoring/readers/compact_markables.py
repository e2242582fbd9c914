"""The compact reader's markable making: each mention read made a `Markable` (its parts,
head, minimum, attributes, a zero's dependencies), then split antecedents and bridges
resolved over the document's markables. A step of
`scoring.readers.compact_document._DocumentBuilder`."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import partial
from itertools import compress, repeat
from operator import is_, not_
from typing import Any, cast

from scoring.clusters import first_node
from scoring.model import BridgingLink, Markable
from scoring.readers.compact_lines import unescape
from scoring.readers.compact_state import _DocumentState, _Made, _Mention

_new_markable = partial(tuple.__new__, Markable)


class _SentenceIndex(dict[Any, Any]):
    """(sentence, token ID) → node index, each sentence's built on its first use (only zero
    heads need it, and a zero's dependencies are in its own sentence)."""

    def __init__(self, doc: _DocumentState) -> None:
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


def _ua_field(
    ua: str, attributes: list[tuple[str, str]]
) -> tuple[tuple[str, ...], list[tuple[str, str]]]:
    """(element_of, bridges) of a ``ua`` field (our converter's ``Key:Value`` pairs, the
    exact ElementOf and Bridge records); its other pairs are added to ``attributes``."""
    element_of: tuple[str, ...] = ()
    links: list[tuple[str, str]] = []
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
    return element_of, links


class _MarkableMaking(_DocumentState):
    """Making the document's markables from its mentions."""

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
        """The markable of ``mention``, with its ElementOf and bridges where its ``ua`` field
        gives them (our converter's files)."""
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
            nodes, parts, zeros, zero = self.node_parts(ranges)
        fields = mention.fields
        head = head_zero = None
        if "head" in fields and fields["head"]:
            head, head_zero = self.head_of(mention, nodes)
        min_span = self.min_of(mention) if fields.get("min") else None
        element_of: tuple[str, ...] = ()
        bridges: Sequence[tuple[str, str]] = ()
        if min_span is None and head is not None and not head_zero:
            min_span = (head, head)  # CorefUD partial matching: the head is the minimum
        names = mention.attribute_names  # most mentions have none of them filled
        attributes = (
            [(name, fields[name]) for name in names if fields.get(name)]
            if any(map(fields.get, names))
            else []
        )
        if ua := fields.get("ua"):
            element_of, bridges = _ua_field(ua, attributes)
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
        return self.with_zero_deps(markable, nodes, locals_by_sentence), element_of, bridges

    def node_parts(
        self, ranges: dict[int, list[int]]
    ) -> tuple[range | list[int], list[tuple[int, int]], list[tuple[int, int]], int]:
        """(nodes, parts, zeros, zero) of a mention with empty nodes or several parts: its
        nodes in part order, its words joined into runs, the (position, rank) of its empty
        nodes, and, for a zero mention (no word), the rank of the empty node it is (taken
        out of the zeros)."""
        positions = self.positions
        nodes: range | list[int]
        if len(ranges) == 1 and self.ranks is not None:  # most zeros
            nodes, words, zeros = _span_nodes(positions, self.ranks, *ranges[1])
        else:
            nodes, words, zeros = _part_nodes(positions, self.rank, ranges)
        if not words:  # a zero mention: the first empty node is the mention
            position, zero = zeros.pop(0)
            return nodes, [(position, position)], zeros, zero
        parts: list[tuple[int, int]] = []
        for w in words:
            if parts and parts[-1][1] == w - 1:
                parts[-1] = (parts[-1][0], w)
            else:
                parts.append((w, w))
        return nodes, parts, zeros, 0

    def head_of(self, mention: _Mention, nodes: Sequence[int]) -> tuple[int, int]:
        """(position, rank) of the node the ``head`` field names (1-based among the
        mention's nodes, empty nodes included)."""
        try:
            h = int(mention.fields["head"])
        except ValueError:
            raise self.fail(
                mention.line,
                f"head {mention.fields['head']!r} of entity {mention.entity} (expected a number)",
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
        return self.positions[node], self.ranks[node] if self.ranks else 0

    def min_of(self, mention: _Mention) -> tuple[int, int]:
        """The 0-based span of the ``min`` field (our converter's: 1-based token numbers)."""
        least = mention.fields["min"]
        try:
            bounds = list(map(int, least.split(",")))
        except ValueError:
            raise self.fail(
                mention.line,
                f"min {least!r} (expected a token number or two joined by a comma)",
                "min",
            ) from None
        return (bounds[0] - 1, bounds[-1] - 1)

    def with_zero_deps(
        self,
        markable: Markable,
        nodes: Sequence[int],
        locals_by_sentence: dict[tuple[int, str], int],
    ) -> Markable:
        """``markable`` with the ``deps`` attribute of its head where an empty node heads it
        when scored (v2: the first node when none is annotated)."""
        positions = self.positions
        head_node = (
            (markable.head, markable.head_zero)
            if markable.head is not None
            else first_node(markable)
        )
        if not head_node[1]:
            return markable
        source = next(i for i in nodes if (positions[i], self.rank(i)) == head_node)
        return markable._replace(
            attributes=markable.attributes + (("deps", self.doc_deps(source, locals_by_sentence)),)
        )

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
