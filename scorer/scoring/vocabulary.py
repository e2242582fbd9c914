"""The names of what the scorer measures, in one place: metrics, their order and labels, the
parts of the CoNLL average, the bridging levels, and the shape of each metric's counts.

Everything that names a metric imports it from here: the options parser, the engine, the
report, the serializer that turns a result into score rows, and the platform's pages and
exports. A name is spelled once; an order is decided once.

Metric names are the names of the stored score rows (``conll``, ``muc``, ...,
``non_referring``, ``bridging_entity``). A bridging score per relation is stored as
``<level metric>:<relation>`` (e.g. ``bridging_entity:subset``).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

COREF_METRICS = ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc")
"""The six coreference metrics, in the order UA scorer v1 prints them."""

CONLL_PARTS = ("muc", "bcub", "ceafe")
"""The metrics whose F1 scores the CoNLL score averages (Pradhan et al. 2014)."""

CONLL = "conll"
"""The CoNLL average: F1 = (F_muc + F_bcub + F_ceafe) / 3; its recall and precision are the
means of the parts' recalls and precisions (what the result tables print beside it)."""

EXTRA_METRICS = ("mention", "mor", "zero")
"""UA scorer v2's metrics beyond the six: mention identification, MOR and zero anaphora."""

EMPTY_NODES = "empty-nodes"
"""The ``-m`` word of CRAC 2026's empty-node evaluation, and the platform's mode name for it."""

EMPTY_NODE_MEASURES = (
    "ARC",
    "DEP",
    "WO",
    "DEP_WO",
    "FORM",
    "LEMMA",
    "UPOS",
    "XPOS",
    "FEATS",
    "ALL",
)
"""Its ten measures, named and ordered as the organizers' evaluator prints them
(`scoring.empty_nodes`)."""

ANAPHOR = "anaphor"
"""The anaphor-level score of one mention type (`scoring.analyses`), stored beside the
entity analyses' metrics."""

NON_REFERRING = "non_referring"

BRIDGING_LEVELS = ("anaphora_recognition", "mention", "entity")
"""The three bridging scores the scorers print, in their order."""

BRIDGING_METRICS = {
    "anaphora_recognition": "bridging_ar",
    "mention": "bridging_mention",
    "entity": "bridging_entity",
}
"""Bridging level → the name of its score row."""

METRIC_ORDER = (
    CONLL,
    "muc",
    "bcub",
    "ceafe",
    "ceafm",
    "blanc",
    "lea",
    *EXTRA_METRICS,
    NON_REFERRING,
    "bridging_entity",
    "bridging_mention",
    "bridging_ar",
    *EMPTY_NODE_MEASURES,
    ANAPHOR,
)
"""The order in which tables list metrics (a page puts the task's primary metric first)."""

METRIC_LABELS = {
    CONLL: "CoNLL",
    "muc": "MUC",
    "bcub": "B³",
    "ceafe": "CEAFe",
    "ceafm": "CEAFm",
    "blanc": "BLANC",
    "lea": "LEA",
    "mention": "Mentions",
    "mor": "MOR",
    "zero": "Zeros",
    NON_REFERRING: "Non-referring",
    "bridging_entity": "Bridging (entity)",
    "bridging_mention": "Bridging (mention)",
    "bridging_ar": "Bridging (anaphor recognition)",
    **{measure: f"Empty nodes {measure}" for measure in EMPTY_NODE_MEASURES},
    ANAPHOR: "Anaphors",
}


class CountsKind(str, Enum):
    """What a stored score row's counts are (`scoring.serialize` writes and reads them)."""

    PR = "pr"  # numerators and denominators of recall and precision: one PRCounts
    PR_PAIR = "pr_pair"  # BLANC: coreference and non-coreference links, two PRCounts
    TP = "tp"  # true positives, false positives, false negatives (non-referring, bridging)
    NONE = "none"  # an average of other metrics (CoNLL): no counts of its own


def base_metric(metric: str) -> str:
    """The metric of a row name, without a bridging relation (``bridging_entity:subset``)."""
    return metric.split(":", 1)[0]


def counts_kind(metric: str) -> CountsKind:
    """The kind of counts stored with rows of ``metric``."""
    base = base_metric(metric)
    if base == CONLL:
        return CountsKind.NONE
    if base == "blanc":
        return CountsKind.PR_PAIR
    if base == NON_REFERRING or base in BRIDGING_METRICS.values():
        return CountsKind.TP
    return CountsKind.PR


def metric_label(metric: str) -> str:
    """How a page names a metric: ``B³``, ``Bridging (entity) subset``, ``my metric``."""
    base, _, relation = metric.partition(":")
    label = METRIC_LABELS.get(base, base.replace("_", " "))
    return f"{label} {relation}" if relation else label


def metric_sort_key(metric: str) -> tuple[int, str]:
    """Sort key of `METRIC_ORDER`; unknown metrics after the known ones, by name."""
    base = base_metric(metric)
    index = METRIC_ORDER.index(base) if base in METRIC_ORDER else len(METRIC_ORDER)
    return index, metric


def ordered_metrics(metrics: Iterable[str], primary: str | None = None) -> list[str]:
    """``metrics`` in table order, the primary metric first when it is among them."""
    names = set(metrics)
    rest = sorted(names - {primary}, key=metric_sort_key)
    return ([primary] if primary is not None and primary in names else []) + rest
