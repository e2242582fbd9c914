"""Mention filters of UA scorer v2.0: ``--np-only`` and ``--remove-nested-mentions``.

Both are defined on CoNLL-2012 files in the reference (v2 VN:250-292, VN:321-363; see
ua-v1-v2-differences.md §6.5) and work on any Document here. They return a new Document
(or, through `apply`, the kept markables of one layer); nothing is modified in place.

* `np_only`: a mention whose constituent in the **key's** parse is a VP is pruned. Within a
  cluster that lost a mention, the rest is kept when at least two mentions remain ("partial
  VP-chain pruning"); otherwise the whole cluster goes, even when singletons are kept.
* `drop_unmarked_optional`: MUC-7 optional key markables (``STATUS="OPT"``) count only
  when the response marks their string.
* `remove_nested_mentions`: a mention nested in another mention of the same cluster, in the
  same sentence, is dropped (identical spans are not nested). Whether a cluster reduced to
  one mention survives is then the singleton rule's business. Deviation: with singletons
  kept (``-s``), v2 leaves such a cluster untouched, nested mentions included (its removal
  step is skipped by a misplaced ``else``); we remove the nested mentions there as well.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from scoring.model import Document, Markable

if TYPE_CHECKING:
    from scoring.options import ScoringOptions

PARSE_COLUMN = 5
_LABEL = re.compile(r"\(([^()*]*)")


def apply(
    doc: Document,
    markables: Sequence[Markable],
    options: ScoringOptions,
    *,
    key: Document | None = None,
) -> tuple[Markable, ...]:
    """The markables of one layer of ``doc`` that the options' filters keep.

    ``key`` is the key document, whose parse decides ``np_only`` for both sides (v2 reads
    the parse of the key for the response too); without it ``doc``'s own parse is used.
    """
    kept = tuple(markables)
    if getattr(options, "np_only", False):
        kept = _np_only(kept, _parse_bits(key if key is not None else doc))
    if getattr(options, "remove_nested_mentions", False):
        kept = _remove_nested(kept, _sentence_of(doc))
    return kept


def np_only(key_doc: Document, doc: Document) -> Document:
    """``doc`` (the key itself or a response) without the mentions that are VPs in the key."""
    bits = _parse_bits(key_doc)
    return replace(doc, identity=_np_only(doc.identity, bits))


def remove_nested_mentions(doc: Document) -> Document:
    """``doc`` without mentions nested in another mention of their cluster."""
    return replace(doc, identity=_remove_nested(doc.identity, _sentence_of(doc)))


def drop_unmarked_optional(key_doc: Document, response_doc: Document) -> Document:
    """``key_doc`` without its optional markables (MUC-7 ``STATUS="OPT"``) that the response
    does not mark.

    MUC-7 task definition: "The evaluation software will not score a string that is marked
    OPT in the key unless the response has markup on that string." A response markable marks
    the key's string when it lies inside the key markable and covers its minimum span
    (``MIN``), or has exactly its span when the key markable has no MIN.
    """
    spans = [(m.start, m.end) for m in response_doc.identity]

    def marked(key: Markable) -> bool:
        low, high = key.min_span or (key.start, key.end)
        if key.min_span is None:
            return (key.start, key.end) in spans
        return any(key.start <= a <= low and high <= b <= key.end for a, b in spans)

    kept = tuple(
        m for m in key_doc.identity if dict(m.attributes).get("STATUS") != "OPT" or marked(m)
    )
    return key_doc if len(kept) == len(key_doc.identity) else replace(key_doc, identity=kept)


# ---------------------------------------------------------------------------------------


def _parse_bits(doc: Document) -> list[str] | None:
    """The parse bit of every word (CoNLL-2012 column 6), or None without a parse."""
    bits = [
        row[PARSE_COLUMN] for s in doc.sentences for row in s.rows if len(row) > PARSE_COLUMN + 1
    ]
    return bits if bits and len(bits) == len(doc.tokens) else None


def _sentence_of(doc: Document) -> list[int] | None:
    if not doc.sentences:
        return None
    out: list[int] = []
    for index, sentence in enumerate(doc.sentences):
        out.extend(
            [index] * sum(1 for row in sentence.rows if "." not in row[0] and "-" not in row[0][1:])
        )
    return out if len(out) == len(doc.tokens) else None


def constituent_label(bits: Sequence[str]) -> str | None:
    """The label of the constituent a mention's parse bits form, as v2 reads them.

    Only brackets opened inside the mention count. One top-level constituent gives its
    label; several give ``NP`` (v2 joins them under an NP node); none gives None. Labels
    keep their letters only (``NP-SBJ`` → ``NPSBJ``), so ``VP`` means exactly a VP.

    >>> constituent_label(["(VP*", "(NP*", "*))"])
    'VP'
    >>> constituent_label(["(S(VP*", "*))"])
    'S'
    >>> constituent_label(["(NP*)", "(VP*)"])
    'NP'
    """
    tops: list[str] = []
    depth = 0
    for bit in bits:
        for match in re.finditer(r"\(([^()*]*)|\)", bit):
            if match.group(0) == ")":
                depth = max(depth - 1, 0)
                continue
            if depth == 0:
                tops.append("".join(ch for ch in match.group(1) if ch.isalpha()))
            depth += 1
    if not tops:
        return None
    return tops[0] if len(tops) == 1 else "NP"


def _np_only(markables: Iterable[Markable], bits: list[str] | None) -> tuple[Markable, ...]:
    markables = tuple(markables)
    if bits is None:
        return markables
    pruned: set[str] = set()
    dropped_entities: dict[str, int] = {}
    for markable in markables:
        if markable.zero or markable.end >= len(bits):
            continue
        if constituent_label(bits[markable.start : markable.end + 1]) == "VP":
            pruned.add(markable.markable_id)
            dropped_entities[markable.entity_id] = 1
    if not pruned:
        return markables
    remaining: dict[str, int] = {}
    for markable in markables:
        if markable.markable_id not in pruned:
            remaining[markable.entity_id] = remaining.get(markable.entity_id, 0) + 1
    return tuple(
        m
        for m in markables
        if m.markable_id not in pruned
        and (m.entity_id not in dropped_entities or remaining[m.entity_id] > 1)
    )


def _remove_nested(
    markables: Iterable[Markable], sentence_of: list[int] | None
) -> tuple[Markable, ...]:
    markables = tuple(markables)
    by_entity: dict[str, list[int]] = {}
    for index, markable in enumerate(markables):
        by_entity.setdefault(markable.entity_id, []).append(index)

    def sentence(m: Markable) -> int:
        return sentence_of[m.start] if sentence_of and m.start < len(sentence_of) else 0

    removed: set[int] = set()
    for indices in by_entity.values():
        for a in indices:
            inner = markables[a]
            for b in indices:
                outer = markables[b]
                if a == b or (inner.start, inner.end) == (outer.start, outer.end):
                    continue
                if (
                    outer.start <= inner.start
                    and inner.end <= outer.end
                    and sentence(inner) == sentence(outer)
                ):
                    removed.add(a)
                    break
    return tuple(m for i, m in enumerate(markables) if i not in removed)
