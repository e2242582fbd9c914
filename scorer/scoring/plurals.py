"""Plural entities' antecedent sets (split antecedents, spec §2.6 steps 3 and 6): the
accommodated set reached from a plural through ElementOf lists, nested plurals flattened and a
cycle an error (Q13), and the merging of clusters whose sets are identical (plural test PA-8)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.errors import ScoringInputError
from scoring.model import Markable


@dataclass(frozen=True, slots=True)
class AccommodatedSet:
    """The antecedent set of a plural entity (Paun et al.; spec §2.6 step 1, §5).

    ``members`` holds one tuple of mention codes per atomic member entity. ``identity`` is
    what makes two sets "the same set" (equal member tuples, before any partial alignment),
    used to merge plurals within a file and to look a set up on the other side.
    """

    members: tuple[tuple[int, ...], ...]
    identity: frozenset[tuple[int, ...]]


def accommodated_set(
    plural: str,
    groups: dict[str, list[int]],
    split_lists: dict[str, list[str]],
    first: dict[str, Markable],
    path: str,
) -> AccommodatedSet | None:
    """The atomic members reached from ``plural`` through ElementOf lists.

    An entity whose split list is not empty is itself a plural and is expanded (nested
    plurals are flattened); any other entity is an atomic member, taken as the tuple of its
    mention codes. Two member entities with the same mentions (the same span annotated in
    two entities, both elements of the plural) are one member, as both reference scorers
    hold the members in a set. An entity reached again while it is being expanded is a cycle:
    an error naming the entities, never an endless loop (Q13).
    """
    members: list[tuple[int, ...]] = []
    member_seen: set[str] = set()
    member_mentions: set[frozenset[int]] = set()
    done: set[str] = set()
    chain = [plural]  # the plurals being expanded, outermost first
    stack = [iter(split_lists[plural])]
    while stack:
        sub = next(stack[-1], None)
        if sub is None:
            stack.pop()
            done.add(chain.pop())
            continue
        if sub in chain:
            names = " -> ".join([*chain[chain.index(sub) :], sub])
            raise ScoringInputError(
                path,
                first[sub].line,
                f"ElementOf cycle: {names} (expected plural entities that are not "
                f"elements of themselves)",
                code="elementof_cycle",
            )
        if split_lists.get(sub):
            if sub not in done:
                chain.append(sub)
                stack.append(iter(split_lists[sub]))
        elif sub not in member_seen:
            member_seen.add(sub)
            mentions = frozenset(groups[sub])
            if mentions not in member_mentions:  # identical members are one (v1 and v2)
                member_mentions.add(mentions)
                members.append(tuple(groups[sub]))
    if not members:
        return None
    return AccommodatedSet(tuple(members), frozenset(members))


def merge_identical_sets(
    clusters: list[list[int]], sets: list[AccommodatedSet | None], eids: list[str]
) -> tuple[list[list[int]], list[AccommodatedSet | None], list[str]]:
    """Union clusters whose accommodated sets are equal into the earliest of them."""
    out_c: list[list[int]] = []
    out_s: list[AccommodatedSet | None] = []
    out_e: list[str] = []
    where: dict[frozenset[Any], int] = {}
    for codes, acc, eid in zip(clusters, sets, eids):
        if acc is not None and acc.identity in where:
            target = out_c[where[acc.identity]]
            present = set(target)
            target.extend(c for c in codes if c not in present)
            continue
        if acc is not None:
            where[acc.identity] = len(out_c)
        out_c.append(list(codes))
        out_s.append(acc)
        out_e.append(eid)
    return out_c, out_s, out_e
