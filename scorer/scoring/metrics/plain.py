"""The coreference metrics' counts of one key × response table, in C where it is built.

``scoring.native._tables`` (built by `make venv`) does what building a `Contingency` and
calling muc, b_cubed, lea, both halves of BLANC, ceafm and ceafe on it do in Python: the
same doubles, operation for operation.

- `TableCounts`: a table without accommodated sets (every document without split
  antecedents, and every member table of the split alignment, `scoring.splits`) gets every
  metric's counts in one call (``plain_counts``).
- `SetTable`: a table with sets gets one metric's counts per call (``set_counts``), given
  that metric's alignment of the sets (`SplitMaps`).

CEAF's components of more than one entity on a side are solved in C as well, in the batches
of `scoring.metrics.coref.assigned_total`, by the compiled twin of scipy's solver
(``scoring/native/lsap.h``, the one `scoring.assignment` calls). Where the module is not
built, or a table is not as expected, the metric functions run on a `Contingency`: the same
numbers (tests/scoring/test_plain_counts.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scoring.clusters import Partition
from scoring.metrics.contingency import Contingency, _identical_sets
from scoring.metrics.coref import (
    NO_SPLITS,
    SplitMaps,
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
    from scoring.native._tables import set_counts as _native_set_counts
except ImportError:  # not built: the metric functions count
    _native_plain_counts = _native_set_counts = None
_plain_counts = _native_plain_counts
_set_counts = _native_set_counts

Metric = Callable[..., PRCounts]
Lookups = tuple[dict[int, int], dict[int, int]] | None
"""`scoring.zero_matching.Alignment.lookups`."""

_METRICS = (muc, b_cubed, lea, blanc_coref, blanc_noncoref, ceafm, ceafe)
"""The order of ``plain_counts``'s counts."""

_WHICH = {muc: 0, b_cubed: 1, lea: 2, blanc_coref: 3, blanc_noncoref: 4, ceafm: 5, ceafe: 6}
"""``set_counts``'s number of each metric."""


class TableCounts:
    """``counts[metric]``: the counts of ``metric(Contingency(key, response), NO_SPLITS,
    inner)`` for each metric function of `scoring.metrics.COREF_METRICS`, without sets."""

    __slots__ = ("key", "response", "inner", "counts", "table", "lookups")

    def __init__(
        self,
        key: Partition,
        response: Partition,
        inner: bool = False,
        *,
        lookups: Lookups = None,
    ) -> None:
        self.key = key
        self.response = response
        self.inner = inner
        self.lookups = lookups  # where set, the metric functions count (`Contingency`)
        self.table: Contingency | None = None
        self.counts: dict[Metric, PRCounts] = {}
        sets = key.has_sets or response.has_sets
        if _plain_counts is not None and lookups is None and not sets:
            found = _plain_counts(key.clusters, response.clusters, inner)
            if found is not None:
                self.counts = _counts(found)

    def counts_of(self, metric: Metric, maps: SplitMaps = NO_SPLITS) -> PRCounts:
        """`SetTable.counts_of` for a table without sets (``maps`` has nothing to align)."""
        return self[metric]

    def __getitem__(self, metric: Metric) -> PRCounts:
        counts = self.counts.get(metric)
        if counts is None:
            if self.table is None:
                self.table = Contingency(self.key, self.response, self.lookups)
            counts = self.counts[metric] = metric(self.table, NO_SPLITS, self.inner)
        return counts


class SetTable:
    """``counts_of(metric, maps)``: ``metric(Contingency(key, response), maps)`` for a table
    with accommodated sets, ``maps`` being the metric's alignment of the sets."""

    __slots__ = ("key", "response", "ident_r", "ident_p", "table")

    def __init__(self, key: Partition, response: Partition, lookups: Lookups = None) -> None:
        self.key = key
        self.response = response
        self.table: Contingency | None = None
        if _set_counts is None or lookups is not None:
            self.table = Contingency(key, response, lookups)
        else:
            self.ident_r = _identical_sets(key, response)
            self.ident_p = _identical_sets(response, key)

    def counts_of(self, metric: Metric, maps: SplitMaps) -> PRCounts:
        if self.table is None:
            which = _WHICH.get(metric)
            key, response = self.key, self.response
            found = (
                None
                if which is None
                else _set_counts(
                    which,
                    key.clusters,
                    response.clusters,
                    key.sets,
                    response.sets,
                    self.ident_r,
                    self.ident_p,
                    maps.recall,
                    maps.precision,
                    maps.f,
                )
            )
            if found is not None:
                return PRCounts(*found)
            self.table = Contingency(key, response)
        return metric(self.table, maps)


def _counts(found: tuple[Any, ...]) -> dict[Metric, PRCounts]:
    return {metric: PRCounts(*counts) for metric, counts in zip(_METRICS, found, strict=True)}
