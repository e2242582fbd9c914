"""Result values of the engine: counts that add up over documents, and the scores they give."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


def sum_in_order(values: Iterable[float]) -> float:
    """The floats added one by one, left to right, each sum rounded: the one order of every
    float sum in the scorer and its C twins (scoring/native/_tables.c adds the same way).
    Not ``sum()``, whose float sums are compensated since Python 3.12 (so a last bit would
    depend on the Python and differ from C), nor ``math.fsum`` (exact, but then C would need
    the same algorithm); left to right is what Python 3.11's ``sum()`` did, so no number
    moves there."""
    total = 0.0
    for value in values:
        total += value
    return total


def ratio(num: float, den: float) -> float:
    """num/den, or 0.0 when den == 0. Guard the denominator, never the numerator (spec Q22)."""
    return num / den if den else 0.0


def f_score(recall: float, precision: float) -> float:
    """Harmonic mean; 0.0 when both are 0."""
    return 2 * recall * precision / (recall + precision) if recall + precision else 0.0


@dataclass(frozen=True, slots=True)
class PRCounts:
    """Numerators and denominators of one metric on one document (or summed over many)."""

    p_num: float = 0.0
    p_den: float = 0.0
    r_num: float = 0.0
    r_den: float = 0.0

    def __add__(self, other: PRCounts) -> PRCounts:
        return PRCounts(
            self.p_num + other.p_num,
            self.p_den + other.p_den,
            self.r_num + other.r_num,
            self.r_den + other.r_den,
        )

    @property
    def recall(self) -> float:
        return ratio(self.r_num, self.r_den)

    @property
    def precision(self) -> float:
        return ratio(self.p_num, self.p_den)


@dataclass(frozen=True, slots=True)
class PRF:
    recall: float
    precision: float
    f1: float

    def as_dict(self) -> dict[str, float]:
        return {"recall": self.recall, "precision": self.precision, "f1": self.f1}


@dataclass(frozen=True, slots=True)
class TPCounts:
    """True positives, false positives and false negatives (non-referring, bridging)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: TPCounts) -> TPCounts:
        return TPCounts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def prf(self) -> PRF:
        r = ratio(self.tp, self.tp + self.fn)
        p = ratio(self.tp, self.tp + self.fp)
        return PRF(r, p, f_score(r, p))


@dataclass(frozen=True, slots=True)
class MetricResult:
    """One metric's score; ``counts`` has one entry, or two for BLANC (coref, non-coref)."""

    name: str
    prf: PRF
    counts: tuple[PRCounts, ...]
    # only_split_antecedent counters (spec §5), one per entry of ``counts``; ``prf`` is
    # computed from them in that mode
    split_counts: tuple[PRCounts, ...] = ()


@dataclass(slots=True)
class DocumentResult:
    name: str
    metrics: dict[str, MetricResult] = field(default_factory=dict)
    non_referring: TPCounts | None = None
    bridging: dict[str, TPCounts] | None = None  # anaphora_recognition, mention, entity
    bridging_by_relation: dict[str, dict[str, TPCounts]] | None = None  # key relation → levels
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class CorpusResult:
    """Everything the engine computed for one key/response file pair."""

    metrics: dict[str, MetricResult]
    conll: float | None  # fraction in [0, 1], None unless muc, bcub and ceafe ran
    non_referring: PRF | None = None
    bridging: dict[str, PRF] | None = None  # anaphora_recognition, mention, entity
    bridging_by_relation: dict[str, dict[str, PRF]] | None = None
    documents: list[DocumentResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    scored: list[str] = field(default_factory=list)
    """Names of the key documents scored, in key order (kept when ``documents`` is not)."""


def _tp_values(counts: TPCounts | None) -> tuple[Any, ...] | None:
    return None if counts is None else (counts.tp, counts.fp, counts.fn)


def _tp_counts(values: tuple[Any, ...] | None) -> TPCounts | None:
    return None if values is None else TPCounts(*values)


def document_values(doc: DocumentResult) -> tuple[Any, ...]:
    """A document's result as plain tuples, dicts, strings and numbers: what a scoring half
    sends back to its parent (pickling these is a C loop; pickling the frozen dataclasses
    runs Python code per object, and took longer than scoring)."""
    metrics = tuple(
        (
            name,
            (m.prf.recall, m.prf.precision, m.prf.f1),
            tuple((c.p_num, c.p_den, c.r_num, c.r_den) for c in m.counts),
            tuple((c.p_num, c.p_den, c.r_num, c.r_den) for c in m.split_counts),
        )
        for name, m in doc.metrics.items()
    )
    bridging = (
        None
        if doc.bridging is None
        else {level: _tp_values(c) for level, c in doc.bridging.items()}
    )
    by_relation = (
        None
        if doc.bridging_by_relation is None
        else {
            rel: {level: _tp_values(c) for level, c in levels.items()}
            for rel, levels in doc.bridging_by_relation.items()
        }
    )
    return (
        doc.name,
        metrics,
        _tp_values(doc.non_referring),
        bridging,
        by_relation,
        list(doc.warnings),
    )


def document_from_values(values: tuple[Any, ...]) -> DocumentResult:
    """The inverse of `document_values`."""
    name, metrics, non_referring, bridging, by_relation, warnings = values
    return DocumentResult(
        name,
        {
            metric: MetricResult(
                metric,
                PRF(*prf),
                tuple(PRCounts(*c) for c in counts),
                tuple(PRCounts(*c) for c in split),
            )
            for metric, prf, counts, split in metrics
        },
        _tp_counts(non_referring),
        None if bridging is None else {level: TPCounts(*c) for level, c in bridging.items()},
        None
        if by_relation is None
        else {
            rel: {level: TPCounts(*c) for level, c in levels.items()}
            for rel, levels in by_relation.items()
        },
        warnings,
    )
