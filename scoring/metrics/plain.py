"""Every coreference metric's counts of one key × response table, computed once.

Most tables have no accommodated set: every document without split antecedents, and every
member table of the split alignment (`scoring.splits`). For those, the compiled
``scoring.native._tables.plain_counts`` (built by `make venv`) does in one pass what building
a `Contingency` and calling muc, b_cubed, lea, both halves of BLANC and CEAF's one-to-one
components on it do in Python: the same doubles, operation for operation. CEAF's components of
more than one entity on a side come back as they are and are solved here, by the same
`assigned_total` the Python metrics use, added after the one-to-one sum as they add it.

Where the module is not built, or a table is not plain, each metric function runs on a
`Contingency` on first use: the same numbers (tests/scoring/test_plain_counts.py).
"""

from __future__ import annotations

from collections.abc import Callable

from scoring.clusters import Partition
from scoring.metrics.contingency import Contingency
from scoring.metrics.coref import (
    NO_SPLITS,
    assigned_total,
    b_cubed,
    blanc_coref,
    blanc_noncoref,
    ceafe,
    ceafm,
    lea,
    muc,
)
from scoring.results import PRCounts

try:
    from scoring.native._tables import plain_counts as _native_plain_counts
except ImportError:  # not built: the metric functions count
    _native_plain_counts = None
_plain_counts = _native_plain_counts

Metric = Callable[..., PRCounts]


class TableCounts:
    """``counts[metric]``: the counts of ``metric(Contingency(key, response), NO_SPLITS,
    inner)`` for each metric function of `scoring.metrics.COREF_METRICS`, without sets."""

    __slots__ = ("key", "response", "inner", "counts", "table")

    def __init__(self, key: Partition, response: Partition, inner: bool = False) -> None:
        self.key = key
        self.response = response
        self.inner = inner
        self.table: Contingency | None = None
        self.counts: dict[Metric, PRCounts] = {}
        if _plain_counts is not None and not (key.has_sets or response.has_sets):
            found = _plain_counts(key.clusters, response.clusters, inner)
            if found is not None:
                self.counts = _counts(found, key, response)

    def __getitem__(self, metric: Metric) -> PRCounts:
        counts = self.counts.get(metric)
        if counts is None:
            if self.table is None:
                self.table = Contingency(self.key, self.response)
            counts = self.counts[metric] = metric(self.table, NO_SPLITS, self.inner)
        return counts


def _counts(found: tuple, key: Partition, response: Partition) -> dict[Metric, PRCounts]:
    (muc_c, bcub_c, lea_c, coref_c, noncoref_c, singles_m, singles_e, many, overlap,
     key_mentions, response_mentions, key_entities, response_entities) = found
    ks, ss = key.sizes, response.sizes

    def phi_m(i: int, j: int) -> float:
        return float(overlap[i].get(j, 0))

    def phi_e(i: int, j: int) -> float:
        return 2 * overlap[i].get(j, 0) / (ks[i] + ss[j])

    similarity_m = singles_m + assigned_total(many, overlap, {}, phi_m)
    similarity_e = singles_e + assigned_total(many, overlap, {}, phi_e)
    return {
        muc: PRCounts(*muc_c),
        b_cubed: PRCounts(*bcub_c),
        lea: PRCounts(*lea_c),
        blanc_coref: PRCounts(*coref_c),
        blanc_noncoref: PRCounts(*noncoref_c),
        ceafm: PRCounts(similarity_m, float(response_mentions), similarity_m,
                        float(key_mentions)),
        ceafe: PRCounts(similarity_e, float(response_entities), similarity_e,
                        float(key_entities)),
    }
