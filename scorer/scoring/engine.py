"""The scoring engine: (key, response) document pairs + a plan → per-document and corpus scores.

Per document (`score_document`): MUC-7 optional key markables the response does not mark
leave the key (`scoring.filters.drop_unmarked_optional`), mode processing of both sides
(`scoring.clusters`; mentions are node sets, empty nodes included, and under head matching on
compact files the head is part of a mention's identity), the dependency alignment of zeros
(``--zero-match-method dependent``), the mention alignment of ``plan.matching``
(`scoring.alignment`), one sparse contingency table
(`scoring.metrics.Contingency`), the split-antecedent alignment per metric where sets exist
(`scoring.splits`), then every selected metric in closed form, non-referring identification
and bridging. Per corpus (`score_corpus`): counts are micro-summed over documents in key-file
order and turned into scores as the reference does (spec §3): BLANC is the mean of its
sub-metrics that have links in the corpus (Q20), ``only_split_antecedent`` scores the split
counters (spec §5), CoNLL is (F_muc + F_bcub + F_ceafe) / 3.

The engine trusts its input: the readers and `scoring.validate` reject malformed files,
missing documents and token mismatches before a pair gets here. It never prints; what a user
should know goes to ``warnings``.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from scoring import extra_metrics, filters, zero_matching
from scoring.alignment import align_mentions, mention_order
from scoring.clusters import GroupedLayer, Partition, ProcessedLayer, finish_layer
from scoring.errors import UsageError
from scoring.mention_codes import SpanCoder, mention_nodes
from scoring.metrics import COREF_METRICS, NO_SPLITS
from scoring.metrics.mentions import BridgingPairs, bridging, non_referring
from scoring.metrics.plain import SetTable, TableCounts
from scoring.model import Document, Markable
from scoring.options import ScoringOptions
from scoring.plan import ScoringPlan
from scoring.results import CorpusResult, DocumentResult, PRCounts
from scoring.sharing import SharedWork
from scoring.splits import SetPairs
from scoring.summary import blanc_key_links_only, metric_result, summarize
from scoring.zero_matching import Alignment

COMPACT = "corefud"  # Document.metadata["format"] of the compact (CorefUD) reader
MUC_7 = "muc7"  # ... of the MUC-7 reader


def score_document(
    key: Document,
    response: Document,
    plan: ScoringPlan | ScoringOptions,
    *,
    shared: SharedWork | None = None,
) -> DocumentResult:
    """Score one response document against its key document.

    Returns the document's counts per metric (and its own scores from them), plus
    non-referring and bridging counts when the plan asks for them. ``shared``: what the
    other modes this pair is scored in have worked out already (`SharedWork`); the result
    is the same without it.
    """
    plan = ScoringPlan.of(plan)
    if shared is None:
        shared = SharedWork(keep=False)
    result = DocumentResult(key.name)
    warnings = result.warnings
    if key.metadata.get("format") == MUC_7:
        key = filters.drop_unmarked_optional(key, response)
    key_markables, resp_markables = _mode_markables(key, response, plan, shared)
    layers = _mode_layers(key, response, key_markables, resp_markables, plan, shared, warnings)
    coder, k, r = layers.coder, layers.key, layers.response
    key_zero_in = _first_cluster_mentions(k, layers.key_grouped)
    resp_zero_in = _first_cluster_mentions(r, layers.resp_grouped)
    key_part = k.partition
    aligned = _alignment(plan, k, r, key, coder, shared, warnings)
    resp_part = r.partition.renamed(aligned.rename)
    if plan.metrics:
        _coref_metrics(result, plan, key, key_part, resp_part, aligned)
    for name in plan.extra_metrics:
        extra = _extra_metric(
            name, key_part, resp_part, k, r, aligned, coder, (key_zero_in, resp_zero_in)
        )
        result.metrics[name] = metric_result(name, (extra,), (), plan)
    if plan.non_referring:
        result.non_referring = non_referring(k.non_referring, r.non_referring)
    if plan.bridging:
        key_pairs = _bridging_pairs(key, key_markables, coder, warnings)
        resp_pairs = _bridging_pairs(response, resp_markables, coder, warnings)
        key_map = {m: i for i, c in enumerate(key_part.clusters) for m in c}
        result.bridging, result.bridging_by_relation = bridging(key_pairs, resp_pairs, key_map)
    return result


class _ModeLayers(NamedTuple):
    """Both sides of a document pair processed for one mode: the coder of their mentions,
    each side's grouped layer (`group_layer`) and its mode-processed layer (`finish_layer`)."""

    coder: SpanCoder
    key_grouped: GroupedLayer
    resp_grouped: GroupedLayer
    key: ProcessedLayer
    response: ProcessedLayer


