"""The metrics UA scorer v2.0 adds to the six: mention overlap ratio (``mor``) and the
anaphor-level zero score (``zero``), and v2's dependency-based matching of zero mentions
(``--zero-match-method dependent``). Pure functions over plain Python values.

Both return `PRCounts`, so per-document counts add up to corpus counts like every other
metric, and recall / precision / F come from the sums (`PRCounts.recall`, `.precision`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Container, Hashable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from scoring.assignment import assigned_sum
from scoring.results import PRCounts
from scoring.zero_matching import dependency_pairs, split_deps


def mor_counts(
    key_mentions: Sequence[Collection[Any]], response_mentions: Sequence[Collection[Any]]
) -> PRCounts:
    """Mention overlap ratio, MOR (Findings of the CRAC 2022 shared task; v2 VE:317-373).

    Parameters
    ----------
    key_mentions, response_mentions : sequences of mentions
        Each mention is a non-empty collection of token keys (0-based positions, or any
        totally ordered hashable keys such as ``(position, zero_rank)`` for zeros). Every
        mention of every cluster is given, split-antecedent sets excluded (the reference
        crashes on them).

    All mentions are sorted by their first token and swept into groups of transitively
    overlapping spans (a mention joins the group while its first token <= the group's right
    bound). Within a group, Kuhn–Munkres pairs key and response mentions 1-to-1 so that the
    total token overlap |k ∩ s| is maximal. Then::

        p_num = r_num = Σ_pairs |k ∩ s|,   p_den = Σ |s|,   r_den = Σ |k|

    over all mentions (unpaired ones add their size to their side's denominator only).
    The score does not depend on the matching option (-a): it finds its own pairs.

    >>> mor_counts([[0, 1, 2], [5]], [[1, 2], [5], [7, 8]])
    PRCounts(p_num=3.0, p_den=5.0, r_num=3.0, r_den=4.0)
    """
    items = [(min(m), max(m), True, frozenset(m)) for m in key_mentions if len(m)]
    items += [(min(m), max(m), False, frozenset(m)) for m in response_mentions if len(m)]
    items.sort(key=itemgetter(0, 1))
    overlap = 0.0
    p_den = float(sum(len(s) for *_, is_key, s in items if not is_key))
    r_den = float(sum(len(s) for *_, is_key, s in items if is_key))
    group_keys: list[frozenset[Any]] = []
    group_response: list[frozenset[Any]] = []
    bound = None
    for start, end, is_key, tokens in items:
        if bound is not None and start > bound:
            overlap += _best_overlap(group_keys, group_response)
            group_keys, group_response, bound = [], [], None
        (group_keys if is_key else group_response).append(tokens)
        bound = end if bound is None else max(bound, end)
    overlap += _best_overlap(group_keys, group_response)
    return PRCounts(overlap, p_den, overlap, r_den)


def _best_overlap(keys: list[frozenset[Any]], responses: list[frozenset[Any]]) -> float:
    if not keys or not responses:
        return 0.0
    if len(keys) == 1 and len(responses) == 1:
        return float(len(keys[0] & responses[0]))
    values = [float(len(k & s)) for k in keys for s in responses]
    return assigned_sum(values, len(keys), len(responses), maximize=True)


def zero_counts(
    key_clusters: Sequence[Sequence[Any]],
    response_clusters: Sequence[Sequence[Any]],
    key_to_response: Mapping[Any, Any],
    zeros: Container[Any],
    order: Callable[[Any], Any] | None = None,
    response_zeros: Container[Any] | None = None,
    zero_in: tuple[Mapping[tuple[int, Any], bool], Mapping[tuple[int, Any], bool]] = ({}, {}),
) -> PRCounts:
    """Anaphor-level score of zero anaphors (CRAC 2022; v2 ``zero``, VE:402-466).

    Parameters
    ----------
    key_clusters, response_clusters : sequences of clusters of mention keys
        Mention keys are hashable; a key mention and a response mention with the same key
        are the same mention (exact match).
    key_to_response : mapping
        The alignment of the matching option for key mentions that have no identical
        response mention (partial, head or zero-dependency matches); empty for exact.
    zeros : container
        The mention keys (key or response) that are zeros.
    order : callable, optional
        Sort key putting the mentions of a cluster in document order (default: the keys'
        own order, e.g. ``(start, end)`` tuples).
    response_zeros : container, optional
        The response mentions that are zeros, where the sides differ (the same span can have
        an empty head in the key and a word head in the response); default ``zeros``.
    zero_in : pair of mappings, optional
        Key side, response side: (cluster index, mention) → whether it is a zero there, for
        a mention in several clusters whose markables differ (v2 asks each cluster's own).

    Each cluster is put in document order. Each non-first key mention that is a zero is
    an anaphor, counted tp, wl (wrong link) or fn by its counterpart (`_key_anaphors`). A
    non-first response zero that is the counterpart of no key anaphor is fp. Then::

        p_num = r_num = tp,   p_den = tp + fp + wl,   r_den = tp + fn + wl

    >>> zero_counts([[(0, 0), (3, 3)]], [[(0, 0), (3, 3)]], {}, {(3, 3)})
    PRCounts(p_num=1, p_den=1, r_num=1, r_den=1)
    >>> zero_counts([[(0, 0), (3, 3)]], [[(3, 3)], [(0, 0)]], {}, {(3, 3)})
    PRCounts(p_num=0, p_den=0, r_num=0, r_den=1)
    """
    key_clusters = [sorted(c, key=order) for c in key_clusters]
    response_clusters = [sorted(c, key=order) for c in response_clusters]
    first_mentions = {c[0] for c in response_clusters if c}
    tp, fn, wl, covered = _key_anaphors(
        key_clusters, response_clusters, first_mentions, key_to_response, zeros, zero_in[0]
    )
    fp = _spurious_zeros(
        response_clusters,
        first_mentions,
        covered,
        zeros if response_zeros is None else response_zeros,
        zero_in[1],
    )
    return PRCounts(tp, tp + fp + wl, tp, tp + fn + wl)


def _key_anaphors(
    key_clusters: Sequence[Sequence[Any]],
    response_clusters: Sequence[Sequence[Any]],
    first_mentions: set[Any],
    key_to_response: Mapping[Any, Any],
    zeros: Container[Any],
    zero_in: Mapping[tuple[int, Any], bool],
) -> tuple[int, int, int, set[Hashable]]:
    """(tp, fn, wl, the counterparts of the key anaphors) of `zero_counts`. An anaphor's
    counterpart is the identical response mention or its aligned one; the anaphor is

    * fn if there is no counterpart, or the counterpart is the first mention of a response
      cluster;
    * wl (wrong link) if the counterpart's cluster is not the cluster of any counterpart of
      an earlier mention of the key cluster;
    * tp otherwise."""
    cluster_of: dict[Hashable, int] = {}
    for index, cluster in enumerate(response_clusters):
        for mention in cluster:
            cluster_of[mention] = index
    tp = fn = wl = 0
    covered: set[Hashable] = set()
    for index, cluster in enumerate(key_clusters):
        earlier: set[int] = set()
        for i, mention in enumerate(cluster):
            counterpart = None
            if mention in cluster_of:
                counterpart = mention
            elif mention in key_to_response:
                counterpart = key_to_response[mention]
            target = cluster_of.get(counterpart) if counterpart is not None else None
            if i and zero_in.get((index, mention), mention in zeros):
                if counterpart is None or counterpart in first_mentions:
                    fn += 1
                elif target not in earlier:
                    wl += 1
                else:
                    tp += 1
                if counterpart is not None:
                    covered.add(counterpart)
            if target is not None:
                earlier.add(target)
    return tp, fn, wl, covered


def _spurious_zeros(
    response_clusters: Sequence[Sequence[Any]],
    first_mentions: set[Any],
    covered: set[Hashable],
    zeros: Container[Any],
    zero_in: Mapping[tuple[int, Any], bool],
) -> int:
    """fp of `zero_counts`: the non-first response zeros no key anaphor has as counterpart."""
    fp = 0
    for index, cluster in enumerate(response_clusters):
        for mention in cluster:
            if (
                mention not in first_mentions
                and mention not in covered
                and zero_in.get((index, mention), mention in zeros)
            ):
                fp += 1
    return fp


def parse_deps(deps: str) -> list[tuple[str, str]]:
    """``"@0|12:nsubj|root:root"`` (the compact reader's ``deps`` attribute) → pairs."""
    return split_deps(deps)[1]


def zero_dependency_alignment(
    key_deps: Mapping[Hashable, str], response_deps: Mapping[Hashable, str]
) -> dict[Any, Any]:
    """Match key zeros to response zeros by their dependencies (v2 ``--zero-match-method
    dependent``): `scoring.zero_matching.dependency_pairs` as a key → response map.

    Parameters
    ----------
    key_deps, response_deps : mappings
        Zero mention → its ``deps`` attribute as the compact reader writes it (the head's
        sentence, then its DEPS with parents as document positions).

    >>> zero_dependency_alignment({"k1": "15:nsubj", "k2": "15:obj"},
    ...                           {"s1": "15:obj", "s2": "15:nsubj", "s3": "3:nsubj"})
    {'k1': 's2', 'k2': 's1'}
    """
    order: Callable[[Any], Any] | None = None
    try:
        sorted(key_deps, key=_itself), sorted(response_deps, key=_itself)
    except TypeError:
        order = repr
    return dict(dependency_pairs(key_deps, response_deps, order=order))


def _itself(value: Any) -> Any:
    return value
