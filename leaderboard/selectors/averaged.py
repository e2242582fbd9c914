"""Which datasets a mode's macro-average is taken over: the one rule of the board (every
mode), its CSV and JSON, the variant tables, a run's analysis page and the results package.

In every mode but one, a board averages over its available datasets (those with a gold key
here). CRAC 2026's empty-node measures (the ``empty-nodes`` mode) average over the datasets
whose gold key has empty nodes: a dataset without any has nothing to measure, so its cell is
"—" (not a 0 that would halve a run that got every empty node right) and it stays out of the
average; with no such dataset the average is "—" too. A key's empty nodes are read from the
stored counts of its scored runs (the recall denominator of a measure is the key's number of
empty nodes, `scoring.empty_nodes.empty_node_counts`); a dataset no run was scored on yet,
or whose rows carry no counts (published results), counts as having them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from competition.models import Phase, Score, SubCorpus
from scoring.vocabulary import EMPTY_NODE_MEASURES, EMPTY_NODES

UNMEASURED_NOTE = "no empty nodes in the gold key of this dataset: nothing to measure, not averaged"

_KEY_HAS_NODES: dict[tuple[int, str], bool] = {}
"""Whether a gold key (a sub-corpus with this key content) has empty nodes; a key's content
never changes under its digest, so what is known is kept for the process."""


def averaged_datasets(
    *,
    phase: Phase,
    mode: str,
    available: Sequence[str],
    without: Collection[str] | None = None,
) -> list[str]:
    """The slugs of ``available`` (in their order) that a ``mode`` average of ``phase`` is
    taken over: all of them, but in the empty-node mode only those whose key has empty
    nodes (``without``: the datasets known to have none, as a frozen board kept them; None:
    read now)."""
    if mode != EMPTY_NODES or not available:
        return list(available)
    if without is None:
        without = datasets_without_empty_nodes(phase=phase)
    return [slug for slug in available if slug not in without]


def datasets_without_empty_nodes(*, phase: Phase) -> set[str]:
    """The slugs of the phase's datasets whose gold key is known to have no empty node."""
    without = set()
    for pk, slug, sha in SubCorpus.objects.filter(phase=phase).values_list("pk", "slug", "sha256"):
        has = _KEY_HAS_NODES.get((pk, sha))
        if has is None:
            has = _key_has_empty_nodes(pk)
            if has is None:
                continue  # not known yet: counted
            _KEY_HAS_NODES[(pk, sha)] = has
        if not has:
            without.add(slug)
    return without


def _key_has_empty_nodes(subcorpus_id: int) -> bool | None:
    """From one current empty-node row of the dataset (its counts' ``r_den``: the key's
    empty nodes); None when there is no such row or it carries no counts."""
    counts = (
        Score.objects.filter(
            metric=EMPTY_NODE_MEASURES[0],
            mode=EMPTY_NODES,
            document="",
            subcorpus_id=subcorpus_id,
            run__is_current=True,
        )
        .values_list("counts", flat=True)
        .first()
    )
    if not isinstance(counts, dict) or "r_den" not in counts:
        return None
    return bool(counts["r_den"])
