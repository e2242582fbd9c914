"""The scoring engine: (key, response) document pairs + options → per-document and corpus scores.

Per document (`score_document`): mode processing of both sides (`scoring.clusters`), the
mention alignment of ``options.matching`` (`scoring.alignment`), one sparse contingency table
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
import importlib
from collections.abc import Iterable, Sequence

from scoring.alignment import align_mentions
from scoring.clusters import MentionKey, Partition, SpanCoder, process_layer
from scoring.errors import UsageError
from scoring.metrics import COREF_METRICS, NO_SPLITS, Contingency
from scoring.metrics.mentions import BRIDGING_LEVELS, BridgingPairs, bridging, non_referring
from scoring.model import Document, Markable
from scoring.options import ScoringOptions
from scoring.results import (
    PRF,
    CorpusResult,
    DocumentResult,
    MetricResult,
    PRCounts,
    TPCounts,
    f_score,
    ratio,
)
from scoring.splits import SetPairs

CONLL_2012 = "conll"  # Document.metadata["format"] of the CoNLL-2012 reader


def score_document(key: Document, response: Document, options: ScoringOptions) -> DocumentResult:
    """Score one response document against its key document.

    Returns the document's counts per metric (and its own scores from them), plus
    non-referring and bridging counts when the options ask for them.
    """
    unknown = [m for m in options.metrics if m not in COREF_METRICS]
    if unknown:
        raise UsageError(f"unknown coreference metric(s): {', '.join(unknown)} "
                         f"(valid: {', '.join(COREF_METRICS)})")
    result = DocumentResult(key.name)
    warnings = result.warnings
    dd = options.discourse_deixis
    coder = SpanCoder()
    key_markables = _filtered(key, key.layer(dd), options, key)
    resp_markables = _filtered(response, response.layer(dd), options, key)
    k = process_layer(key_markables, options, coder, path=key.path, document=key.name,
                      warnings=warnings)
    r = process_layer(resp_markables, options, coder, path=response.path,
                      document=response.name, warnings=warnings)
    key_part, resp_part = k.partition, r.partition
    if options.matching != "exact":
        rename = align_mentions(
            options.matching, (m for c in key_part.clusters for m in c),
            (m for c in resp_part.clusters for m in c), coder.keys,
            key_min=k.min_spans, key_heads=k.heads, response_min=r.min_spans,
            response_heads=r.heads, warnings=warnings, where=f"{key.path}: document {key.name}")
        resp_part = resp_part.renamed(rename)

    if options.metrics:
        table = Contingency(key_part, resp_part)
        pairs = SetPairs(key_part, resp_part) if table.has_sets else None
        for name in options.metrics:
            counts: list[PRCounts] = []
            split: list[PRCounts] = []
            for metric in COREF_METRICS[name]:
                maps, split_counts = pairs.align(metric) if pairs else (NO_SPLITS, PRCounts())
                counts.append(metric(table, maps))
                split.append(split_counts)
            result.metrics[name] = _metric_result(name, tuple(counts), tuple(split), options,
                                                  _key_links_only(key))

    for name in options.extra_metrics:
        counts = _extra_metric(name, key_part, resp_part, r.partition, coder)
        result.metrics[name] = _metric_result(name, (counts,), (), options)

    if options.keep_non_referring:
        result.non_referring = non_referring(k.non_referring, r.non_referring)
    if options.keep_bridging:
        key_pairs = _bridging_pairs(key, key_markables, coder, warnings)
        resp_pairs = _bridging_pairs(response, resp_markables, coder, warnings)
        key_map = {m: i for i, c in enumerate(key_part.clusters) for m in c}
        result.bridging, result.bridging_by_relation = bridging(key_pairs, resp_pairs, key_map)
    return result


def score_corpus(pairs: Iterable[tuple[Document, Document]], options: ScoringOptions
                 ) -> CorpusResult:
    """Score (key, response) document pairs, given in key-file order, and micro-sum them.

    The cyclic garbage collector is paused meanwhile: scoring allocates many short-lived
    containers and no reference cycles, and collections that rescan every markable of a
    large corpus would double the time of a 20,000-mention document.
    """
    documents = []
    key_links_only = None
    collecting = gc.isenabled()
    gc.disable()
    try:
        for key, response in pairs:
            documents.append(score_document(key, response, options))
            conll = _key_links_only(key)
            key_links_only = conll if key_links_only is None else key_links_only and conll
    finally:
        if collecting:
            gc.enable()
    return summarize(documents, options, key_links_only=bool(key_links_only))


def _key_links_only(key: Document) -> bool:
    """BLANC's CoNLL-2012 sub-metric rule applies to CoNLL-2012 files."""
    return key.metadata.get("format") == CONLL_2012


