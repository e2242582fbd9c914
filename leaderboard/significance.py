"""Paired significance between two runs over documents (approximate randomization).

Pure numpy, no Django. Input is, for each run, one row of counts per document (the numerators
and denominators the scorer kept, e.g. ``p_num, p_den, r_num, r_den``); a score function turns
counts summed over documents into the metric, so the statistic is the *micro-averaged* metric of
each sub-corpus, exactly as the board computes it. With ``strata`` (one sub-corpus id per
document), the statistic is the macro-average over sub-corpora of those micro-averages, and
documents are only ever swapped within their own sub-corpus.

Approximate randomization (Noreen 1989; Riezler and Maxwell 2005): under the null hypothesis the
two runs are exchangeable on each document, so swap each document's pair of counts with
probability 1/2, ``samples`` times, and count how often the absolute difference of the statistic
is at least the observed one. p = (hits + 1) / (samples + 1), so identical runs give p = 1 and
p is never 0.

How it is computed (the p-values are those of the plain sampler, sample for sample):

- The swaps depend only on the seed, the samples and the documents (``default_rng(seed)``
  drawn in the sampler's chunks, `_swaps`), not on the runs: they are drawn once per shape
  and reused by every pair of a board (`_cached_plan`), as are the bootstrap's draws
  (`_resample_weights`).
- The statistic's sums are linear in the swaps: a stratum's sums under a sample are its
  observed sums plus the deltas (b - a) of its swapped documents. Each stratum's documents
  are cut in groups of at most `GROUP_BITS`; a sample's swaps of a group are one code (its
  bits), and the sum of the deltas is read from the table of every subset's sum
  (`_subset_sums`). Counts are whole numbers, so these are the same sums as adding them one
  by one (real-valued counts agree to rounding, far inside the 1e-12 tolerance).
- A stratum of one group has at most 2 ** GROUP_BITS swap patterns, fewer than the samples:
  each run's score is computed once per pattern and read per sample (`_score_patterns`).
  The mean over strata is taken as the observed statistic's is.

A sequential stop (Besag and Clifford 1991: stop once the hits reach h, p = h / n) was
weighed for the pairs clearly not significant and not used: it would change the printed
p-values (less precise past the decision), and after the above what remains per pair is the
per-pattern scoring, which an early stop does not save.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

ScoreFunction = Callable[[np.ndarray], np.ndarray]
"""Maps counts of shape (..., k), summed over documents, to scores of shape (...)."""

DEFAULT_SAMPLES = 10_000
DEFAULT_SEED = 2021
ALPHA = 0.05


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den, 0 where den == 0 (the scorer's rule, spec Q22). Divided everywhere, then
    the zero denominators' cells set (twice as fast as a masked division, the same
    numbers)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.divide(num, den, dtype=float)
    zero = den == 0
    if np.ndim(out) == 0:
        return np.asarray(0.0) if zero else out
    if zero.any():
        out[np.broadcast_to(zero, out.shape)] = 0.0
    return out


def _f1(recall: np.ndarray, precision: np.ndarray) -> np.ndarray:
    total = recall + precision
    return _ratio(2 * recall * precision, total)


def prf_f1(counts: np.ndarray) -> np.ndarray:
    """F1 from columns ``p_num, p_den, r_num, r_den`` (one PRCounts).

    >>> float(prf_f1(np.array([1.0, 2.0, 1.0, 1.0])))
    0.6666666666666666
    """
    precision = _ratio(counts[..., 0], counts[..., 1])
    recall = _ratio(counts[..., 2], counts[..., 3])
    return _f1(recall, precision)


def tp_f1(counts: np.ndarray) -> np.ndarray:
    """F1 from columns ``tp, fp, fn`` (one TPCounts)."""
    tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
    return _f1(_ratio(tp, tp + fn), _ratio(tp, tp + fp))


def mean_of(parts: Sequence[tuple[ScoreFunction, int]]) -> ScoreFunction:
    """Mean of several score functions over consecutive column blocks of the given widths.

    The CoNLL score is ``mean_of([(prf_f1, 4)] * 3)`` over MUC, B-cubed and CEAFe counts.
    """

    def score(counts: np.ndarray) -> np.ndarray:
        start = 0
        total: Any = 0.0  # a float, then an array of the counts' leading shape
        for fn, width in parts:
            total = total + fn(counts[..., start : start + width])
            start += width
        return total / len(parts)

    return score


@dataclass(frozen=True, slots=True)
class Comparison:
    """Outcome of one paired test: statistic of each run, their difference and the p-value."""

    score_a: float
    score_b: float
    p_value: float
    samples: int
    seed: int
    documents: int

    @property
    def difference(self) -> float:
        return self.score_a - self.score_b

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA


def _statistic(summed: np.ndarray, score: ScoreFunction) -> np.ndarray:
    """Macro-average over strata (axis -2) of the score of each stratum's summed counts."""
    return score(summed).mean(axis=-1)