def _mode_markables(
    key: Document, response: Document, plan: ScoringPlan, shared: SharedWork
) -> tuple[Sequence[Markable], Sequence[Markable]]:
    """The markables of the layer the mode scores, key first, through the mention filters
    and, on compact files, with their first-node heads."""
    dd = plan.discourse_deixis
    key_markables: Sequence[Markable] = _filtered(key, key.layer(dd), plan, key)
    resp_markables: Sequence[Markable] = _filtered(response, response.layer(dd), plan, key)
    if key.metadata.get("format") == COMPACT:
        exact = plan.matching == "exact"
        key_markables = shared.first_node_heads(key_markables, exact=exact)
        resp_markables = shared.first_node_heads(resp_markables, exact=exact)
    return key_markables, resp_markables


def _mode_layers(
    key: Document,
    response: Document,
    key_markables: Sequence[Markable],
    resp_markables: Sequence[Markable],
    plan: ScoringPlan,
    shared: SharedWork,
    warnings: list[str],
) -> _ModeLayers:
    """Both sides' markables coded, grouped into clusters and processed for the mode."""
    compact = key.metadata.get("format") == COMPACT
    # head matching on compact files compares heads even for identical spans (v2 VM:100-115)
    head_identity = compact and plan.matching == "head"
    # the CorefUD scorer scores a '-Pseudo' entity of a compact file as any other entity
    coder, key_grouped, resp_grouped = shared.grouped(
        key_markables,
        resp_markables,
        head_identity,
        key=key,
        response=response,
        entity_order=not plan.discourse_deixis,
        with_spans=plan.matching != "exact",
    )
    k = finish_layer(
        key_grouped,
        plan,
        path=key.path,
        warnings=warnings,
        pseudo_non_referring=not compact,
    )
    r = finish_layer(
        resp_grouped,
        plan,
        path=response.path,
        warnings=warnings,
        pseudo_non_referring=not compact,
    )
    return _ModeLayers(coder, key_grouped, resp_grouped, k, r)


def _coref_metrics(
    result: DocumentResult,
    plan: ScoringPlan,
    key: Document,
    key_part: Partition,
    resp_part: Partition,
    aligned: Alignment,
) -> None:
    """The counts of the plan's coreference metrics on one document, into ``result``: one
    contingency table, and the split antecedents aligned per metric where sets exist."""
    with_sets = key_part.has_sets or resp_part.has_sets
    table = (SetTable if with_sets else TableCounts)(key_part, resp_part, lookups=aligned.lookups)
    pairs = SetPairs(key_part, resp_part) if with_sets else None
    for name in plan.metrics:
        counts: list[PRCounts] = []
        split: list[PRCounts] = []
        for metric in COREF_METRICS[name]:
            maps, split_counts = pairs.align(metric) if pairs else (NO_SPLITS, PRCounts())
            counts.append(table.counts_of(metric, maps))
            split.append(split_counts)
        result.metrics[name] = metric_result(
            name, tuple(counts), tuple(split), plan, blanc_key_links_only(key)
        )


