"""Mention alignment: which response mention stands for which key mention (options.matching).

The result is one map, response span code → key span code, applied to the response clusters
before any metric runs, so every coreference metric sees the same alignment (UA scorer v2's
design; v1's ``min`` reached only some metrics, Q11). Mentions with the same span align
exactly and are not in the map. The remaining key and response mentions are aligned one to
one, maximising the total score with Kuhn–Munkres (`linear_sum_assignment`), separately on
each connected component of the candidate graph:

* ``partial-corefud`` (v1 ``min``, scoring policy): key k with a Min, response s with
  ``Min(k) ⊆ s ⊆ k``; score ``|s ∩ k| / |k|``.
* ``head``: k and s have the same head (compact files: the head token; exploded files: the
  Min span, where v2 crashes); score ``|s ∩ k| / |k|``. A response mention without any head
  annotation matches when the key head lies inside it.
* ``partial-craft`` (CRAFT 2019): a part of s lies inside the first part of k; score
  ``|s ∩ k| / |k|``. v2 aligns greedily and gives up when the first key it tries is taken;
  we use the optimal one-to-one alignment (docs/scoring-deviations.md).

Rows and columns of each component are ordered by (start, end, length), as v2 sorts them, so
ties go to earlier mentions. Zero mentions take part as any other mention (v2); under
``--zero-match-method dependent`` the caller has aligned them by their dependencies first
and gives here only the mentions still free (`scoring.zero_matching`).

Compact files: a mention of several nodes may contain empty nodes (`Markable.zeros`) and its
head may be one (`Markable.head_zero`). Such mentions are compared as sets of nodes, as v2
does: the key's minimum is then its Min span or else its head node (zero or word), and the
scores count nodes.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import Any

from scoring.assignment import linear_sum_assignment
from scoring.mention_codes import MentionKey, mention_nodes, mention_zeros, node_order

Span = tuple[int, int]
Parts = Sequence[Span]
Pairs = dict[tuple[int, int], float]


def _tokens(parts: Parts) -> set[int]:
    out: set[int] = set()
    for a, b in parts:
        out.update(range(a, b + 1))
    return out


def _length(parts: Parts) -> int:
    return sum(b - a + 1 for a, b in parts)


def _overlap(p: Parts, q: Parts) -> int:
    if len(p) == 1 and len(q) == 1:
        (a, b), (c, d) = p[0], q[0]
        return max(0, min(b, d) - max(a, c) + 1)
    return len(_tokens(p) & _tokens(q))


def align_mentions(
    matching: str,
    key_codes: Iterable[int],
    response_codes: Iterable[int],
    keys: list[MentionKey],
    *,
    key_min: dict[int, Span],
    key_heads: dict[int, int],
    response_min: dict[int, Span],
    response_heads: dict[int, int],
    warnings: list[str] | None = None,
    where: str = "",
    key_zero_heads: dict[int, tuple[int, int]] | None = None,
    response_zero_heads: dict[int, tuple[int, int]] | None = None,
) -> dict[int, int]:
    """Response code → key code for the mentions aligned beyond exact spans, among the
    codes given (a code on both sides is an exact match, left out).

    ``key_zero_heads`` / ``response_zero_heads``: code → (position, rank) of the head of a
    mention whose head is an empty node (compact files).
    """
    if matching == "exact":
        return {}
    key_set = set(key_codes)
    resp_set = set(response_codes)

    def order(code: int) -> tuple[Any, Any, int]:
        return mention_order(keys[code])

    k_rest = sorted(key_set - resp_set, key=order)
    s_rest = sorted(resp_set - key_set, key=order)
    if not k_rest or not s_rest:
        return {}
    key_zero_heads = key_zero_heads or {}
    if matching == "partial-corefud":
        pairs = _partial_corefud(k_rest, s_rest, keys, key_min, warnings, where, key_zero_heads)
    elif matching == "head":
        pairs = _head(
            k_rest,
            s_rest,
            keys,
            key_min,
            key_heads,
            response_min,
            response_heads,
            key_zero_heads,
            response_zero_heads or {},
        )
    elif matching == "partial-craft":
        pairs = _craft(k_rest, s_rest, keys)
    else:
        raise ValueError(f"unknown matching {matching!r}")
    return _assign(pairs, keys)


def mention_order(key: MentionKey) -> tuple[Any, Any, int]:
    """(first node, last node, number of nodes), as v2 sorts mentions (nodes in
    `node_order` terms, so mentions with and without empty nodes compare)."""
    parts = key[0]
    if key[1] or len(key) > 2 and key[2]:
        nodes = sorted(mention_nodes(key))
        return nodes[0], nodes[-1], len(nodes)
    if len(parts) == 1:  # (most mentions: one part, `_length` inline)
        start, end = parts[0]
        return (start, 0), (end, 0), end - start + 1
    return (parts[0][0], 0), (parts[-1][1], 0), _length(parts)


def _partial_corefud(
    k_rest: list[int],
    s_rest: list[int],
    keys: list[MentionKey],
    key_min: dict[int, Span],
    warnings: list[str] | None,
    where: str,
    key_zero_heads: dict[int, tuple[int, int]],
) -> Pairs:
    starts = [keys[s][0][0][0] for s in s_rest]
    pairs: dict[tuple[int, int], float] = {}
    outside = 0
    for k in k_rest:
        mn = key_min.get(k)
        if mn is None or mention_zeros(keys[k]):
            if mn is not None or k in key_zero_heads:
                _partial_nodes(k, mn, key_zero_heads.get(k), s_rest, starts, keys, pairs)
            continue
        kparts = keys[k][0]
        kstart, kend = kparts[0][0], kparts[-1][1]
        contiguous = len(kparts) == 1
        ktok = None if contiguous else _tokens(kparts)
        if contiguous and not (kstart <= mn[0] and mn[1] <= kend):
            outside += 1
            continue
        if ktok is not None and not set(range(mn[0], mn[1] + 1)) <= ktok:
            outside += 1
            continue
        klen = _length(kparts)
        lo, hi = bisect_left(starts, kstart), bisect_right(starts, mn[0])
        for s in s_rest[lo:hi]:
            sparts = keys[s][0]
            if keys[s][1] or mention_zeros(keys[s]):
                continue  # nodes the key lacks
            if contiguous and len(sparts) == 1:
                e, f = sparts[0]
                if mn[1] <= f <= kend:
                    pairs[(k, s)] = (f - e + 1) / klen
            else:
                stok = _tokens(sparts)
                ktoks = ktok if ktok is not None else _tokens(kparts)
                if set(range(mn[0], mn[1] + 1)) <= stok <= ktoks:
                    pairs[(k, s)] = len(stok) / klen
    if outside and warnings is not None:
        warnings.append(
            f"{where}: {outside} key mention(s) have a Min outside their span "
            f"and can only match exactly"
        )
    return pairs


def _partial_nodes(
    k: int,
    mn: Span | None,
    zero_head: tuple[int, int] | None,
    s_rest: list[int],
    starts: list[int],
    keys: list[MentionKey],
    pairs: Pairs,
) -> None:
    """Partial-corefud candidates of a key mention with empty nodes (or an empty head), on
    node sets: ``Min(k) ⊆ s ⊆ k``, score |s| / |k| in nodes."""
    knodes = mention_nodes(keys[k])
    if mn is not None:
        minimum = {(t, 0) for t in range(mn[0], mn[1] + 1)}
    elif zero_head is not None:
        minimum = {node_order(zero_head)}
    else:  # the caller gives one or the other
        return
    if not minimum <= knodes:
        return
    kparts = keys[k][0]
    # (an empty node after the key's last word sits at the next word's position)
    lo, hi = bisect_left(starts, kparts[0][0]), bisect_right(starts, kparts[-1][1] + 1)
    for s in s_rest[lo:hi]:
        snodes = mention_nodes(keys[s])
        if minimum <= snodes <= knodes:
            pairs[(k, s)] = len(snodes) / len(knodes)


def _head(
    k_rest: list[int],
    s_rest: list[int],
    keys: list[MentionKey],
    key_min: dict[int, Span],
    key_heads: dict[int, int],
    response_min: dict[int, Span],
    response_heads: dict[int, int],
    key_zero_heads: dict[int, tuple[int, int]],
    response_zero_heads: dict[int, tuple[int, int]],
) -> Pairs:
    def head_of(
        code: int,
        heads: dict[int, int],
        mins: dict[int, Span],
        zero_heads: dict[int, tuple[int, int]],
    ) -> tuple[int, ...] | None:
        h = heads.get(code)
        if h is not None:
            return (h, h)
        z = zero_heads.get(code)
        if z is not None:
            return (z[0], z[0], z[1])  # an empty node never equals a word's (h, h)
        return mins.get(code)

    def covers(head: tuple[int, ...], code: int) -> bool:
        if len(head) == 3:
            return node_order((head[0], head[2])) in mention_nodes(keys[code])
        sp = keys[code][0]
        inside = sp[0][0] <= head[0] and head[1] <= sp[-1][1]
        return inside and set(range(head[0], head[1] + 1)) <= _tokens(sp)

    by_head: dict[tuple[int, ...], list[int]] = {}
    headless: list[int] = []
    for s in s_rest:
        hs = head_of(s, response_heads, response_min, response_zero_heads)
        if hs is None:
            headless.append(s)
        else:
            by_head.setdefault(hs, []).append(s)
    pairs: dict[tuple[int, int], float] = {}
    for k in k_rest:
        hk = head_of(k, key_heads, key_min, key_zero_heads)
        if hk is None:
            continue
        kparts = keys[k][0]
        klen = _length(kparts)
        cands = list(by_head.get(hk, ()))
        cands.extend(s for s in headless if covers(hk, s))
        for s in cands:
            if keys[k][1] or keys[s][1] or mention_zeros(keys[k]) or mention_zeros(keys[s]):
                knodes = mention_nodes(keys[k])
                ov = len(knodes & mention_nodes(keys[s])) / len(knodes)
            else:
                ov = _overlap(kparts, keys[s][0]) / klen
            if ov:
                pairs[(k, s)] = ov
    return pairs


def _craft(k_rest: list[int], s_rest: list[int], keys: list[MentionKey]) -> Pairs:
    index = sorted((a, b, s) for s in s_rest for a, b in keys[s][0])
    starts = [a for a, _, _ in index]
    pairs: dict[tuple[int, int], float] = {}
    for k in k_rest:
        kparts = keys[k][0]
        c0, d0 = kparts[0]
        klen = _length(kparts)
        lo, hi = bisect_left(starts, c0), bisect_right(starts, d0)
        for _, b, s in index[lo:hi]:
            if b <= d0 and (k, s) not in pairs:
                pairs[(k, s)] = _overlap(kparts, keys[s][0]) / klen
    return pairs


def _assign(pairs: dict[tuple[int, int], float], keys: list[MentionKey]) -> dict[int, int]:
    """One-to-one alignment maximising the total score, per connected component."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    for k, s in pairs:
        a, b = find(k), find(~s)
        if a != b:
            parent[a] = b
    components: dict[int, list[tuple[int, int]]] = {}
    for ks in pairs:
        components.setdefault(find(ks[0]), []).append(ks)
    rename: dict[int, int] = {}

    def order(code: int) -> tuple[Any, Any, int]:
        return mention_order(keys[code])

    for members in components.values():
        if len(members) == 1:
            k, s = members[0]
            rename[s] = k
            continue
        rows = sorted({k for k, _ in members}, key=order)
        cols = sorted({s for _, s in members}, key=order)
        ri = {k: n for n, k in enumerate(rows)}
        ci = {s: n for n, s in enumerate(cols)}
        width = len(cols)
        matrix = [0.0] * (len(rows) * width)
        for k, s in members:
            matrix[ri[k] * width + ci[s]] = pairs[(k, s)]
        for a, b in zip(*linear_sum_assignment(matrix, len(rows), width, maximize=True)):
            if matrix[a * width + b] > 0:
                rename[cols[b]] = rows[a]
    return rename
