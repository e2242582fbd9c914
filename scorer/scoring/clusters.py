"""Mode processing: one annotation layer of one document → the clusters the metrics score.

This module owns spec §2.6 (and the policy decisions that replace the reference's crashes):

1. markables are grouped by entity id, clusters in order of first appearance, mentions in
   opening order; a mention is an integer *span code* (see `SpanCoder`), so equal spans of
   the key and the response document get the same code;
2. the same span twice in one entity is counted once, with a warning (policy; the reference
   keeps both copies when split antecedents are off, Q21);
3. with split antecedents, each plural entity P gets an *accommodated set*: the atomic
   entities reached from P through ``ElementOf`` (nested plurals flattened), each as the
   tuple of its mention codes. The walk keeps a visited set; a cycle is a `ScoringInputError`
   (the reference loops forever, Q13);
4. non-referring clusters (``-Pseudo``) leave coreference scoring; every one of their
   mentions is kept for non-referring identification (policy, instead of the first one, Q14).
   In compact (CorefUD) files a ``-Pseudo`` entity is an ordinary entity, as the CorefUD
   scorer reads it;
5. without singletons, clusters of size one are dropped, an accommodated set counting as a
   mention (policy, instead of the AssertionError of Q19);
6. clusters whose accommodated sets are identical are merged (plural test PA-8).

A span annotated in two entities stays in both (spec §2.6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from scoring.mention_codes import (
    MentionKey,
    SpanCoder,
    first_node,
    mention_key,
    mention_nodes,
    mention_zeros,
    node_order,
    with_first_node_heads,
    zeros_without_heads,
)
from scoring.model import NON_REFERRING, Markable
from scoring.plan import ScoringPlan
from scoring.plurals import AccommodatedSet, accommodated_set, merge_identical_sets

try:
    from scoring.native._tables import layer_clusters as _native_layer_clusters
    from scoring.native._tables import layer_groups as _native_layer_groups
    from scoring.native._tables import layer_groups_all as _native_layer_groups_all
except ImportError:  # not built: `_groups` and `_clusters`
    _native_layer_groups = _native_layer_clusters = _native_layer_groups_all = None
_layer_groups = _native_layer_groups
_layer_groups_all = _native_layer_groups_all
_layer_clusters = _native_layer_clusters


@dataclass(slots=True)
class Partition:
    """The scored clusters of one side of one document.

    ``clusters[i]`` are the regular mention codes of cluster i (no duplicates, file order);
    ``sets[i]`` is its accommodated set or None. A set counts as one mention of its cluster
    (Q23), so ``sizes[i] = len(clusters[i]) + (sets[i] is not None)``.
    """

    clusters: list[list[int]]
    sets: list[AccommodatedSet | None]
    sizes: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.sizes:
            if self.sets.count(None) == len(self.sets):
                self.sizes = list(map(len, self.clusters))
            else:
                self.sizes = [len(c) + (s is not None) for c, s in zip(self.clusters, self.sets)]

    @property
    def has_sets(self) -> bool:
        return self.sets.count(None) != len(self.sets)

    def renamed(self, rename: dict[int, int]) -> Partition:
        """The same partition with mention codes replaced through ``rename`` (an alignment)."""
        if not rename:
            return self
        get = rename.get
        clusters = [[get(m, m) for m in c] for c in self.clusters]
        sets: list[AccommodatedSet | None] = [
            None
            if s is None
            else AccommodatedSet(
                tuple(tuple(get(m, m) for m in member) for member in s.members), s.identity
            )
            for s in self.sets
        ]
        return Partition(clusters, sets, list(self.sizes))


@dataclass(slots=True)
class ProcessedLayer:
    """Everything the engine needs from one side of one document after mode processing."""

    partition: Partition
    non_referring: set[int]  # codes of the mentions of non-referring entities
    entity_ids: list[str]  # entity id of each scored cluster (the first one when merged)
    min_spans: dict[int, tuple[int, int]]  # code → Min span (first markable that has one)
    heads: dict[int, int]  # code → head token (first markable that has one)
    # codes of zero mentions on this side (a zero, or a mention whose head is a zero; v2
    # ``is_zero``), their head node (position, rank) and their ``deps`` attribute
    zeros: set[int] = field(default_factory=set)
    zero_heads: dict[int, tuple[int, int]] = field(default_factory=dict)
    deps: dict[int, str] = field(default_factory=dict)


def process_layer(
    markables: Sequence[Markable],
    plan: ScoringPlan,
    coder: SpanCoder,
    *,
    path: str,
    document: str,
    warnings: list[str],
    pseudo_non_referring: bool = True,
    entity_order: Sequence[str] = (),
) -> ProcessedLayer:
    """Apply the scoring mode (spec §2.6, policy) to one annotation layer.

    ``pseudo_non_referring``: whether ``-Pseudo`` entities are non-referring (UA files); the
    CorefUD scorer scores them as ordinary entities in compact files.

    The clusters come in the order of their entities' first markable, or of
    ``entity_order`` where given (compact files: udapi's order, as the CorefUD scorer takes
    them). It matters only where a span is in two entities: the metrics then map it to the
    last of them (both references do, spec Q21; docs/scoring-deviations.md).

    Two steps: `group_layer` (what does not depend on the mode) then `finish_layer`.
    """
    grouped = group_layer(
        markables,
        coder,
        path=path,
        document=document,
        entity_order=entity_order,
        with_spans=plan.matching != "exact",
    )
    return finish_layer(
        grouped, plan, path=path, warnings=warnings, pseudo_non_referring=pseudo_non_referring
    )


@dataclass(slots=True)
class GroupedLayer:
    """`process_layer`'s first step: one layer's markables coded and grouped by entity, which
    depends on the markables and the coder only, not on the mode's matching, singletons,
    zeros or split antecedents. Modes that code a layer alike share one
    (`scoring.engine.score_corpus_modes`); `finish_layer` reads it and changes nothing in it
    (its lists become the clusters of every mode that shares it)."""

    markables: Sequence[Markable]
    mcodes: list[int]  # each markable's mention code
    groups: dict[str, list[int]]  # entity id → its codes, a span once (ordered as scored)
    raw: dict[str, list[int]]  # ... every markable's code (accommodated sets keep them all)
    first: dict[str, Markable]  # entity id → its first markable
    split_lists: dict[str, list[str]]  # plural entity id → the entities ElementOf names it
    zero_codes: set[int]
    zero_heads: dict[int, tuple[int, int]]
    deps: dict[int, str]
    compiled: bool  # no span twice: `_layer_clusters` takes it where zeros are kept or none
    duplicates: str  # the warning about spans annotated twice in one entity, or ""
    spans: tuple[dict[int, tuple[int, int]], dict[int, int]] | None = None  # `min_spans_of`


def group_layer(
    markables: Sequence[Markable],
    coder: SpanCoder,
    *,
    path: str,
    document: str,
    entity_order: Sequence[str] = (),
    with_spans: bool = False,
) -> GroupedLayer:
    """`process_layer`'s first step: code every markable (new codes go to ``coder``), group
    the codes by entity in the clusters' order, and count a span repeated in one entity once
    (the warning is kept for `finish_layer`). ``with_spans``: `min_spans_of` will be asked
    for (matching beyond exact spans), so the Python grouping finds them in its pass."""
    zero_codes: set[int] = set()
    zero_heads: dict[int, tuple[int, int]] = {}
    deps: dict[int, str] = {}
    grouped = (
        None
        if coder.head_identity or _layer_groups is None
        else _layer_groups(markables, coder.codes, coder.keys)
    )
    spans: tuple[dict[int, tuple[int, int]], dict[int, int]] | None = None
    if grouped is not None:  # no empty node: `_groups`, compiled
        mcodes, groups, first, split_lists, duplicated = grouped
    else:
        spans = ({}, {}) if with_spans else None
        mcodes, groups, first, split_lists = _all_groups(
            markables, coder, zero_codes, zero_heads, deps, spans
        )
        duplicated = True  # (looked at below)
    if entity_order and len(groups) > 1 and len(set(mcodes)) < len(mcodes):
        rank = {eid: k for k, eid in enumerate(entity_order)}
        last = len(rank)
        groups = {eid: groups[eid] for eid in sorted(groups, key=lambda e: rank.get(e, last))}
    raw, duplicates = _spans_once(markables, mcodes, groups) if duplicated else (groups, [])
    warning = ""
    if duplicates:
        warning = (
            f"{path}: document {document}: the same span is annotated twice in one entity, "
            f"counted once: {', '.join(duplicates[:5])}"
            + (f" and {len(duplicates) - 5} more" if len(duplicates) > 5 else "")
        )
    return GroupedLayer(
        markables,
        mcodes,
        groups,
        raw,
        first,
        split_lists,
        zero_codes,
        zero_heads,
        deps,
        raw is groups,  # (no entity holds a span twice)
        warning,
        spans,
    )


def _all_groups(
    markables: Sequence[Markable],
    coder: SpanCoder,
    zero_codes: set[int],
    zero_heads: dict[int, tuple[int, int]],
    deps: dict[int, str],
    spans: tuple[dict[int, tuple[int, int]], dict[int, int]] | None,
) -> tuple[list[int], dict[str, list[int]], dict[str, Markable], dict[str, list[str]]]:
    """`_groups`, by its compiled twin ``layer_groups_all`` where it takes the layer."""
    done = (
        None
        if _layer_groups_all is None
        else _layer_groups_all(
            markables,
            coder.codes,
            coder.keys,
            coder.head_identity,
            zero_codes,
            zero_heads,
            deps,
            spans,
        )
    )
    if done is None:  # (a markable the compiled twin does not take)
        done = _groups(markables, coder, zero_codes, zero_heads, deps, spans)
    return done


def _spans_once(
    markables: Sequence[Markable], mcodes: list[int], groups: dict[str, list[int]]
) -> tuple[dict[str, list[int]], list[str]]:
    """The same span twice in one entity counts once (policy): each entity's codes in
    ``groups`` made unique, in place; returns the codes as annotated (``raw``: members of
    accommodated sets keep every markable, as both references do; ``groups`` itself where
    no entity holds a span twice) and the repeated markables, for the warning."""
    raw = groups
    duplicates: list[str] = []
    for eid, codes in groups.items():
        if len(codes) > 1 and len(set(codes)) != len(codes):
            if raw is groups:
                raw = dict(groups)
            unique = list(dict.fromkeys(codes))
            groups[eid] = unique
            seen: set[int] = set()
            for m, code in zip(markables, mcodes):
                if m.entity_id == eid:
                    if code in seen:
                        duplicates.append(f"{m.markable_id} (line {m.line}) in entity {eid}")
                    seen.add(code)
    return raw, duplicates


def min_spans_of(
    grouped: GroupedLayer,
) -> tuple[dict[int, tuple[int, int]], dict[int, int]]:
    """code → Min span and code → head token, each from the first markable that has one
    (what matching beyond exact spans reads); worked out once per `GroupedLayer`."""
    if grouped.spans is None:
        min_spans: dict[int, tuple[int, int]] = {}
        heads: dict[int, int] = {}
        for m, code in zip(grouped.markables, grouped.mcodes):
            if m.min_span is not None or m.head is not None:
                if m.min_span is not None and code not in min_spans:
                    min_spans[code] = m.min_span
                if m.head is not None and not m.head_zero and code not in heads:
                    heads[code] = m.head
        grouped.spans = (min_spans, heads)
    return grouped.spans


def finish_layer(
    grouped: GroupedLayer,
    plan: ScoringPlan,
    *,
    path: str,
    warnings: list[str],
    pseudo_non_referring: bool = True,
) -> ProcessedLayer:
    """`process_layer`'s second step, the mode's: the warning about repeated spans, the Min
    spans and heads (matching beyond exact spans), then the scored clusters."""
    if grouped.duplicates:
        warnings.append(grouped.duplicates)
    min_spans, heads = min_spans_of(grouped) if plan.matching != "exact" else ({}, {})
    groups, split_lists, first = grouped.groups, grouped.split_lists, grouped.first
    keep_split = plan.keep_split_antecedents
    if (
        grouped.compiled
        and _layer_clusters is not None
        and (plan.keep_zeros or not grouped.zero_codes)
    ):  # no span twice, no zero to drop: `_clusters`, compiled
        clusters, sets, eids, non_referring = _layer_clusters(
            groups,
            split_lists,
            keep_split,
            plan.keep_singletons,
            pseudo_non_referring,
            accommodated_set,
            (groups, split_lists, first, path),
        )
    else:
        clusters, sets, eids, non_referring = _clusters(
            groups,
            grouped.raw,
            split_lists,
            first,
            grouped.zero_codes,
            plan,
            path,
            pseudo_non_referring,
        )
    if keep_split and sets.count(None) != len(sets):
        clusters, sets, eids = merge_identical_sets(clusters, sets, eids)
    return ProcessedLayer(
        Partition(clusters, sets),
        non_referring,
        eids,
        min_spans,
        heads,
        grouped.zero_codes,
        grouped.zero_heads,
        grouped.deps,
    )


def _clusters(
    groups: dict[str, list[int]],
    raw: dict[str, list[int]],
    split_lists: dict[str, list[str]],
    first: dict[str, Markable],
    zero_codes: set[int],
    plan: ScoringPlan,
    path: str,
    pseudo_non_referring: bool,
) -> tuple[list[list[int]], list[AccommodatedSet | None], list[str], set[int]]:
    """`process_layer`'s second step: the scored clusters, their accommodated sets and entity
    ids, and the codes of non-referring entities. ``scoring.native._tables.layer_clusters``
    is its compiled twin for layers without repeated spans whose zeros stay (kept, or none)."""
    keep_split = plan.keep_split_antecedents
    keep_singletons = plan.keep_singletons
    clusters: list[list[int]] = []
    sets: list[AccommodatedSet | None] = []
    eids: list[str] = []
    non_referring: set[int] = set()
    for eid, codes in groups.items():
        acc = None
        if keep_split and split_lists.get(eid):
            acc = accommodated_set(eid, raw, split_lists, first, path)
        if pseudo_non_referring and eid.endswith(NON_REFERRING):  # first[eid].non_referring
            non_referring.update(codes)
            continue
        if not keep_singletons and len(codes) + (acc is not None) == 1:
            continue
        if zero_codes and not plan.keep_zeros:
            codes = [c for c in codes if c not in zero_codes]
            if not codes and acc is None:
                continue
        clusters.append(codes)
        sets.append(acc)
        eids.append(eid)
    return clusters, sets, eids, non_referring


def _groups(
    markables: Sequence[Markable],
    coder: SpanCoder,
    zero_codes: set[int],
    zero_heads: dict[int, tuple[int, int]],
    deps: dict[int, str],
    spans: tuple[dict[int, tuple[int, int]], dict[int, int]] | None = None,
) -> tuple[list[int], dict[str, list[int]], dict[str, Markable], dict[str, list[str]]]:
    """`process_layer`'s first step: each markable's mention code, the codes of each entity,
    each entity's first markable and the entities whose ElementOf names each plural; the
    zeros' codes, head nodes and ``deps`` into the three given, and with ``spans`` the Min
    spans and heads of `min_spans_of` into its two, in the same pass. Its compiled twins:
    ``scoring.native._tables.layer_groups_all`` (the same arguments), and ``layer_groups``
    for layers without empty nodes (mentions coded without their heads)."""
    min_spans, heads = spans if spans is not None else (None, None)
    codes_of, code_keys, head_identity = coder.codes, coder.keys, coder.head_identity
    groups: dict[str, list[int]] = {}
    first: dict[str, Markable] = {}
    split_lists: dict[str, list[str]] = {}
    mcodes: list[int] = []
    append_code = mcodes.append
    for m in markables:
        # the fields, unpacked at once (a named tuple's attributes are a call each)
        _, eid, parts, _, min_span, head, element_of, zero, _, zeros, head_zero = m
        key: MentionKey
        if head_identity:  # `mention_key`, inline
            key = (parts, zero, zeros, (head, head_zero) if head is not None else first_node(m))
        elif zeros:
            key = (parts, zero, zeros)
        else:
            key = (parts, zero)
        code = codes_of.get(key)
        if code is None:
            code = codes_of[key] = len(code_keys)
            code_keys.append(key)
        append_code(code)
        if heads is not None and (min_span is not None or head is not None):
            if min_span is not None and code not in min_spans:  # type: ignore[operator]
                min_spans[code] = min_span  # type: ignore[index]
            if head is not None and not head_zero and code not in heads:
                heads[code] = head
        codes = groups.get(eid)
        if codes is None:
            groups[eid] = [code]
            first[eid] = m
        else:
            codes.append(code)
        if element_of:
            for plural in element_of:
                split_lists.setdefault(plural, []).append(eid)
        if zero or head_zero:
            zero_codes.add(code)
            if code not in zero_heads:
                # head_zero > 0: the head is the zero of that rank at position ``head``
                zero_heads[code] = (
                    (head, head_zero) if head_zero and head is not None else (parts[0][0], zero)
                )
                deps[code] = dict(m.attributes).get("deps", "")
    return mcodes, groups, first, split_lists


__all__ = [
    "AccommodatedSet",
    "GroupedLayer",
    "MentionKey",
    "Partition",
    "ProcessedLayer",
    "SpanCoder",
    "finish_layer",
    "first_node",
    "group_layer",
    "mention_key",
    "mention_nodes",
    "mention_zeros",
    "min_spans_of",
    "node_order",
    "process_layer",
    "with_first_node_heads",
    "zeros_without_heads",
]
