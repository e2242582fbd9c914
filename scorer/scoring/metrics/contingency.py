"""The key × response entity contingency table every coreference metric is computed from.

Sparse: each key cluster keeps a dict {response cluster: number of its mentions found there}
and nothing is stored for pairs that share no mention. Three views are kept because the
reference looks mentions up in two different ways (spec §4):

* ``rrow[i]`` / ``r_unfound[i]`` (recall side): the regular mentions of key cluster i looked up
  in the response mention map. A span that sits in two response clusters maps to the **last**
  one (a dict, spec §2.7, Q21).
* ``prow[j]`` / ``p_unfound[j]`` (precision side): the same from the response side.
* ``overlap[i]``: |K_i ∩ S_j| over every response cluster holding the mention (CEAF's list
  membership). Without cross-cluster duplicates it is ``rrow`` itself.

``lookups`` (`scoring.zero_matching`): where v2's lookups of the two sides are not inverse
to each other, key mention m is looked up as ``key_lookup[m]`` (not found where absent) and
response mention m as ``response_lookup[m]``; every view above takes them.

Accommodated sets (split antecedents) are not in these counts: ``ident_r[i]`` is the response
cluster whose set is identical to key cluster i's set (found by a map lookup in the reference),
and the split alignment of `scoring.splits` supplies the partial credit.
"""

from __future__ import annotations

from scoring.clusters import Partition


class Contingency:
    """Sparse contingency between a key and a response `Partition`.

    >>> from scoring.clusters import Partition
    >>> t = Contingency(Partition([[0, 1, 2]], [None]), Partition([[0, 1], [2, 3]], [None, None]))
    >>> t.rrow, t.prow, t.r_unfound, t.p_unfound
    ([{0: 2, 1: 1}], [{0: 2}, {0: 1}], [0], [0, 1])
    """

    __slots__ = (
        "key",
        "response",
        "key_sizes",
        "sys_sizes",
        "rrow",
        "prow",
        "r_unfound",
        "p_unfound",
        "overlap",
        "ident_r",
        "ident_p",
        "has_sets",
        "components",
    )

    def __init__(
        self,
        key: Partition,
        response: Partition,
        lookups: tuple[dict[int, int], dict[int, int]] | None = None,
    ) -> None:
        self.key = key
        self.response = response
        self.key_sizes = key.sizes
        self.sys_sizes = response.sizes
        sys_map, sys_multi = _mention_map(response.clusters)
        key_map, key_multi = _mention_map(key.clusters)
        if lookups is not None:
            key_lookup, resp_lookup = lookups
            sys_map = {m: sys_map[t] for m, t in key_lookup.items()}
            key_map = {m: key_map[t] for m, t in resp_lookup.items()}
        self.rrow, self.r_unfound = _rows(key.clusters, sys_map)
        self.prow, self.p_unfound = _rows(response.clusters, key_map)
        if lookups is not None:
            self.overlap = _overlap_rows(key.clusters, response.clusters, lookups[0])
        elif sys_multi:
            self.overlap = _overlap_rows(key.clusters, response.clusters)
        else:
            self.overlap = self.rrow
        # CEAF's overlap components, computed on first use
        self.components: list[tuple[list[int], list[int]]] | None = None
        self.has_sets = key.has_sets or response.has_sets
        self.ident_r: list[int | None] | None
        self.ident_p: list[int | None] | None
        if self.has_sets:
            self.ident_r = _identical_sets(key, response)
            self.ident_p = _identical_sets(response, key)
        else:
            self.ident_r = self.ident_p = None


def _mention_map(clusters: list[list[int]]) -> tuple[dict[int, int], bool]:
    """mention code → cluster index, the last cluster winning; and whether any code repeats."""
    mapping: dict[int, int] = {}
    total = 0
    for j, c in enumerate(clusters):
        total += len(c)
        for m in c:
            mapping[m] = j
    return mapping, len(mapping) != total


def _rows(
    clusters: list[list[int]], other_map: dict[int, int]
) -> tuple[list[dict[int, int]], list[int]]:
    rows: list[dict[int, int]] = []
    unfound: list[int] = []
    get = other_map.get
    for c in clusters:
        row: dict[int, int] = {}
        missing = 0
        for m in c:
            j = get(m)
            if j is None:
                missing += 1
            else:
                row[j] = row.get(j, 0) + 1
        rows.append(row)
        unfound.append(missing)
    return rows, unfound


def _overlap_rows(
    key: list[list[int]], response: list[list[int]], lookup: dict[int, int] | None = None
) -> list[dict[int, int]]:
    where: dict[int, list[int]] = {}
    for j, c in enumerate(response):
        for m in c:
            holders = where.setdefault(m, [])
            if not holders or holders[-1] != j:
                holders.append(j)
    rows = []
    for c in key:
        row: dict[int, int] = {}
        for m in c:
            if lookup is not None:
                m = lookup.get(m, -1)
            for j in where.get(m, ()):
                row[j] = row.get(j, 0) + 1
        rows.append(row)
    return rows


def _identical_sets(side: Partition, other: Partition) -> list[int | None]:
    where = {s.identity: j for j, s in enumerate(other.sets) if s is not None}
    return [None if s is None else where.get(s.identity) for s in side.sets]
