"""Non-referring identification and bridging (spec §6, §7): true/false positives per document.

Both compare exact spans (integer span codes), whatever the coreference matching: this is UA
scorer v2's behaviour and the scoring policy (v1's ``min`` half-applied Min here, Q11).
"""

from __future__ import annotations

from collections.abc import Iterator

from scoring.results import TPCounts
from scoring.vocabulary import BRIDGING_LEVELS

BridgingPairs = dict[int, tuple[int, str]]
"""anaphor span code → (anchor span code, relation)."""


def non_referring(key: set[int], response: set[int]) -> TPCounts:
    """Non-referring markable identification.

    Every mention of a ``-Pseudo`` entity is an item (policy: the reference scores only the
    first mention of each such entity, Q14); a key item is found when the response marks the
    same span non-referring::

        tp = |K ∩ S|,  fn = |K \\ S|,  fp = |S \\ K|

    >>> non_referring({1, 2}, {2, 3})
    TPCounts(tp=1, fp=1, fn=1)
    """
    tp = len(key & response)
    return TPCounts(tp, len(response) - tp, len(key) - tp)


def bridging(
    key: BridgingPairs, response: BridgingPairs, key_map: dict[int, int]
) -> tuple[dict[str, TPCounts], dict[str, dict[str, TPCounts]]]:
    """Bridging at three levels (CODI-CRAC 2021 Task 2; spec §7).

    * anaphora recognition: the anaphor span is a response anaphor;
    * mention: and the response anchor has the key anchor's span;
    * entity: or both anchors are mentions of one key entity (``key_map``: key span → key
      cluster after mode processing, so removed singletons and non-referring anchors need an
      exact anchor, Q24).

    A found anaphor with a wrong anchor counts one fn and one fp at mention level (and at
    entity level when the entity is wrong too). The second result splits the counts by
    relation: a pair whose anaphor is a key anaphor counts under the key link's relation,
    any other response pair under its own relation.

    >>> levels, _ = bridging({1: (0, "part-of")}, {1: (2, "part-of")}, {0: 0, 2: 0})
    >>> levels["mention"], levels["entity"]
    (TPCounts(tp=0, fp=1, fn=1), TPCounts(tp=1, fp=0, fn=0))
    """
    counts = {level: [0, 0, 0] for level in BRIDGING_LEVELS}  # tp, fp, fn
    by_rel: dict[str, dict[str, list[int]]] = {}
    for rel, level, what in _bridging_outcomes(key, response, key_map):
        counts[level][what] += 1
        rel_counts = by_rel.get(rel)
        if rel_counts is None:
            rel_counts = by_rel[rel] = {lv: [0, 0, 0] for lv in BRIDGING_LEVELS}
        rel_counts[level][what] += 1

    def as_tp(c: list[int]) -> TPCounts:
        return TPCounts(c[0], c[1], c[2])

    return (
        {lv: as_tp(c) for lv, c in counts.items()},
        {rel: {lv: as_tp(c) for lv, c in levels.items()} for rel, levels in by_rel.items()},
    )


def _bridging_outcomes(
    key: BridgingPairs, response: BridgingPairs, key_map: dict[int, int]
) -> Iterator[tuple[str, str, int]]:
    """Every count the links make, in `bridging`'s order: (relation, level, 0 for tp, 1 for
    fp, 2 for fn); key links first, then the response links whose anaphor is no key
    anaphor."""
    for anaphor, (k_anchor, rel) in key.items():
        hit = response.get(anaphor)
        if hit is None:
            for level in BRIDGING_LEVELS:
                yield rel, level, 2
            continue
        s_anchor = hit[0]
        yield rel, "anaphora_recognition", 0
        if s_anchor == k_anchor:
            yield rel, "mention", 0
            yield rel, "entity", 0
            continue
        yield rel, "mention", 2
        yield rel, "mention", 1
        entity = key_map.get(k_anchor)
        if entity is not None and entity == key_map.get(s_anchor):  # one key entity
            yield rel, "entity", 0
        else:
            yield rel, "entity", 2
            yield rel, "entity", 1
    for anaphor, (_, rel) in response.items():
        if anaphor not in key:
            for level in BRIDGING_LEVELS:
                yield rel, level, 1
