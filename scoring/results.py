"""Result values of the engine: counts that add up over documents, and the scores they give."""

from __future__ import annotations

from dataclasses import dataclass, field


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
        return PRCounts(self.p_num + other.p_num, self.p_den + other.p_den,
                        self.r_num + other.r_num, self.r_den + other.r_den)

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
