"""Mention alignment where zeros take part, as the CorefUD scorer defines it.

The reference is UA scorer v2 / the CorefUD scorer (ufal/corefud-scorer 4fd7b0e, the scorer
of CRAC 2022-2026): ``scorer/corefud/mention.py`` (``zero_dependent_match_score``, mention
order and equality) and ``scorer/base/reader.py`` (``find_mention_alignment``,
``get_nonexact_mention_align_dict``). Its rules, in mention codes (`scoring.mention_codes.SpanCoder`
gives two mentions one code exactly when v2 finds them equal: the same nodes, and under head
matching on compact files the same head):

1. **Zeros by their dependencies** (``--zero-match-method dependent`` only). Every key zero
   and every response zero takes part, identical ones included; a zero is a mention whose
   head is an empty node (v2 ``is_zero``; without a head field, its first node). Score of a
   key zero k and a response zero s: 0 when their heads lie in different sentences, else
   ``10 · F1({(parent, deprel)}) + F1({parent})`` over their heads' DEPS, computed as v2 does
   (``p = |common| / |k|``, ``r = |common| / |s|``, ``2pr / (p + r)``, so that ties are
   the same doubles). Rows and columns in v2's mention order (first node, last node, number
   of nodes); one Kuhn–Munkres solve of the whole matrix (scipy's, ties as it breaks them);
   the pairs of positive score are kept. A zero without DEPS scores 0 (v2 divides by zero).
2. **Equal mentions**: a key and a response mention of one code, neither taken in step 1.
3. **The matching option** (`scoring.alignment`: head, partial) on the mentions left, zeros
   included as any other mention; nothing under exact matching.
4. **One dictionary for both directions.** v2 records every pair of unequal mentions twice
   in one dictionary, key → response first, then response → key; since a response mention
   and its equal key mention are one dictionary key, a response mention's entry replaces
   the entry of its equal key mention. A key mention is then looked up in the response as
   ``dict.get(k, k)``, a response mention in the key as ``dict.get(s, s)``.

Where no pair of step 1 or 3 has a mention equal to a mention of the other side's pairs
(always without step 1), the lookups are one renaming of response codes (`Alignment.rename`).
Otherwise they may not be inverse to each other: a key zero whose equal response zero went to
another key zero finds nothing (its lookup lands on a key mention), while the response zero
it was paired with still finds it (repro ``crac-dependent-zero-identical-taken``). Such a
document gets both lookups (`Alignment.lookups`), and its tables count the recall side with
the key's and the precision side with the response's, as v2's metrics do.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.assignment import linear_sum_assignment

Pairs = list[tuple[int, int]]


@dataclass(slots=True)
class Alignment:
    """What the metrics need of the mention alignment of one document.

    ``rename``: response code → key code, where the lookups are inverse to each other
    (every response mention then counts as the key mention of its new code).
    ``lookups``: None, or (key code → response code, response code → key code) of every
    mention whose lookup finds a mention on the other side, where they are not inverse.
    ``key_to_response``: v2's key → response entries of unequal pairs (the ``zero`` metric
    takes a key zero's equal response mention first, and this only for the others).
    """

    rename: dict[int, int] = field(default_factory=dict)
    lookups: tuple[dict[int, int], dict[int, int]] | None = None
    key_to_response: dict[int, int] = field(default_factory=dict)


def split_deps(deps: str) -> tuple[str, list[tuple[str, str]]]:
    """The compact reader's ``deps`` attribute (``"@2|12:nsubj|root:root"``) → (the head's
    sentence, ``""`` where not given; its (parent, deprel) pairs)."""
    sentence = ""
    pairs = []
    for item in deps.split("|"):
        if item.startswith("@"):
            sentence = item[1:]
            continue
        parent, sep, relation = item.partition(":")
        if sep:
            pairs.append((parent, relation))
    return sentence, pairs


def _f_score(ours: set[Any], theirs: set[Any]) -> float:
    """v2's ``CorefUDMention._f_score``, the same operations (0 where either set is empty)."""
    common = ours & theirs
    if not common:
        return 0.0
    p = len(common) / len(ours)
    r = len(common) / len(theirs)
    return 2 * p * r / (p + r)


def dependency_score(key_deps: str, response_deps: str) -> float:
    """v2's ``zero_dependent_match_score`` of a key and a response zero, from their ``deps``."""
    key_sentence, key_pairs = split_deps(key_deps)
    resp_sentence, resp_pairs = split_deps(response_deps)
    if key_sentence != resp_sentence:
        return 0.0
    score = 0.0
    score += 10 * _f_score(set(key_pairs), set(resp_pairs))
    score += _f_score({p for p, _ in key_pairs}, {p for p, _ in resp_pairs})
    return score


def dependency_pairs(
    key_deps: Mapping[Any, str],
    response_deps: Mapping[Any, str],
    order: Callable[[Any], Any] | None = None,
) -> list[tuple[Any, Any]]:
    """Step 1: (key zero, response zero) pairs, each side's zeros given with their ``deps``;
    rows and columns sorted by ``order`` (default: the zeros themselves)."""
    key: Callable[[Any], Any] = order or _itself
    keys = sorted(key_deps, key=key)
    responses = sorted(response_deps, key=key)
    if not keys or not responses:
        return []
    width = len(responses)
    matrix = [dependency_score(key_deps[k], response_deps[s]) for k in keys for s in responses]
    rows, cols = linear_sum_assignment(matrix, len(keys), width, maximize=True)
    return [(keys[i], responses[j]) for i, j in zip(rows, cols) if matrix[i * width + j] > 0]


def _itself(value: Any) -> Any:
    return value


def lookups(
    pairs: Pairs, key_codes: Collection[int], response_codes: Collection[int]
) -> tuple[dict[int, int], dict[int, int]]:
    """Step 4: each side's mentions that find a mention on the other side, and which."""
    both: dict[int, int] = {}
    both.update((k, s) for k, s in pairs if k != s)
    both.update((s, k) for k, s in pairs if k != s)
    get = both.get
    key_found = {k: t for k in key_codes if (t := get(k, k)) in response_codes}
    resp_found = {s: t for s in response_codes if (t := get(s, s)) in key_codes}
    return key_found, resp_found


def alignment(
    pairs: Pairs,
    key_codes: Collection[int],
    response_codes: Collection[int],
    fresh: Callable[[int], int],
    *,
    dependent: bool,
) -> Alignment:
    """The `Alignment` of the pairs of steps 1 and 3 (step 2's equal mentions need no pair).

    ``fresh(code)``: a new code for the same mention, for a response mention that keeps no
    code of its own (its code is a key mention's that it does not stand for).
    """
    key_to_response = {k: s for k, s in pairs if k != s}
    if not dependent:  # no pair has a mention equal to another's: one renaming
        return Alignment({s: k for k, s in pairs if k != s}, None, key_to_response)
    key_found, resp_found = lookups(pairs, key_codes, response_codes)
    inverse = all(resp_found.get(s) == k for k, s in key_found.items()) and len(key_found) == len(
        resp_found
    )
    if not inverse:
        return Alignment({}, (key_found, resp_found), key_to_response)
    rename = {s: k for s, k in resp_found.items() if s != k}
    for s in response_codes:
        if s not in resp_found and s in key_codes:
            rename[s] = fresh(s)  # its equal key mention stands for another: it finds nothing
    return Alignment(rename, None, key_to_response)


__all__ = [
    "Alignment",
    "alignment",
    "dependency_pairs",
    "dependency_score",
    "lookups",
    "split_deps",
]
