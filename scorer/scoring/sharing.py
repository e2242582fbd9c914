"""What the modes one document pair is scored in share (`scoring.engine.score_corpus_modes`):
each step worked out for the first mode that needs it, handed to the others that would work it
out alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.clusters import GroupedLayer, group_layer
from scoring.mention_codes import SpanCoder, with_first_node_heads
from scoring.model import Document, Markable


class SharedWork:
    """What the modes one document pair is scored in can share (`score_corpus_modes`): each
    step is worked out for the first mode that needs it and handed to the others that would
    work it out alike, so every mode's result is the one it gets alone.

    - the first-node heads of a compact file's markables (`with_first_node_heads`): one
      list for every mode, exact matching's included where it needs them;
    - the coded, grouped layers of both sides (`group_layer`), per way of coding mentions
      (the head in a mention's identity or not) and per list of markables, with the coder
      as the two sides left it: each mode gets its own copy of the coder, since the
      zeros' alignment may add codes to it;
    - the zeros' dependency pairs, per grouped layers and scored zeros.
    """

    __slots__ = ("heads", "keep", "layers", "zero_pairs")

    def __init__(self, *, keep: bool = True) -> None:
        self.keep = keep  # False: one mode only, nothing is kept for others
        self.heads: dict[int, tuple[Sequence[Markable], Sequence[Markable]]] = {}
        self.layers: list[tuple[Any, ...]] = []
        self.zero_pairs: dict[tuple[Any, ...], list[tuple[int, int]]] = {}

    def first_node_heads(self, markables: Sequence[Markable], *, exact: bool) -> Sequence[Markable]:
        """``with_first_node_heads(markables, exact=exact)``, the same list for every mode."""
        if exact and (not self.keep or any(m.head_zero and m.head is None for m in markables)):
            return with_first_node_heads(markables, exact=True)
        # Exact matching reads of a markable's head only the empty node it names: the list
        # made for the other modes differs from exact's own (the markables given, where no
        # zero lacks a head) only in the heads and Min spans of mentions of words, and
        # exact's groups and scores are the same with it (and the grouping is shared).
        done = self.heads.get(id(markables))
        if done is None or done[0] is not markables:
            done = (markables, with_first_node_heads(markables))
            if self.keep:
                self.heads[id(markables)] = done
        return done[1]

    def grouped(
        self,
        key_markables: Sequence[Markable],
        resp_markables: Sequence[Markable],
        head_identity: bool,
        *,
        key: Document,
        response: Document,
        entity_order: bool,
        with_spans: bool,
    ) -> tuple[SpanCoder, GroupedLayer, GroupedLayer]:
        """A coder and both sides' grouped layers, key first, as `process_layer` makes them
        one after the other with one fresh coder (``with_spans``: see `group_layer`; a
        grouping made without them finds them when a later mode asks)."""
        for kept, coder, key_grouped, resp_grouped in self.layers:
            if (
                kept[0] is key_markables
                and kept[1] is resp_markables
                and kept[2:] == (head_identity, entity_order)
            ):
                return _copied(coder), key_grouped, resp_grouped
        coder = SpanCoder(head_identity)
        key_grouped = group_layer(
            key_markables,
            coder,
            path=key.path,
            document=key.name,
            entity_order=key.entity_order if entity_order else (),
            with_spans=with_spans,
        )
        resp_grouped = group_layer(
            resp_markables,
            coder,
            path=response.path,
            document=response.name,
            entity_order=response.entity_order if entity_order else (),
            with_spans=with_spans,
        )
        if not self.keep:
            return coder, key_grouped, resp_grouped
        kept = (key_markables, resp_markables, head_identity, entity_order)
        self.layers.append((kept, coder, key_grouped, resp_grouped))
        return _copied(coder), key_grouped, resp_grouped


def _copied(coder: SpanCoder) -> SpanCoder:
    copy = SpanCoder(coder.head_identity)
    copy.codes = dict(coder.codes)
    copy.keys = list(coder.keys)
    return copy