def approximate_randomization(
    a: np.ndarray,
    b: np.ndarray,
    *,
    score: ScoreFunction,
    strata: Sequence[int] | np.ndarray | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> Comparison:
    """Two-sided paired approximate randomization test of run ``a`` against run ``b``.

    Parameters
    ----------
    a, b : array of shape (n_documents, k)
        Per-document counts of the two runs, documents in the same order.
    score : callable
        Counts of shape (..., k) summed over documents -> score of shape (...).
    strata : array of shape (n_documents,), optional
        Sub-corpus id of each document; the statistic is the mean over strata of each stratum's
        micro-averaged score. Default: one stratum.
    samples, seed : int
        Number of random swaps and the seed of ``numpy.random.default_rng``; the same inputs,
        samples and seed give the same p-value.

    >>> a = np.array([[1, 1, 1, 1]] * 5, dtype=float)
    >>> approximate_randomization(a, a, score=prf_f1, samples=99).p_value
    1.0
    """
    a, b, stratum_index = _checked_pair(a, b, strata=strata, samples=samples)
    members = _stratum_members(stratum_index)
    sum_a = np.stack([a[docs].sum(axis=0) for docs in members])  # (n_strata, k)
    sum_b = np.stack([b[docs].sum(axis=0) for docs in members])
    score_a = float(_statistic(sum_a, score))
    score_b = float(_statistic(sum_b, score))
    plan = _swap_plan(n_docs=a.shape[0], members=members, samples=samples, seed=seed)
    stat_a, stat_b = _swapped_statistics(b - a, sum_a, sum_b, plan=plan, score=score)
    # Same tolerance as the board's ties: float noise never counts as a difference.
    observed = abs(score_a - score_b)
    hits = int(np.count_nonzero(np.abs(stat_a - stat_b) >= observed - 1e-12))
    return Comparison(
        score_a=score_a,
        score_b=score_b,
        p_value=(hits + 1) / (samples + 1),
        samples=samples,
        seed=seed,
        documents=a.shape[0],
    )


def _checked_pair(a, b, *, strata, samples) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two runs' counts as float arrays and each document's stratum index (0, 1, ...
    in the sorted order of the ids), or a ValueError naming what is wrong."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"a and b must have the same 2-D shape: {a.shape} and {b.shape}")
    if samples < 1:
        raise ValueError(f"samples must be at least 1: {samples}")
    n_docs = a.shape[0]
    strata_ids = np.zeros(n_docs, dtype=int) if strata is None else np.asarray(strata)
    if strata_ids.shape != (n_docs,):
        raise ValueError(f"strata must have one id per document: shape {strata_ids.shape}")
    _, stratum_index = np.unique(strata_ids, return_inverse=True)
    return a, b, stratum_index.reshape(n_docs)


def _stratum_members(stratum_index: np.ndarray) -> list[np.ndarray]:
    """Each stratum's documents (indices, in document order); one empty stratum when there
    are no documents, as a statistic over nothing is the score of zero counts."""
    n_strata = int(stratum_index.max()) + 1 if len(stratum_index) else 1
    return [np.flatnonzero(stratum_index == s) for s in range(n_strata)]


@dataclass(frozen=True, slots=True)
class _SwapPlan:
    """The swaps of one (samples, seed, documents, strata) as codes: per stratum, its
    documents in groups of at most `GROUP_BITS`, and for each group the bits of which of
    its documents each sample swaps (bit j: the group's j-th document)."""

    samples: int
    groups: tuple[tuple[np.ndarray, ...], ...]  # per stratum, its groups' document indices
    codes: tuple[tuple[np.ndarray, ...], ...]  # per stratum, per group: shape (samples,)


GROUP_BITS = 10
"""Documents in one group of the swap codes: a stratum of at most this many documents is
scored once per swap pattern (2 ** GROUP_BITS of them) rather than once per sample."""


def _swaps(*, n_docs: int, samples: int, seed: int) -> np.ndarray:
    """Which documents each sample swaps, shape (samples, n_docs), 0 or 1: the draws of
    ``numpy.random.default_rng(seed)`` in the chunks the sampler has always used (the same
    seed gives the same swaps, and so the same p-values, as before they were reused)."""
    rng = np.random.default_rng(seed)
    chunk = max(1, min(samples, 2_000_000 // max(1, n_docs)))
    parts = []
    done = 0
    while done < samples:
        size = min(chunk, samples - done)
        parts.append(rng.integers(0, 2, size=(size, n_docs)).astype(np.uint8))
        done += size
    return np.concatenate(parts)


@functools.lru_cache(maxsize=8)
def _cached_plan(n_docs: int, samples: int, seed: int, layout: tuple[tuple[int, ...], ...]):
    swaps = _swaps(n_docs=n_docs, samples=samples, seed=seed)
    groups = tuple(
        tuple(
            np.asarray(docs[start : start + GROUP_BITS], dtype=np.intp)
            for start in range(0, max(1, len(docs)), GROUP_BITS)
        )
        for docs in layout
    )
    weights = 1 << np.arange(GROUP_BITS, dtype=np.int64)
    codes = tuple(
        tuple(swaps[:, docs].astype(np.int64) @ weights[: len(docs)] for docs in stratum)
        for stratum in groups
    )
    return _SwapPlan(samples=samples, groups=groups, codes=codes)


def _swap_plan(*, n_docs: int, members: list[np.ndarray], samples: int, seed: int) -> _SwapPlan:
    """The swap codes of these documents and strata, drawn once and reused by every pair of
    the same shape (the swaps depend on the seed, the samples and the documents only)."""
    layout = tuple(tuple(int(d) for d in docs) for docs in members)
    return _cached_plan(n_docs, samples, seed, layout)


def _subset_sums(rows: np.ndarray) -> np.ndarray:
    """The sum of every subset of ``rows`` (m, k), shape (2 ** m, k): entry c is the sum of
    the rows whose bit is set in c."""
    table = np.zeros((1 << len(rows), rows.shape[1]))
    for j, row in enumerate(rows):
        table[1 << j : 2 << j] = table[: 1 << j] + row
    return table


def _swapped_statistics(
    delta: np.ndarray, sum_a: np.ndarray, sum_b: np.ndarray, *, plan: _SwapPlan, score
) -> tuple[np.ndarray, np.ndarray]:
    """The statistic of each run under each sample's swaps, two arrays of shape (samples,).

    A swapped document moves its ``delta`` (b - a) from a's sums to b's, so a stratum's sums
    under a sample are its sums plus the sum of its swapped documents' deltas, read from a
    table of the sums of every subset of a group (`_subset_sums`)."""
    by_stratum_a = np.empty((plan.samples, len(plan.groups)))
    by_stratum_b = np.empty((plan.samples, len(plan.groups)))
    _score_patterns(delta, sum_a, sum_b, plan=plan, score=score, out=(by_stratum_a, by_stratum_b))
    for s, (groups, codes) in enumerate(zip(plan.groups, plan.codes, strict=True)):
        if len(groups) == 1:
            continue
        moved = np.zeros((plan.samples, delta.shape[1]))
        for docs, code in zip(groups, codes, strict=True):
            moved += _subset_sums(delta[docs])[code]
        by_stratum_a[:, s] = score(sum_a[s] + moved)
        by_stratum_b[:, s] = score(sum_b[s] - moved)
    # the mean over strata as `_statistic` takes it: the same numbers as the observed ones'
    return by_stratum_a.mean(axis=-1), by_stratum_b.mean(axis=-1)


def _score_patterns(delta, sum_a, sum_b, *, plan: _SwapPlan, score, out) -> None:
    """The strata of one group (at most `GROUP_BITS` documents): each run's score under every
    swap pattern of the group, computed at once for all of them (2 ** documents patterns a
    stratum, fewer than the samples), then read per sample by its code."""
    single = [s for s, groups in enumerate(plan.groups) if len(groups) == 1]
    if not single:
        return
    tables = [_subset_sums(delta[plan.groups[s][0]]) for s in single]
    padded = np.zeros((len(single), max(len(t) for t in tables), delta.shape[1]))
    for i, table in enumerate(tables):
        padded[i, : len(table)] = table
    scores_a = score(sum_a[single][:, None, :] + padded)  # (strata, patterns)
    scores_b = score(sum_b[single][:, None, :] - padded)
    for i, s in enumerate(single):
        out[0][:, s] = scores_a[i][plan.codes[s][0]]
        out[1][:, s] = scores_b[i][plan.codes[s][0]]


def tied_groups(p_values: Sequence[float], *, alpha: float = ALPHA) -> list[str]:
    """Group markers for ranked entries given the p-value of each adjacent pair.

    ``p_values[i]`` compares entry i with entry i + 1. Adjacent entries whose difference is not
    significant (p >= alpha) share a marker; a significant step starts a new one.

    >>> tied_groups([0.5, 0.01, 0.2])
    ['a', 'a', 'b', 'b']
    """
    markers = ["a"]
    for p in p_values:
        previous = markers[-1]
        markers.append(previous if p >= alpha else _next_marker(previous))
    return markers


def _next_marker(marker: str) -> str:
    """a, b, ..., z, aa, ab, ..."""
    index = 0
    for char in marker:
        index = index * 26 + (ord(char) - 96)
    index += 1
    out = ""
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(97 + rem) + out
    return out


@dataclass(frozen=True, slots=True)
class Interval:
    """A statistic and its bootstrap percentile confidence interval."""

    value: float
    low: float
    high: float
    samples: int
    seed: int
    level: float


def bootstrap_interval(
    counts: np.ndarray,
    *,
    score: ScoreFunction,
    strata: Sequence[int] | np.ndarray | None = None,
    samples: int = 1000,
    seed: int = DEFAULT_SEED,
    level: float = 1 - ALPHA,
) -> Interval:
    """Percentile bootstrap interval of one run's statistic (the macro-average over strata of
    each stratum's micro-averaged score, as `approximate_randomization` defines it).

    Documents are resampled with replacement *within* their stratum (a sub-corpus keeps its
    size, so the macro-average keeps its weights). Draws are made stratum by stratum in the
    sorted order of the strata ids, each as ``rng.integers(0, n_s, size=(samples, n_s))`` of
    one ``numpy.random.default_rng(seed)``: the same inputs and seed give the same interval.
    The bounds are ``numpy.percentile`` (linear) of the resampled statistics at
    ``(1 - level) / 2`` and ``(1 + level) / 2``.

    >>> one = np.array([[1, 2, 1, 2]] * 4, dtype=float)
    >>> i = bootstrap_interval(one, score=prf_f1, samples=50)
    >>> (i.value, i.low, i.high)
    (0.5, 0.5, 0.5)
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        raise ValueError(f"counts must be a non-empty 2-D array: shape {counts.shape}")
    if samples < 1:
        raise ValueError(f"samples must be at least 1: {samples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1: {level}")
    n_docs = counts.shape[0]
    strata_ids = np.zeros(n_docs, dtype=int) if strata is None else np.asarray(strata)
    if strata_ids.shape != (n_docs,):
        raise ValueError(f"strata must have one id per document: shape {strata_ids.shape}")
    members = [counts[strata_ids == stratum] for stratum in np.unique(strata_ids)]
    weights = _resample_weights(tuple(len(rows) for rows in members), samples, seed)
    observed = [rows.sum(axis=0) for rows in members]
    # each sample's sum, (samples, k) a stratum: its draws' multiplicities times the rows.
    # einsum without optimize runs its own loop, not BLAS: BLAS threads on a busy two-core
    # machine made such products 60x slower.
    resampled = [
        np.einsum("im,mk->ik", drawn, rows, optimize=False)
        for drawn, rows in zip(weights, members, strict=True)
    ]
    value = float(_statistic(np.stack(observed), score))
    stats = _statistic(np.stack(resampled, axis=1), score)  # (samples,)
    low, high = np.percentile(stats, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return Interval(
        value=value, low=float(low), high=float(high), samples=samples, seed=seed, level=level
    )


@functools.lru_cache(maxsize=8)
def _resample_weights(sizes: tuple[int, ...], samples: int, seed: int) -> tuple[np.ndarray, ...]:
    """Per stratum of these sizes, how often each bootstrap sample draws each of its
    documents, shape (samples, size): the draws of one ``numpy.random.default_rng(seed)``,
    stratum by stratum, as ``rng.integers(0, size, size=(samples, size))``. They depend on
    the strata's sizes, the samples and the seed only, so every run of a table reuses them."""
    rng = np.random.default_rng(seed)
    out = []
    for size in sizes:
        picks = rng.integers(0, size, size=(samples, size))
        flat = (picks + size * np.arange(samples)[:, None]).ravel()
        drawn = np.bincount(flat, minlength=samples * size).reshape(samples, size)
        out.append(drawn.astype(float))
        out[-1].flags.writeable = False
    return tuple(out)