def score_corpus(
    pairs: Iterable[tuple[Document, Document]], options: ScoringOptions | ScoringPlan
) -> CorpusResult:
    """Score (key, response) document pairs, given in key-file order, and micro-sum them.
    Options are compiled into their plan once, here (or were already)."""
    return score_corpus_modes(pairs, [options])[0]


def score_corpus_modes(
    pairs: Iterable[tuple[Document, Document]], plans: Sequence[ScoringOptions | ScoringPlan]
) -> list[CorpusResult]:
    """`score_corpus` in several modes over one pass of the pairs (each pair is scored in
    every mode as it comes): the result of each plan is the one `score_corpus` gives for it
    alone."""
    plans = [ScoringPlan.of(plan) for plan in plans]
    documents: list[list[DocumentResult]] = [[] for _ in plans]
    key_links_only = None
    with paused_gc():
        for key, response in pairs:
            shared = SharedWork() if len(plans) > 1 else None
            for plan, scored in zip(plans, documents):
                scored.append(score_document(key, response, plan, shared=shared))
            conll = blanc_key_links_only(key)
            key_links_only = conll if key_links_only is None else key_links_only and conll
        return [
            summarize(scored, plan, key_links_only=bool(key_links_only))
            for plan, scored in zip(plans, documents)
        ]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector meanwhile (nested uses are fine): reading and
    scoring allocate many short-lived containers and no reference cycles, and collections
    that rescan every markable of a large corpus would double the time of a 20,000-mention
    document."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if not gc.get_freeze_count():
                # What was made meanwhile goes to the oldest generation as it is (freeze,
                # then unfreeze: a move of lists, no scan). Left young, it would all be
                # scanned by the first collection after: every result object of the run
                # (0.08 s of 2.3 s on 5,000 documents), to find cycles the run does not
                # make. Not where anything is frozen: a process's own heap (config/heap.py),
                # or Python 3.12's immortal tuples, frozen at start-up; unfreeze would give
                # them to the collector (there the run's objects stay young: time, not numbers).
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _filtered(
    doc: Document, markables: tuple[Markable, ...], plan: ScoringPlan, key: Document
) -> tuple[Markable, ...]:
    """Apply the mention filters (``np_only``, ``remove_nested_mentions``) when asked.

    ``np_only`` decides with the key's parse for both sides, as v2 does.
    """
    if not plan.filters_mentions:
        return markables
    return tuple(filters.apply(doc, markables, plan.options, key=key))


def _first_cluster_mentions(
    layer: ProcessedLayer, grouped: GroupedLayer
) -> dict[tuple[int, int], bool]:
    """A mention in several clusters (one span annotated in two entities) is its markable in
    the first of them, in the order the clusters are scored: its Min and head, and whether
    it is a zero (its head an empty node) with that head's DEPS. v2 collects a side's
    mentions into a set cluster by cluster, and of equal mentions the set keeps the first,
    which the matching then uses (repro ``orderdep-min-residue``: the span's two markables
    have different Mins there; or one is headed by an empty node, the other by a word).
    Without such a mention, nothing changes. Returns whether such a mention is a zero in
    each of its clusters, (cluster, code) → bool: the ``zero`` metric asks each cluster's
    own mention, as v2 does."""
    mcodes = grouped.mcodes
    if len(set(mcodes)) == len(mcodes):
        return {}  # every mention is one markable (most documents)
    several = {code for code, count in Counter(mcodes).items() if count > 1}
    first: dict[int, int] = {}
    for index, cluster in enumerate(layer.partition.clusters):
        for code in cluster:
            if code in several:
                first.setdefault(code, index)
    repeated = set(first)  # (a markable of a cluster not scored, a singleton, counts too)
    if not repeated:
        return {}
    clusters_of: dict[str, int] = {eid: i for i, eid in enumerate(layer.entity_ids)}
    zero_in: dict[tuple[int, int], bool] = {}
    min_spans, heads = dict(layer.min_spans), dict(layer.heads)
    zeros, zero_heads, deps = set(layer.zeros), dict(layer.zero_heads), dict(layer.deps)
    done: set[int] = set()
    for m, code in zip(grouped.markables, mcodes):
        if code not in repeated:
            continue
        where = clusters_of.get(m.entity_id)
        if where is not None:
            zero_in.setdefault((where, code), bool(m.zero or m.head_zero))
        if code in done or m.entity_id != layer.entity_ids[first[code]]:
            continue
        done.add(code)
        _set(min_spans, code, m.min_span)
        _set(heads, code, m.head if not m.head_zero else None)
        if m.zero or m.head_zero:
            zeros.add(code)
            zero_heads[code] = (
                (m.head, m.head_zero) if m.head_zero and m.head is not None else (m.start, m.zero)
            )
            deps[code] = dict(m.attributes).get("deps", "")
        else:
            zeros.discard(code)
            zero_heads.pop(code, None)
            deps.pop(code, None)
    layer.min_spans, layer.heads = min_spans, heads
    layer.zeros, layer.zero_heads, layer.deps = zeros, zero_heads, deps
    return zero_in


