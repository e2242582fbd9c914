"""Statistically tied rank neighbours of a board: paired approximate randomization between
each two runs ranked next to each other, on their per-document counts
(`leaderboard.selectors.counts`), marked as groups by `leaderboard.significance`."""

from __future__ import annotations

import hashlib

from django.core.cache import cache

from competition.models import ScoringRun
from leaderboard import significance
from leaderboard.ranking import AVERAGE
from leaderboard.selectors.board import Board
from leaderboard.selectors.counts import compare_counts, document_counts

GROUP_SAMPLES = 1000
GROUP_SEED = significance.DEFAULT_SEED
PAIRS_KEPT = 20_000
"""Tested pairs kept per phase and column (a pair's p-value is a few dozen bytes)."""

Pair = tuple[int, int | None, int, int | None]
"""Two rank neighbours, each with its current scoring run: (a, a's run, b, b's run)."""


def board_tied_groups(board: Board) -> dict[int, str]:
    """Group markers of the ranked rows (rank order): rank neighbours not significantly
    different at 0.05 share a marker. Empty when per-document counts are not available.

    Each neighbour pair's p-value is kept, keyed by both runs' current scorings, in one cache
    entry per phase and column (a board of a thousand runs has a thousand pairs: one entry
    each would be evicted by a small cache before the next request), so a new submission costs
    the tests of its own two new pairs, not the whole board's.
    """
    ranked = sorted((r for r in board.rows if r.rank is not None), key=lambda r: r.rank or 0)
    if len(ranked) < 2:
        return {}
    subcorpora = _tested_datasets(board)
    if subcorpora is None:
        return {}  # the test is on F1: ranks by recall or precision get no groups
    ids = [r.entry.submission_id for r in ranked]
    current = _current_runs(board, ids)
    cache_key = _pairs_cache_key(board, subcorpora)
    keys: list[Pair] = [(a, current.get(a), b, current.get(b)) for a, b in zip(ids, ids[1:])]
    known: dict = cache.get(cache_key) or {}
    p_values = {k: known[k] for k in keys if k in known}
    missing = [k for k in keys if k not in p_values]
    if missing:
        tested = _tested_pairs(board, missing, current=current, subcorpora=subcorpora)
        if tested is None:
            return {}
        p_values.update(tested)
        _keep_pairs(cache_key, known=known, p_values=p_values)
    markers = significance.tied_groups([p_values[k] for k in keys])
    return dict(zip(ids, markers))


def _tested_datasets(board: Board) -> list[str] | None:
    """The sub-corpora whose counts the ranking column's F1 is tested on: the averaged ones
    for the average, the column's own otherwise (None: the board does not rank by an F1)."""
    rank_column = board.sort if board.sort.partition(".")[2] else f"{AVERAGE}.f1"
    if not rank_column.endswith(".f1"):
        return None
    if rank_column.startswith(f"{AVERAGE}."):
        return board.available
    return [rank_column.partition(".")[0]]


def _current_runs(board: Board, ids: list[int]) -> dict[int, int]:
    """The current scoring run of each of the runs ``ids``: as the board read them, or, when
    it did not read all of them, from the database."""
    current = board.current_runs
    if current is None or any(sid not in current for sid in ids):
        current = dict(
            ScoringRun.objects.filter(submission_id__in=ids, is_current=True).values_list(
                "submission_id", "id"
            )
        )
    return current


def _pairs_cache_key(board: Board, subcorpora: list[str]) -> str:
    """The cache entry of the tested pairs of the board's phase and column."""
    fingerprint = repr(
        (board.phase.pk, board.mode, board.metric, subcorpora, GROUP_SAMPLES, GROUP_SEED)
    )
    return "leaderboard:pairs:" + hashlib.sha256(fingerprint.encode()).hexdigest()


def _tested_pairs(
    board: Board, pairs: list[Pair], *, current: dict[int, int], subcorpora: list[str]
) -> dict[Pair, float] | None:
    """The p-value of each pair of neighbours (None: some run's counts are not available)."""
    needed = sorted({sid for a, _, b, _ in pairs for sid in (a, b)})
    found = document_counts(
        submission_ids=needed,
        mode=board.mode,
        metric=board.metric,
        # a frozen board tests the scorings it froze, whatever was scored since
        run_ids=[current[sid] for sid in needed if sid in current] if board.snapshot else None,
    )
    if found is None:
        return None
    counts, score = found
    p_values = {}
    for k in pairs:
        a, _, b, _ = k
        result = compare_counts(
            counts.get(a, {}),
            counts.get(b, {}),
            score=score,
            subcorpora=subcorpora,
            samples=GROUP_SAMPLES,
            seed=GROUP_SEED,
        )
        if result is None:
            return None
        p_values[k] = result.p_value
    return p_values


def _keep_pairs(cache_key: str, *, known: dict, p_values: dict) -> None:
    """Keep the p-values of this board's pairs, with what other views of the column (teams,
    all runs) tested too, newest last (at most ``PAIRS_KEPT``)."""
    kept = {k: v for k, v in known.items() if k not in p_values}
    kept.update(p_values)
    cache.set(cache_key, dict(list(kept.items())[-PAIRS_KEPT:]), timeout=7 * 24 * 3600)
