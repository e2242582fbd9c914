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

The member tables are counted once per document (`scoring.metrics.plain.TableCounts`, every
metric at once where the compiled module is built) and shared by all metrics.
"""

from __future__ import annotations

from collections.abc import Callable

from scoring.assignment import linear_sum_assignment
from scoring.clusters import Partition
from scoring.metrics.coref import NO_SPLITS, SplitMaps
from scoring.metrics.plain import TableCounts
from scoring.results import PRCounts, f_score, sum_in_order

Metric = Callable[..., PRCounts]

_EMPTY = Partition([], [])


def _members(partition: Partition) -> list[tuple[int, Partition]]:
    return [
        (i, Partition([list(m) for m in s.members], [None] * len(s.members)))
        for i, s in enumerate(partition.sets)
        if s is not None
    ]


class SetPairs:
    """The accommodated sets of one document and the contingency of every key × response pair.

    Only pairs of sets that share a member mention get a table: every metric's numerators are
    0 for the others, and each side's denominators do not depend on the partner, so they come
    from one table per set against an empty partner.
    """

    __slots__ = ("key_ids", "sys_ids", "tables", "key_alone", "sys_alone")

    def __init__(self, key: Partition, response: Partition) -> None:
        key_sets = _members(key)
        sys_sets = _members(response)
        self.key_ids: list[int | None] = [i for i, _ in key_sets]
        self.sys_ids: list[int | None] = [j for j, _ in sys_sets]
        self.tables: dict[tuple[int, int], TableCounts] = {}
        if not key_sets and not sys_sets:
            self.key_alone: list[TableCounts] = []
            self.sys_alone: list[TableCounts] = []
            return
        key_parts = [p for _, p in key_sets]
        sys_parts = [p for _, p in sys_sets]
        self.key_alone = [TableCounts(k, _EMPTY, inner=True) for k in key_parts]
        self.sys_alone = [TableCounts(_EMPTY, s, inner=True) for s in sys_parts]
        holders: dict[int, set[int]] = {}
        for b, part in enumerate(sys_parts):
            for cluster in part.clusters:
                for m in cluster:
                    holders.setdefault(m, set()).add(b)
        for a, part in enumerate(key_parts):
            partners: set[int] = set()
            for cluster in part.clusters:
                for m in cluster:
                    partners.update(holders.get(m, ()))
            for b in sorted(partners):
                self.tables[(a, b)] = TableCounts(part, sys_parts[b], inner=True)
        if not key_sets:
            self.key_ids = [None]
        if not sys_sets:
            self.sys_ids = [None]

    def __bool__(self) -> bool:
        return bool(self.key_alone or self.sys_alone)

    def align(self, metric: Metric) -> tuple[SplitMaps, PRCounts]:
        """The alignment maps and the only-split counts of ``metric`` on this document."""
        if not self:
            return NO_SPLITS, PRCounts()
        n_k, n_s = len(self.key_ids), len(self.sys_ids)
        scores: dict[tuple[int, int], tuple[PRCounts, float, float, float]] = {}
        for (a, b), table in self.tables.items():
            c = table[metric]
            p = c.p_num / c.p_den if c.p_num and c.p_den else 0.0
            r = c.r_num / c.r_den if c.r_num and c.r_den else 0.0
            scores[(a, b)] = (c, p, r, f_score(r, p))
        if n_k == 1 and n_s == 1:
            assigned = [(0, 0)]  # nothing to choose
        else:
            fsc = [0.0] * (n_k * n_s)
            for (a, b), (_, _, _, f) in scores.items():
                fsc[a * n_s + b] = f
            assigned = list(zip(*linear_sum_assignment(fsc, n_k, n_s, maximize=True)))
        recall: dict[int, tuple[int, float]] = {}
        precision: dict[int, tuple[int, float]] = {}
        fmap: dict[int, tuple[int, float]] = {}
        pn = rn = 0.0
        for a, b in assigned:
            hit = scores.get((a, b))
            if hit is None:
                continue
            c, p, r, f = hit
            pn += c.p_num
            rn += c.r_num
            i, j = self.key_ids[a], self.sys_ids[b]
            if i is None or j is None:  # the placeholder of an empty side has no table
                continue
            if r > 0:
                recall[i] = (j, r)
            if p > 0:
                precision[j] = (i, p)
            if f > 0:
                fmap[i] = (j, f)
        pd = sum_in_order(t[metric].p_den for t in self.sys_alone)
        rd = sum_in_order(t[metric].r_den for t in self.key_alone)
        return SplitMaps(recall, precision, fmap), PRCounts(pn, float(pd), rn, float(rd))
