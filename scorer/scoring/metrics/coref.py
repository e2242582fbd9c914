"""The coreference metrics: MUC, B³, CEAFm, CEAFe, LEA and the two halves of BLANC.

Every metric is ``metric(table, splits, inner=False) -> PRCounts`` over a sparse
`Contingency` (key × response entities), in closed form: no loop over mention pairs. With
accommodated sets (split antecedents, spec §5), ``splits`` carries the per-metric alignment of
key to response sets (`scoring.splits.SplitMaps`); the set of a cluster then earns partial
credit as spec §4 says. ``inner=True`` is the call on the member clusters of two sets, where
MUC counts singletons (spec §5 step 2).

Cluster sizes include the accommodated set (Q23). Scores are computed by the caller from the
micro-summed counts (`scoring.results.PRCounts`), guarding denominators (Q22).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from scoring.assignment import assigned_sum
from scoring.metrics.contingency import Contingency
from scoring.results import PRCounts, sum_in_order

Alignment = dict[int, tuple[int, float]]
Rows = list[dict[int, int]]
Sets = Sequence[object | None] | None  # the accommodated sets of a side's clusters, if any
Components = list[tuple[list[int], list[int]]]


@dataclass(frozen=True, slots=True)
class SplitMaps:
    """Aligned accommodated sets, by cluster index, with the score of each aligned pair.

    ``recall``: key cluster → (response cluster of the aligned set, r);
    ``precision``: response cluster → (key cluster, p); ``f``: key cluster → (response
    cluster, F). Only pairs with a positive score are present (spec §5 step 4).
    """

    recall: Alignment
    precision: Alignment
    f: Alignment


NO_SPLITS = SplitMaps({}, {}, {})


def _muc_side(
    rows: Rows,
    unfound: list[int],
    sizes: list[int],
    other_sizes: list[int],
    sets: Sets,
    aligned: Alignment,
    inner: bool,
) -> tuple[float, float]:
    num = den = 0.0
    for i, n in enumerate(sizes):
        row = rows[i]
        if n == 1 and inner:
            den += 1
            if row:
                (j,) = row
                if other_sizes[j] == 1:
                    num += 1
            continue
        if n <= 1:
            continue
        den += n - 1
        linked = len(row)
        tp: float = n - unfound[i] - linked
        if sets is not None and sets[i] is not None:
            hit = aligned.get(i)
            if hit is None or hit[0] not in row:
                tp -= 1
            else:
                tp -= 1 - hit[1]
        num += tp
    return num, den


def muc(table: Contingency, splits: SplitMaps = NO_SPLITS, inner: bool = False) -> PRCounts:
    """MUC link score (Vilain et al. 1995), with split antecedents (Paun et al. 2022).

    For a cluster c of one side, with p(c) the partitions the other side cuts it into
    (unmatched mentions each a partition of their own)::

        num += |c| - p(c),  den += |c| - 1         (clusters of one mention add nothing)

    An accommodated set A of c aligned to A' with score s counts as one mention that earns
    ``s`` instead of 1 when A' lies in a partition already counted, and 0 otherwise
    (spec §4.1). In the inner call on member clusters a one-mention cluster counts
    den += 1, num += 1 iff it maps to a one-mention cluster.

    >>> from scoring.clusters import Partition
    >>> key = Partition([[0, 1, 2], [3, 4, 5, 6]], [None, None])
    >>> resp = Partition([[0, 1], [2, 3], [5, 6, 7, 8]], [None, None, None])
    >>> muc(Contingency(key, resp))
    PRCounts(p_num=2.0, p_den=5.0, r_num=2.0, r_den=5.0)
    """
    rn, rd = _muc_side(
        table.rrow,
        table.r_unfound,
        table.key_sizes,
        table.sys_sizes,
        table.key.sets if table.has_sets else None,
        splits.recall,
        inner,
    )
    pn, pd = _muc_side(
        table.prow,
        table.p_unfound,
        table.sys_sizes,
        table.key_sizes,
        table.response.sets if table.has_sets else None,
        splits.precision,
        inner,
    )
    return PRCounts(pn, pd, rn, rd)


def _bcub_side(rows: Rows, sizes: list[int], sets: Sets, aligned: Alignment) -> tuple[float, float]:
    num = 0.0
    den = 0
    for i, n in enumerate(sizes):
        row: Mapping[int, float] = rows[i]
        if sets is not None and sets[i] is not None and i in aligned:
            j, s = aligned[i]
            row = {**row, j: row.get(j, 0) + s}
        num += sum_in_order(v * v for v in row.values()) / n
        den += n
    return num, float(den)


def b_cubed(table: Contingency, splits: SplitMaps = NO_SPLITS, inner: bool = False) -> PRCounts:
    """B³ (Bagga & Baldwin 1998), mention-weighted.

    ``R = Σ_i Σ_j C[i, j]² / |K_i|  /  Σ_i |K_i|``; P the same on C transposed. An aligned
    accommodated set adds its score to the count of the response cluster of its partner
    (spec §4.2).

    >>> from scoring.clusters import Partition
    >>> key = Partition([[0, 1, 2], [3, 4, 5, 6]], [None, None])
    >>> resp = Partition([[0, 1], [2, 3], [5, 6, 7, 8]], [None, None, None])
    >>> c = b_cubed(Contingency(key, resp))
    >>> round(c.recall, 6), c.precision
    (0.416667, 0.5)
    """
    sets = table.has_sets
    rn, rd = _bcub_side(
        table.rrow, table.key_sizes, table.key.sets if sets else None, splits.recall
    )
    pn, pd = _bcub_side(
        table.prow, table.sys_sizes, table.response.sets if sets else None, splits.precision
    )
    return PRCounts(pn, pd, rn, rd)


def _components(
    overlap: list[dict[int, int]], extra: Alignment
) -> list[tuple[list[int], list[int]]]:
    """Connected components (key rows, response columns) of the entity overlap graph."""
    cols_of: list[list[int]] = [list(row) for row in overlap]
    rows_of: dict[int, list[int]] = {}
    for i, row in enumerate(overlap):
        for j in row:
            rows_of.setdefault(j, []).append(i)
    for i, (j, _) in extra.items():
        if j not in overlap[i]:
            cols_of[i].append(j)
            rows_of.setdefault(j, []).append(i)
    done = [False] * len(overlap)
    out: list[tuple[list[int], list[int]]] = []
    for start, cols in enumerate(cols_of):
        if done[start] or not cols:
            continue
        done[start] = True
        if len(cols) == 1 and len(rows_of[cols[0]]) == 1:
            out.append(([start], cols))
            continue
        rows, seen_cols, queue = [start], set(), [start]
        while queue:
            i = queue.pop()
            for j in cols_of[i]:
                if j in seen_cols:
                    continue
                seen_cols.add(j)
                for i2 in rows_of[j]:
                    if not done[i2]:
                        done[i2] = True
                        rows.append(i2)
                        queue.append(i2)
        out.append((sorted(rows), sorted(seen_cols)))
    return out


def _ceaf_similarity(table: Contingency, splits: SplitMaps, entity: bool) -> float:
    """Σ φ over the optimal one-to-one entity alignment (Kuhn–Munkres per component).

    Only entity pairs that share a mention (or an aligned accommodated set) have φ > 0, so
    the optimum is the sum of the optima of the connected components of that overlap
    graph; a component of one key and one response entity needs no assignment. Without
    aligned sets the components are computed once per table, for both CEAF variants.
    """
    ks, ss = table.key_sizes, table.sys_sizes
    overlap = table.overlap
    fmap = splits.f
    components: Components | None
    if fmap:
        components = _components(overlap, fmap)
    else:
        components = table.components
        if components is None:
            components = table.components = _components(overlap, fmap)

    phi = ceaf_phi(overlap, fmap, ks, ss, entity)
    singles = 0.0
    many = []
    for rows, cols in components:
        if len(rows) == 1 and len(cols) == 1:
            singles += phi(rows[0], cols[0])
        else:
            many.append((rows, cols))
    # the one-to-one components' sum first, then the assigned ones' (as scoring.metrics.plain)
    return singles + assigned_total(many, overlap, fmap, phi)


def ceaf_phi(
    overlap: list[dict[int, int]] | dict[int, dict[int, int]],
    fmap: Alignment,
    ks: list[int],
    ss: list[int],
    entity: bool,
) -> Callable[[int, int], float]:
    """φ(i, j) of CEAF: φ4 (``entity``) or φ3 of key entity i and response entity j, over
    their overlap; an aligned accommodated set of i adds its F score where it lands on j."""

    def phi(i: int, j: int) -> float:
        v: float = overlap[i].get(j, 0)
        hit = fmap.get(i) if fmap else None
        if hit is not None and hit[0] == j:
            v += hit[1]
        return 2 * v / (ks[i] + ss[j]) if entity else float(v)

    return phi


def assigned_total(
    components: Components,
    overlap: Sequence[dict[int, int]] | dict[int, dict[int, int]],
    fmap: Alignment,
    phi: Callable[[int, int], float],
) -> float:
    """Σ φ of the optimal alignment of components of more than one entity on a side.

    They go to Kuhn–Munkres together, as one block-diagonal matrix (its optimum is the sum
    of the blocks' optima), in batches that keep the matrix small.
    """
    total = 0.0
    batch_rows: list[int] = []
    batch_cols: list[int] = []
    for rows, cols in components:
        batch_rows.extend(rows)
        batch_cols.extend(cols)
        if len(batch_rows) * len(batch_cols) > _BATCH_CELLS:
            total += _assign(batch_rows, batch_cols, overlap, fmap, phi)
            batch_rows, batch_cols = [], []
    if batch_rows:
        total += _assign(batch_rows, batch_cols, overlap, fmap, phi)
    return total


_BATCH_CELLS = 4096


def _assign(
    rows: list[int],
    cols: list[int],
    overlap: Sequence[dict[int, int]] | dict[int, dict[int, int]],
    fmap: Alignment,
    phi: Callable[[int, int], float],
) -> float:
    ci = {j: n for n, j in enumerate(cols)}
    width = len(cols)
    values = [0.0] * (len(rows) * width)
    for a, i in enumerate(rows):
        base = a * width
        for j in overlap[i]:
            values[base + ci[j]] = phi(i, j)
        hit = fmap.get(i) if fmap else None
        if hit is not None:
            values[base + ci[hit[0]]] = phi(i, hit[0])
    return assigned_sum(values, len(rows), width, maximize=True)


def ceafm(table: Contingency, splits: SplitMaps = NO_SPLITS, inner: bool = False) -> PRCounts:
    """Mention-based CEAF (Luo 2005): φ3(K, S) = |K ∩ S|, one-to-one entity alignment.

    ``R = Σ φ3(aligned) / Σ|K_i|``, ``P = Σ φ3(aligned) / Σ|S_j|``. An accommodated set of K
    aligned (by CEAFm's own split alignment) to a set in S adds its F score (spec §4.3).
    """
    sim = _ceaf_similarity(table, splits, entity=False)
    return PRCounts(sim, float(sum(table.sys_sizes)), sim, float(sum(table.key_sizes)))


def ceafe(table: Contingency, splits: SplitMaps = NO_SPLITS, inner: bool = False) -> PRCounts:
    """Entity-based CEAF (Luo 2005): φ4(K, S) = 2|K ∩ S| / (|K| + |S|).

    ``R = Σ φ4(aligned) / #key entities``, ``P = Σ φ4(aligned) / #response entities``.
    """
    sim = _ceaf_similarity(table, splits, entity=True)
    return PRCounts(sim, float(len(table.sys_sizes)), sim, float(len(table.key_sizes)))


def _set_target(
    i: int, sets: Sets, aligned: Alignment, ident: list[int | None] | None
) -> tuple[int | None, float]:
    """Where the accommodated set of cluster i lands on the other side, and its weight."""
    if sets is None or sets[i] is None:
        return None, 0.0
    hit = aligned.get(i)
    if hit is not None:
        return hit[0], hit[1]
    j = ident[i] if ident is not None else None
    return (j, 1.0) if j is not None else (None, 0.0)


def _lea_side(
    rows: Rows,
    sizes: list[int],
    other_sizes: list[int],
    sets: Sets,
    aligned: Alignment,
    ident: list[int | None] | None,
) -> tuple[float, float]:
    num = den = 0.0
    for i, n in enumerate(sizes):
        row = rows[i]
        den += n
        if n == 1:
            if row:
                (j,) = row
                if other_sizes[j] == 1:
                    num += 1
            continue
        common = sum(v * (v - 1) for v in row.values()) / 2
        target, w = _set_target(i, sets, aligned, ident)
        if target is not None:
            common += w * row.get(target, 0)
        num += n * common / (n * (n - 1) / 2)
    return num, den


def lea(table: Contingency, splits: SplitMaps = NO_SPLITS, inner: bool = False) -> PRCounts:
    """LEA, the link-based entity-aware metric (Moosavi & Strube 2016).

    For each cluster c: importance |c|, resolution = common links / all links, where all
    links = |c|(|c|-1)/2 and common links are pairs that land in one cluster of the other
    side; a one-mention cluster has a self-link, resolved iff its mention maps to a
    one-mention cluster::

        R = Σ_i |K_i| · common(K_i) / links(K_i)  /  Σ_i |K_i|

    With an accommodated set, a pair involving it weighs its alignment score (w_x · w_y per
    pair): the rule of UA scorer v2, which fixed v1's order-dependent running product
    (Q15). This binds (scoring policy).

    >>> from scoring.clusters import Partition
    >>> key = Partition([[0, 1, 2], [3, 4, 5, 6]], [None, None])
    >>> resp = Partition([[0, 1], [2, 3], [5, 6, 7, 8]], [None, None, None])
    >>> c = lea(Contingency(key, resp))
    >>> round(c.recall, 6), round(c.precision, 6)
    (0.238095, 0.333333)
    """
    sets = table.has_sets
    rn, rd = _lea_side(
        table.rrow,
        table.key_sizes,
        table.sys_sizes,
        table.key.sets if sets else None,
        splits.recall,
        table.ident_r,
    )
    pn, pd = _lea_side(
        table.prow,
        table.sys_sizes,
        table.key_sizes,
        table.response.sets if sets else None,
        splits.precision,
        table.ident_p,
    )
    return PRCounts(pn, pd, rn, rd)


def _links(sizes: list[int]) -> float:
    return sum(n * (n - 1) for n in sizes) / 2


def blanc_coref(table: Contingency, splits: SplitMaps = NO_SPLITS, inner: bool = False) -> PRCounts:
    """BLANC coreference links (Recasens & Hovy 2011; predicted mentions: Luo et al. 2014).

    ``num`` = key coreference links whose two mentions map to one response cluster;
    ``rd`` = key links Σ|K|(|K|-1)/2, ``pd`` = response links; pn = rn = num.

    Accommodated sets (deviation, see docs/scoring-deviations.md): both references
    substitute only the *first* mention of a pair by its aligned set, so their value depends
    on the order of the mentions in the cluster (Q15). We score the expectation over all
    orders: a pair of the set A and a mention y counts the mean of its two orders,
    ``(f·[A' lands with y] + [A itself lands with y]) / 2``, where A' is the set aligned to
    A by BLANC-c's split alignment with score f, and A itself lands only where the response
    has an identical set. The value always lies between the references' extremes.
    """
    rows = table.rrow
    num = 0.0
    sets = table.key.sets if table.has_sets else None
    ident = table.ident_r or []  # present where there are sets
    for i, row in enumerate(rows):
        num += sum(v * (v - 1) for v in row.values()) / 2
        if sets is not None and sets[i] is not None:
            j1, w1 = _set_target(i, sets, splits.f, ident)
            j0 = ident[i]
            half = 0.0
            if j1 is not None:
                half += w1 * row.get(j1, 0)
            if j0 is not None:
                half += row.get(j0, 0)
            num += half / 2
    return PRCounts(num, _links(table.sys_sizes), num, _links(table.key_sizes))


def blanc_noncoref(
    table: Contingency, splits: SplitMaps = NO_SPLITS, inner: bool = False
) -> PRCounts:
    """BLANC non-coreference links, from counts (no pair loop).

    With v_i[j] the weight of key cluster i's mentions found in response cluster j (an
    aligned set weighs its F score) and W_i = Σ_j v_i[j]::

        num = Σ_{i<i'} (W_i W_i' - Σ_j v_i[j] v_i'[j])
            = ((ΣW)² - ΣW² - Σ_j (Σ_i v_i[j])² + Σ_i Σ_j v_i[j]²) / 2
        rd = N(N-1)/2 - Σ|K|(|K|-1)/2   (N key mentions, sets included); pd likewise.

    This is order-independent even with sets (both mentions of a pair are substituted).
    """
    sets = table.key.sets if table.has_sets else None
    total = sq_w = sq_v = 0.0
    column: dict[int, float] = {}
    for i, counts in enumerate(table.rrow):
        row: Mapping[int, float] = counts
        if sets is not None and sets[i] is not None:
            j1, w1 = _set_target(i, sets, splits.f, table.ident_r)
            if j1 is not None:
                row = {**row, j1: row.get(j1, 0) + w1}
        w = 0.0
        for j, v in row.items():
            w += v
            sq_v += v * v
            column[j] = column.get(j, 0) + v
        total += w
        sq_w += w * w
    sq_col = sum_in_order(v * v for v in column.values())
    num = (total * total - sq_w - sq_col + sq_v) / 2
    nk, ns = sum(table.key_sizes), sum(table.sys_sizes)
    rd = nk * (nk - 1) / 2 - _links(table.key_sizes)
    pd = ns * (ns - 1) / 2 - _links(table.sys_sizes)
    return PRCounts(num, float(pd), num, float(rd))
