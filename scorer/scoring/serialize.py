"""A `CorpusResult` as data: the ``--json`` object of the command line, and flat score rows.

`score_rows` is the platform's data format: one `ScoreRow` per metric of the corpus and, with
``per_doc``, per metric of each document, CoNLL included (its recall and precision are the
means of the parts', its F1 the CoNLL score), with the counts the numbers come from. The
counts are written by `encode_counts` and read back by `counts_vector`, and nothing else
reads or writes them, so their stored form is decided here once.

`result_dict` is the ``--json`` object (docs/scorer.md, "JSON output"); the text reports of
`scoring.report` are rendered from it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.options import ScoringOptions, mode_dict
from scoring.results import (
    PRF,
    CorpusResult,
    DocumentResult,
    MetricResult,
    PRCounts,
    TPCounts,
    sum_in_order,
)
from scoring.vocabulary import (
    BRIDGING_LEVELS,
    BRIDGING_METRICS,
    CONLL,
    CONLL_PARTS,
    EMPTY_NODE_MEASURES,
    NON_REFERRING,
    CountsKind,
    counts_kind,
)

CountsValue = dict[str, float] | list[dict[str, float]]
"""Stored counts: ``{p_num, p_den, r_num, r_den}``, a list of two of them (BLANC),
``{tp, fp, fn}`` (non-referring, bridging), or ``{}`` (none: CoNLL)."""

PR_FIELDS = ("p_num", "p_den", "r_num", "r_den")
TP_FIELDS = ("tp", "fp", "fn")


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One number triple of a scoring: a metric on the corpus (``document`` None) or on one
    document, in one mode (the platform's name for a set of options)."""

    mode: str
    metric: str
    document: str | None
    recall: float
    precision: float
    f1: float
    counts: CountsValue


# -- counts -----------------------------------------------------------------------------------
def encode_counts(counts: PRCounts | TPCounts | Sequence[PRCounts] | None) -> CountsValue:
    """The stored form of a row's counts."""
    if counts is None:
        return {}
    if isinstance(counts, TPCounts):
        return {"tp": counts.tp, "fp": counts.fp, "fn": counts.fn}
    if isinstance(counts, PRCounts):
        return {name: getattr(counts, name) for name in PR_FIELDS}
    encoded = [{name: getattr(part, name) for name in PR_FIELDS} for part in counts]
    return encoded[0] if len(encoded) == 1 else encoded


def counts_vector(metric: str, stored: Any) -> list[float] | None:
    """The stored counts of a ``metric`` row as a flat vector (in `PR_FIELDS` or `TP_FIELDS`
    order, BLANC's two parts one after the other), or None when the row has none."""
    kind = counts_kind(metric)
    if kind is CountsKind.NONE or not stored:
        return None
    if kind is CountsKind.TP:
        return [float(stored[name]) for name in TP_FIELDS]
    parts = stored if isinstance(stored, list) else [stored]
    if kind is CountsKind.PR_PAIR and len(parts) != 2:
        return None
    return [float(part[name]) for part in parts for name in PR_FIELDS]


# -- score rows -------------------------------------------------------------------------------
def _row(mode: str, metric: str, document: str | None, prf: PRF, counts: CountsValue) -> ScoreRow:
    return ScoreRow(mode, metric, document, prf.recall, prf.precision, prf.f1, counts)


def _metric_counts(metric: MetricResult, options: ScoringOptions) -> CountsValue:
    """The counts a metric's scores come from: the split counters in
    ``only_split_antecedent`` mode (spec §5), the main counters otherwise."""
    use_split = options.only_split_antecedent and metric.split_counts
    return encode_counts(metric.split_counts if use_split else metric.counts)


def _conll(metrics: Mapping[str, MetricResult], f1: float | None) -> PRF | None:
    """The CoNLL cell: mean recall and precision of the parts, F1 the CoNLL score (the mean of
    the parts' F1 when not given)."""
    parts = [metrics[name].prf for name in CONLL_PARTS if name in metrics]
    if len(parts) < len(CONLL_PARTS):
        return None if f1 is None else PRF(0.0, 0.0, f1)
    if f1 is None:
        f1 = sum_in_order(p.f1 for p in parts) / 3
    return PRF(
        sum_in_order(p.recall for p in parts) / 3, sum_in_order(p.precision for p in parts) / 3, f1
    )


def _selected(
    metrics: Mapping[str, MetricResult], options: ScoringOptions
) -> dict[str, MetricResult]:
    wanted = (
        *options.metrics,
        *options.extra_metrics,
        *(EMPTY_NODE_MEASURES if options.empty_nodes else ()),
    )
    return {name: metrics[name] for name in wanted if name in metrics}