def _set(mapping: dict[int, Any], code: int, value: Any) -> None:
    if value is None:
        mapping.pop(code, None)
    else:
        mapping[code] = value


def _alignment(
    plan: ScoringPlan,
    k: ProcessedLayer,
    r: ProcessedLayer,
    key: Document,
    coder: SpanCoder,
    shared: SharedWork,
    warnings: list[str],
) -> Alignment:
    """The mention alignment of one document (`scoring.zero_matching`): zeros by their
    dependencies first (``--zero-match-method dependent``), then equal mentions, then the
    matching option on the mentions left."""
    key_codes = {m for c in k.partition.clusters for m in c}
    resp_codes = {m for c in r.partition.clusters for m in c}
    pairs: list[tuple[int, int]] = []
    if plan.aligns_zeros_by_dependencies and k.zeros and r.zeros:
        pairs = _zero_pairs(k, r, key_codes, resp_codes, coder, shared)
    if plan.matching != "exact":
        taken_k, taken_s = {a for a, _ in pairs}, {b for _, b in pairs}
        free_k, free_s = key_codes - taken_k, resp_codes - taken_s
        more = align_mentions(
            plan.matching,
            free_k - free_s,
            free_s - free_k,
            coder.keys,
            key_min=k.min_spans,
            key_heads=k.heads,
            response_min=r.min_spans,
            response_heads=r.heads,
            warnings=warnings,
            where=f"{key.path}: document {key.name}",
            key_zero_heads=k.zero_heads,
            response_zero_heads=r.zero_heads,
        )
        pairs = [*pairs, *((t, s) for s, t in more.items())]
    if not pairs:
        return Alignment()
    keys = coder.keys

    def fresh(code: int) -> int:
        keys.append(keys[code])  # a new code for the same nodes
        return len(keys) - 1

    dependent = any(a != b for a, b in pairs) and plan.aligns_zeros_by_dependencies
    return zero_matching.alignment(pairs, key_codes, resp_codes, fresh, dependent=dependent)


def _zero_pairs(
    k: ProcessedLayer,
    r: ProcessedLayer,
    key_codes: set[int],
    resp_codes: set[int],
    coder: SpanCoder,
    shared: SharedWork,
) -> list[tuple[int, int]]:
    """Step 1 of `scoring.zero_matching`: the scored zeros of both sides paired by their
    heads' dependencies (worked out once for the modes that share the grouped layers and
    score the same zeros: partial and exact matching, say)."""
    key_zeros = {c: k.deps.get(c, "") for c in key_codes if c in k.zeros}
    resp_zeros = {c: r.deps.get(c, "") for c in resp_codes if c in r.zeros}
    if not key_zeros or not resp_zeros:
        return []
    asked = (id(k.zeros), id(r.zeros), frozenset(key_zeros), frozenset(resp_zeros))
    done = shared.zero_pairs.get(asked)
    if done is None:
        keys = coder.keys
        done = zero_matching.dependency_pairs(
            key_zeros, resp_zeros, order=lambda c: mention_order(keys[c])
        )
        if shared.keep:
            shared.zero_pairs[asked] = done
    return list(done)


