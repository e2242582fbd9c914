"""Alignment of accommodated sets (split antecedents), per metric (Paun et al.; spec §5).

For every key set A_i and response set B_j, the metric itself is run on their member
clusters (each member is the mention tuple of one atomic entity), giving raw counts
(pn, pd, rn, rd) and p, r, F. Kuhn–Munkres (`scipy.optimize.linear_sum_assignment`) then picks
the one-to-one alignment with the largest total F. The aligned pairs feed the outer metric
(`SplitMaps`), and their raw counts feed the ``only_split_antecedent`` counters:

    split_pn = Σ_aligned pn_ij,  split_rn = Σ_aligned rn_ij,
    split_pd = Σ_j pd(B_j),      split_rd = Σ_i rd(A_i)

When only one side has sets, the other side gets one empty dummy set: every score with it is 0
but the denominators of the real sets still count (spec §5 step 1).

The member contingency tables are built once per document and shared by all metrics.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.optimize import linear_sum_assignment

from scoring.clusters import Partition
from scoring.metrics.contingency import Contingency
from scoring.metrics.coref import NO_SPLITS, SplitMaps
from scoring.results import PRCounts, f_score

Metric = Callable[..., PRCounts]

_EMPTY = Partition([], [])


def _members(partition: Partition) -> list[tuple[int, Partition]]:
    return [(i, Partition([list(m) for m in s.members], [None] * len(s.members)))
            for i, s in enumerate(partition.sets) if s is not None]


class SetPairs:
    """The accommodated sets of one document and the contingency of every key × response pair."""

    __slots__ = ("key_ids", "sys_ids", "tables")

    def __init__(self, key: Partition, response: Partition) -> None:
        key_sets = _members(key)
        sys_sets = _members(response)
        self.key_ids: list[int | None] = [i for i, _ in key_sets]
        self.sys_ids: list[int | None] = [j for j, _ in sys_sets]
        if not key_sets and not sys_sets:
            self.tables: list[list[Contingency]] = []
            return
        key_parts = [p for _, p in key_sets] or [_EMPTY]
        sys_parts = [p for _, p in sys_sets] or [_EMPTY]
        if not key_sets:
            self.key_ids = [None]
        if not sys_sets:
            self.sys_ids = [None]
        self.tables = [[Contingency(k, s) for s in sys_parts] for k in key_parts]

    def __bool__(self) -> bool:
        return bool(self.tables)

    def align(self, metric: Metric) -> tuple[SplitMaps, PRCounts]:
        """The alignment maps and the only-split counts of ``metric`` on this document."""
        if not self.tables:
            return NO_SPLITS, PRCounts()
        n_k, n_s = len(self.tables), len(self.tables[0])
        raw = [[metric(t, NO_SPLITS, True) for t in row] for row in self.tables]
        rec = np.zeros((n_k, n_s))
        pre = np.zeros((n_k, n_s))
        fsc = np.zeros((n_k, n_s))
        for a in range(n_k):
            for b in range(n_s):
                c = raw[a][b]
                pre[a, b] = c.p_num / c.p_den if c.p_num and c.p_den else 0.0
                rec[a, b] = c.r_num / c.r_den if c.r_num and c.r_den else 0.0
                fsc[a, b] = f_score(rec[a, b], pre[a, b])
        rows, cols = linear_sum_assignment(-fsc)
        recall: dict[int, tuple[int, float]] = {}
        precision: dict[int, tuple[int, float]] = {}
        fmap: dict[int, tuple[int, float]] = {}
        pn = rn = 0.0
        for a, b in zip(rows.tolist(), cols.tolist()):
            pn += raw[a][b].p_num
            rn += raw[a][b].r_num
            i, j = self.key_ids[a], self.sys_ids[b]
            if i is None or j is None:
                continue
            if rec[a, b] > 0:
                recall[i] = (j, float(rec[a, b]))
            if pre[a, b] > 0:
                precision[j] = (i, float(pre[a, b]))
            if fsc[a, b] > 0:
                fmap[i] = (j, float(fsc[a, b]))
        pd = sum(raw[0][b].p_den for b in range(n_s)) if self.sys_ids[0] is not None else 0.0
        rd = sum(raw[a][0].r_den for a in range(n_k)) if self.key_ids[0] is not None else 0.0
        return SplitMaps(recall, precision, fmap), PRCounts(pn, pd, rn, rd)