def _document_rows(doc: DocumentResult, options: ScoringOptions, mode: str) -> Iterator[ScoreRow]:
    metrics = _selected(doc.metrics, options)
    for name, metric in metrics.items():
        yield _row(mode, name, doc.name, metric.prf, _metric_counts(metric, options))
    if options.keep_non_referring and doc.non_referring is not None:
        yield _row(
            mode, NON_REFERRING, doc.name, doc.non_referring.prf(), encode_counts(doc.non_referring)
        )
    if options.keep_bridging and doc.bridging is not None:
        for level in BRIDGING_LEVELS:
            if level in doc.bridging:
                counts = doc.bridging[level]
                yield _row(
                    mode, BRIDGING_METRICS[level], doc.name, counts.prf(), encode_counts(counts)
                )
    conll = _conll(metrics, None)
    if conll is not None:
        yield _row(mode, CONLL, doc.name, conll, {})


def score_rows(
    result: CorpusResult, options: ScoringOptions, *, mode: str = "task", per_doc: bool = True
) -> list[ScoreRow]:
    """Every score of ``result`` as rows: the selected metrics on the corpus, ``conll``,
    ``non_referring``, the bridging levels and the bridging levels per relation
    (``bridging_entity:<relation>``); with ``per_doc``, the same per document (relations
    excepted). ``options`` are those the result was scored with: they say what was asked."""
    metrics = _selected(result.metrics, options)
    rows = [
        _row(mode, name, None, metric.prf, _metric_counts(metric, options))
        for name, metric in metrics.items()
    ]
    conll = _conll(metrics, result.conll)
    if conll is not None:
        rows.append(_row(mode, CONLL, None, conll, {}))
    if options.keep_non_referring and result.non_referring is not None:
        rows.append(_row(mode, NON_REFERRING, None, result.non_referring, {}))
    if options.keep_bridging and result.bridging is not None:
        for level in BRIDGING_LEVELS:
            if level in result.bridging:
                rows.append(_row(mode, BRIDGING_METRICS[level], None, result.bridging[level], {}))
        for relation, levels in (result.bridging_by_relation or {}).items():
            for level in BRIDGING_LEVELS:
                if level in levels:
                    rows.append(
                        _row(mode, f"{BRIDGING_METRICS[level]}:{relation}", None, levels[level], {})
                    )
    if per_doc:
        for doc in result.documents:
            rows.extend(_document_rows(doc, options, mode))
    return rows


# -- the --json object ------------------------------------------------------------------------
def result_dict(
    result: CorpusResult,
    options: ScoringOptions,
    *,
    per_doc: bool = False,
    warnings: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The ``--json`` object of a `CorpusResult` (docs/scorer.md, "JSON output")."""
    metrics = _selected(result.metrics, options)
    out: dict[str, Any] = {
        "mode": mode_dict(options),
        "metrics": {name: metric.prf.as_dict() for name, metric in metrics.items()},
        "conll": result.conll,
        "non_referring": (
            result.non_referring.as_dict()
            if options.keep_non_referring and result.non_referring is not None
            else None
        ),
        "bridging": None,
        "documents": list(result.scored),
        "warnings": list(result.warnings if warnings is None else warnings),
    }
    if options.keep_bridging and result.bridging is not None:
        bridging: dict[str, Any] = {
            level: result.bridging[level].as_dict()
            for level in BRIDGING_LEVELS
            if level in result.bridging
        }
        bridging["by_relation"] = {
            relation: {level: prf.as_dict() for level, prf in scores.items()}
            for relation, scores in (result.bridging_by_relation or {}).items()
        }
        out["bridging"] = bridging
    if per_doc:
        out["per_document"] = {doc.name: _document_dict(doc, options) for doc in result.documents}
    return out


def _tp_dict(counts: TPCounts) -> dict[str, Any]:
    return {"tp": counts.tp, "fp": counts.fp, "fn": counts.fn, **counts.prf().as_dict()}


def _document_dict(doc: DocumentResult, options: ScoringOptions) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, metric in _selected(doc.metrics, options).items():
        out[name] = {**metric.prf.as_dict(), "counts": _metric_counts(metric, options)}
    if options.keep_non_referring and doc.non_referring is not None:
        out["non_referring"] = _tp_dict(doc.non_referring)
    if options.keep_bridging and doc.bridging is not None:
        out["bridging"] = {level: _tp_dict(counts) for level, counts in doc.bridging.items()}
    return out


__all__ = ["CountsValue", "ScoreRow", "counts_vector", "encode_counts", "result_dict", "score_rows"]