def _extra_metric(
    name: str,
    key: Partition,
    response: Partition,
    k: ProcessedLayer,
    r: ProcessedLayer,
    aligned: Alignment,
    coder: SpanCoder,
    zero_in: tuple[dict[tuple[int, int], bool], dict[tuple[int, int], bool]] = ({}, {}),
) -> PRCounts:
    """v2's metrics beyond the six, on the mode-processed clusters.

    ``mention``: mention identification (key mentions with an exact or aligned response
    mention; v2 names it but crashes on it). ``mor`` and ``zero``: `scoring.extra_metrics`.
    ``mor`` pairs mentions by itself, so it gets the response mentions as written, every
    mention of every cluster (a span in two clusters counts twice, as in v2 VE:317-373).
    ``zero`` gets the response as written, v2's key → response entries of unequal pairs,
    and each side's own zeros (v2 asks each mention whether its head is empty).
    """
    if name == "mention":
        key_codes = {m for c in key.clusters for m in c}
        resp_codes = {m for c in response.clusters for m in c}
        if aligned.lookups is not None:  # each side finds what its own lookup finds
            key_found, resp_found = aligned.lookups
            return PRCounts(
                float(len(resp_found)),
                float(len(resp_codes)),
                float(len(key_found)),
                float(len(key_codes)),
            )
        found = float(len(key_codes & resp_codes))
        return PRCounts(found, float(len(resp_codes)), found, float(len(key_codes)))
    keys = coder.keys
    if name == "mor":
        key_mentions = [m for c in key.clusters for m in c]
        resp_mentions = [m for c in r.partition.clusters for m in c]
        nodes = {m: mention_nodes(keys[m]) for m in {*key_mentions, *resp_mentions}}
        return extra_metrics.mor_counts(
            [nodes[m] for m in key_mentions], [nodes[m] for m in resp_mentions]
        )
    if name == "zero":
        key_to_response = aligned.key_to_response
        # each mention's document order once (most are on both sides)
        mentions = {m for c in key.clusters for m in c}
        mentions.update(m for c in r.partition.clusters for m in c)
        orders = {m: mention_order(keys[m]) for m in mentions}
        return extra_metrics.zero_counts(
            key.clusters,
            r.partition.clusters,
            key_to_response,
            k.zeros,
            order=orders.__getitem__,
            response_zeros=r.zeros,
            zero_in=zero_in,
        )
    raise UsageError(f"unknown metric {name!r} (valid extra metrics: mention, mor, zero)")


def _bridging_pairs(
    doc: Document, markables: Sequence[Markable], coder: SpanCoder, warnings: list[str]
) -> BridgingPairs:
    """anaphor code → (anchor code, relation); a later link of the same anaphor wins."""
    by_id = {m.markable_id: m for m in markables}
    pairs: BridgingPairs = {}
    skipped = []
    for link in doc.bridging:
        anaphor, anchor = by_id.get(link.anaphor), by_id.get(link.anchor)
        if anaphor is None or anchor is None:
            skipped.append(f"{link.anaphor}->{link.anchor} (line {link.line})")
            continue
        pairs[coder.code(anaphor)] = (coder.code(anchor), link.relation)
    if skipped:
        warnings.append(
            f"{doc.path}: document {doc.name}: bridging pairs skipped because a "
            f"MarkableID is not in the markable column: {', '.join(skipped[:5])}"
        )
    return pairs


__all__ = ["score_corpus", "score_document", "summarize"]
