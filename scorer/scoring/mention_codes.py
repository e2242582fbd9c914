"""Mention codes: what makes two markables the same mention (`mention_key`: word parts, zero
rank, empty nodes inside, and under head matching on compact files the head), the nodes a
mention covers, the first-node heads v2 gives compact files, and `SpanCoder`, which numbers
the distinct mentions of one document pair."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any

from scoring.model import Markable

MentionKey = tuple[Any, ...]
"""What makes two markables the same mention: ``(parts, zero)``, their word parts and zero
rank; ``(parts, zero, zeros)`` when empty nodes lie inside a mention of several nodes
(`Markable.zeros`); ``(parts, zero, zeros, head)`` under head matching on compact files, where
v2 compares the head too ("super-exact", VM:100-115), ``head`` being ``(position, rank)`` of
the head node. ``key[0]`` and ``key[1]`` always mean the same; see `mention_zeros`."""


def mention_key(markable: Markable, head_identity: bool = False) -> MentionKey:
    """The `MentionKey` of a markable (``head_identity``: the head is part of it)."""
    if head_identity:
        if markable.head is not None:
            head = (markable.head, markable.head_zero)
        else:  # v2: the first node when none is annotated
            head = first_node(markable)
        return (markable.parts, markable.zero, markable.zeros, head)
    if markable.zeros:
        return (markable.parts, markable.zero, markable.zeros)
    return (markable.parts, markable.zero)


def first_node(markable: Markable) -> tuple[int, int]:
    """The first node of a markable, ``(position, rank)`` (rank 0: a word)."""
    if markable.zero:
        return (markable.start, markable.zero)
    if markable.zeros:
        return min([(markable.start, 0), *markable.zeros], key=node_order)
    return (markable.start, 0)


_ZEROS = attrgetter("zeros")


def with_first_node_heads(
    markables: Sequence[Markable], *, exact: bool = False
) -> Sequence[Markable]:
    """Compact files as UA scorer v2 reads them: udapi gives a mention without a head
    annotation its first node as head, and v2 takes the head as the mention's minimum for
    partial matching, as its head for head matching, and a mention headed by an empty node
    as a zero. A mention with a ``min`` field (our converter's copy of an exploded ``Min``)
    is left as it is, so that a converted file scores as its exploded original.
    ``exact``: exact matching, where only the zeros this makes matter."""
    if exact and not zeros_without_heads(markables):
        return markables
    out = []
    for m in markables:
        if m.head is None and m.min_span is None and not m.zero:
            position, rank = first_node(m)
            if rank:
                m = m._replace(head=position, head_zero=rank)
            else:
                m = m._replace(head=position, min_span=(position, position))
        out.append(m)
    return out


def zeros_without_heads(markables: Sequence[Markable]) -> bool:
    """Whether a markable has empty nodes inside and no head: all that
    `with_first_node_heads` changes that exact matching reads."""
    return any(map(_ZEROS, markables)) and any(  # (at C level: most have none)
        m.zeros and m.head is None for m in markables
    )


def mention_zeros(key: MentionKey) -> tuple[tuple[int, int], ...]:
    """The empty nodes inside a mention of several nodes, as ``(position, rank)``."""
    return key[2] if len(key) > 2 else ()


def node_order(node: tuple[int, int]) -> tuple[int, int]:
    """Sort key of a node ``(position, rank)``: word t is (t, 0); the k-th zero before word p
    is (p - 1, k), so it sorts between the words around it."""
    position, rank = node
    return (position - 1, rank) if rank else node


def mention_nodes(key: MentionKey) -> frozenset[tuple[int, int]]:
    """Every node of a mention in `node_order` terms (words and empty nodes)."""
    parts, zero = key[0], key[1]
    if not zero and len(parts) == 1 and not mention_zeros(key):  # words only, one part
        start, end = parts[0]
        return frozenset(zip(range(start, end + 1), repeat(0)))
    if zero:
        out = {(parts[0][0] - 1, zero)}
    else:
        out = {(t, 0) for a, b in parts for t in range(a, b + 1)}
    out.update((p - 1, k) for p, k in mention_zeros(key))
    return frozenset(out)


class SpanCoder:
    """Gives every distinct mention of one document pair a small integer code.

    ``head_identity``: the head is part of a mention's identity (head matching on compact
    files, `mention_key`).
    """

    __slots__ = ("codes", "keys", "head_identity")

    def __init__(self, head_identity: bool = False) -> None:
        self.codes: dict[MentionKey, int] = {}
        self.keys: list[MentionKey] = []
        self.head_identity = head_identity

    def code(self, markable: Markable) -> int:
        key = mention_key(markable, self.head_identity)
        code = self.codes.get(key)
        if code is None:
            code = self.codes[key] = len(self.keys)
            self.keys.append(key)
        return code