def summarize(documents: Sequence[DocumentResult], options: ScoringOptions, *,
              key_links_only: bool = False) -> CorpusResult:
    """Corpus scores from per-document results (counts summed in document order)."""
    metrics: dict[str, MetricResult] = {}
    for name in (*options.metrics, *options.extra_metrics):
        n = len(COREF_METRICS.get(name, (None,)))
        counts = [PRCounts()] * n
        split = [PRCounts()] * n if name in COREF_METRICS else []
        for doc in documents:
            m = doc.metrics[name]
            counts = [a + b for a, b in zip(counts, m.counts)]
            split = [a + b for a, b in zip(split, m.split_counts)]
        metrics[name] = _metric_result(name, tuple(counts), tuple(split), options,
                                       key_links_only)
    conll = None
    if options.conll:
        conll = (metrics["muc"].prf.f1 + metrics["bcub"].prf.f1 + metrics["ceafe"].prf.f1) / 3
    result = CorpusResult(metrics, conll, documents=list(documents))
    for doc in documents:
        result.warnings.extend(doc.warnings)
    if options.keep_non_referring:
        total = TPCounts()
        for doc in documents:
            total = total + (doc.non_referring or TPCounts())
        result.non_referring = total.prf()
    if options.keep_bridging:
        levels = {level: TPCounts() for level in BRIDGING_LEVELS}
        by_rel: dict[str, dict[str, TPCounts]] = {}
        for doc in documents:
            for level, c in (doc.bridging or {}).items():
                levels[level] = levels[level] + c
            for rel, rel_levels in (doc.bridging_by_relation or {}).items():
                acc = by_rel.setdefault(rel, {level: TPCounts() for level in BRIDGING_LEVELS})
                for level, c in rel_levels.items():
                    acc[level] = acc[level] + c
        result.bridging = {level: c.prf() for level, c in levels.items()}
        result.bridging_by_relation = {
            rel: {level: c.prf() for level, c in rel_levels.items()}
            for rel, rel_levels in sorted(by_rel.items())}
    return result


def _prf(counts: PRCounts) -> PRF:
    r = ratio(counts.r_num, counts.r_den)
    p = ratio(counts.p_num, counts.p_den)
    return PRF(r, p, f_score(r, p))


def _metric_result(name: str, counts: tuple[PRCounts, ...], split: tuple[PRCounts, ...],
                   options: ScoringOptions, key_links_only: bool = False) -> MetricResult:
    """Scores of one metric from its (summed) counts.

    A metric with sub-metrics (BLANC) averages R, P and F over the sub-metrics whose main
    counts have any link (pd or rd > 0, Q20; the test stays on the main counts in
    ``only_split_antecedent`` mode, Q18). Nothing to average gives 0. On CoNLL-2012 files
    (``key_links_only``) a sub-metric counts only when the *key* has links of its kind, as
    the CoNLL-2012 reference scorer does (its test cases TC-M-3/M-6/N-3/N-6; the UA scorers
    average in a 0 there, conformance README).
    """
    scored = split if options.only_split_antecedent and split else counts
    if len(counts) == 1:
        return MetricResult(name, _prf(scored[0]), counts, split)
    if key_links_only:
        parts = [_prf(s) for c, s in zip(counts, scored) if c.r_den]
    else:
        parts = [_prf(s) for c, s in zip(counts, scored) if c.p_den or c.r_den]
    if not parts:
        return MetricResult(name, PRF(0.0, 0.0, 0.0), counts, split)
    n = len(parts)
    prf = PRF(sum(p.recall for p in parts) / n, sum(p.precision for p in parts) / n,
              sum(p.f1 for p in parts) / n)
    return MetricResult(name, prf, counts, split)


def _filtered(doc: Document, markables: tuple[Markable, ...], options: ScoringOptions,
              key: Document) -> tuple[Markable, ...]:
    """Apply the mention filters (``np_only``, ``remove_nested_mentions``) when asked.

    ``np_only`` decides with the key's parse for both sides, as v2 does.
    """
    if not (options.np_only or options.remove_nested_mentions):
        return markables
    filters = importlib.import_module("scoring.filters")
    return tuple(filters.apply(doc, markables, options, key=key))


def _token_keys(mention: MentionKey) -> list[tuple[int, int]]:
    """Ordered token keys of a mention: word t is (t, 0); the k-th zero before word p is
    (p - 1, k), so it sorts between the words around it."""
    parts, zero = mention
    if zero:
        return [(parts[0][0] - 1, zero)]
    return [(t, 0) for a, b in parts for t in range(a, b + 1)]


def _extra_metric(name: str, key: Partition, response: Partition, unaligned: Partition,
                  coder: SpanCoder) -> PRCounts:
    """v2's metrics beyond the six, on the mode-processed clusters.

    ``mention``: mention identification (key mentions with an exact or aligned response
    mention; v2 names it but crashes on it). ``mor`` and ``zero``: `scoring.extra_metrics`;
    ``mor`` pairs mentions by itself, so it gets the response mentions as written
    (``unaligned``), ``zero`` the aligned ones.
    """
    key_codes = {m for c in key.clusters for m in c}
    resp_codes = {m for c in response.clusters for m in c}
    if name == "mention":
        found = float(len(key_codes & resp_codes))
        return PRCounts(found, float(len(resp_codes)), found, float(len(key_codes)))
    extra = importlib.import_module("scoring.extra_metrics")
    keys = coder.keys
    if name == "mor":
        written = {m for c in unaligned.clusters for m in c}
        return extra.mor_counts([_token_keys(keys[m]) for m in sorted(key_codes)],
                                [_token_keys(keys[m]) for m in sorted(written)])
    if name == "zero":
        zeros = {m for m in key_codes | resp_codes if keys[m][1]}
        return extra.zero_counts(key.clusters, response.clusters, {}, zeros,
                                 order=lambda m: _token_keys(keys[m])[0])
    raise UsageError(f"unknown metric {name!r} (valid extra metrics: mention, mor, zero)")


def _bridging_pairs(doc: Document, markables: Sequence[Markable], coder: SpanCoder,
                    warnings: list[str]) -> BridgingPairs:
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
        warnings.append(f"{doc.path}: document {doc.name}: bridging pairs skipped because a "
                        f"MarkableID is not in the markable column: {', '.join(skipped[:5])}")
    return pairs


__all__ = ["score_corpus", "score_document", "summarize"]
