"""Scores from counts: one metric's scores from its (summed) counts (`metric_result`: BLANC
averages its sub-metrics that have links, Q20), and a corpus's scores from its documents'
results, counts micro-summed in document order (`summarize`, spec §3)."""

from __future__ import annotations

from collections.abc import Sequence

from scoring.metrics import COREF_METRICS
from scoring.model import Document
from scoring.options import ScoringOptions
from scoring.plan import ScoringPlan
from scoring.results import (
    PRF,
    CorpusResult,
    DocumentResult,
    MetricResult,
    PRCounts,
    TPCounts,
    f_score,
    ratio,
    sum_in_order,
)
from scoring.vocabulary import BRIDGING_LEVELS

CONLL_2012 = "conll"  # Document.metadata["format"] of the CoNLL-2012 reader


def blanc_key_links_only(key: Document) -> bool:
    """BLANC's CoNLL-2012 sub-metric rule applies to CoNLL-2012 files."""
    return key.metadata.get("format") == CONLL_2012


def summarize(
    documents: Sequence[DocumentResult],
    plan: ScoringPlan | ScoringOptions,
    *,
    key_links_only: bool = False,
) -> CorpusResult:
    """Corpus scores from per-document results (counts summed in document order)."""
    plan = ScoringPlan.of(plan)
    metrics: dict[str, MetricResult] = {}
    for name in (*plan.metrics, *plan.extra_metrics):
        n = len(COREF_METRICS.get(name, (None,)))
        results = [doc.metrics[name] for doc in documents]
        counts = tuple(_sum_counts([m.counts[i] for m in results]) for i in range(n))
        split = (
            tuple(_sum_counts([m.split_counts[i] for m in results]) for i in range(n))
            if name in COREF_METRICS
            else ()
        )
        metrics[name] = metric_result(name, counts, split, plan, key_links_only)
    conll = None
    if plan.conll:
        conll = (metrics["muc"].prf.f1 + metrics["bcub"].prf.f1 + metrics["ceafe"].prf.f1) / 3
    result = CorpusResult(metrics, conll, documents=list(documents))
    for doc in documents:
        result.warnings.extend(doc.warnings)
    if plan.non_referring:
        total = TPCounts()
        for doc in documents:
            total = total + (doc.non_referring or TPCounts())
        result.non_referring = total.prf()
    if plan.bridging:
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
            for rel, rel_levels in sorted(by_rel.items())
        }
    return result


def _sum_counts(counts: Sequence[PRCounts]) -> PRCounts:
    """The sum of per-document counts, added in document order (as ``+`` would add them,
    without building a PRCounts per step)."""
    p_num = p_den = r_num = r_den = 0.0
    for c in counts:
        p_num += c.p_num
        p_den += c.p_den
        r_num += c.r_num
        r_den += c.r_den
    return PRCounts(p_num, p_den, r_num, r_den)


def _prf(counts: PRCounts) -> PRF:
    r = ratio(counts.r_num, counts.r_den)
    p = ratio(counts.p_num, counts.p_den)
    return PRF(r, p, f_score(r, p))


def metric_result(
    name: str,
    counts: tuple[PRCounts, ...],
    split: tuple[PRCounts, ...],
    plan: ScoringPlan,
    key_links_only: bool = False,
) -> MetricResult:
    """Scores of one metric from its (summed) counts.

    A metric with sub-metrics (BLANC) averages R, P and F over the sub-metrics whose main
    counts have any link (pd or rd > 0, Q20; the test stays on the main counts in
    ``only_split_antecedent`` mode, Q18). Nothing to average gives 0. On CoNLL-2012 files
    (``key_links_only``) a sub-metric counts only when the *key* has links of its kind, as
    the CoNLL-2012 reference scorer does (its test cases TC-M-3/M-6/N-3/N-6; the UA scorers
    average in a 0 there, conformance README).
    """
    scored = split if plan.scores_split_counts and split else counts
    if len(counts) == 1:
        return MetricResult(name, _prf(scored[0]), counts, split)
    if key_links_only:
        parts = [_prf(s) for c, s in zip(counts, scored) if c.r_den]
    else:
        parts = [_prf(s) for c, s in zip(counts, scored) if c.p_den or c.r_den]
    if not parts:
        return MetricResult(name, PRF(0.0, 0.0, 0.0), counts, split)
    n = len(parts)
    prf = PRF(
        sum_in_order(p.recall for p in parts) / n,
        sum_in_order(p.precision for p in parts) / n,
        sum_in_order(p.f1 for p in parts) / n,
    )
    return MetricResult(name, prf, counts, split)
