"""Per-document counts of scored runs, and the paired significance test over them.

The counts stored with each per-document score row are read back by the scorer's own
`scoring.counts_vector` (the code that wrote them decides their form); which F1 a vector
gives is decided here from the metric's `CountsKind`. CoNLL has no counts of its own: it is
the mean of the MUC, B³ and CEAFe F1s, so its vector concatenates theirs.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from django.db.models import TextField
from django.db.models.functions import Cast

from competition.models import Score
from leaderboard import significance
from scoring import counts_vector
from scoring.vocabulary import CONLL, CONLL_PARTS, CountsKind, counts_kind

PR_LENGTH = 4  # p_num, p_den, r_num, r_den
TP_LENGTH = 3  # tp, fp, fn


def score_function(metric: str) -> significance.ScoreFunction | None:
    """The F1 of a count vector of ``metric`` (None for a metric without counts)."""
    if metric == CONLL:
        return significance.mean_of([(significance.prf_f1, PR_LENGTH)] * len(CONLL_PARTS))
    kind = counts_kind(metric)
    if kind is CountsKind.PR:
        return significance.prf_f1
    if kind is CountsKind.PR_PAIR:
        return significance.mean_of([(significance.prf_f1, PR_LENGTH)] * 2)
    if kind is CountsKind.TP:
        return significance.tp_f1
    return None


def document_counts(
    *,
    submission_ids: Sequence[int],
    mode: str,
    metric: str,
    run_ids: Sequence[int] | None = None,
) -> tuple[dict[int, dict[tuple[str, str], list[float]]], significance.ScoreFunction] | None:
    """Per-document count vectors of each submission, keyed by (sub-corpus slug, document),
    and the function that turns a summed vector into F1. None when the metric has no counts
    or none are stored. ``run_ids``: read these scoring runs (a frozen board's, kept however
    often its runs are scored again) instead of each submission's current one."""
    score = score_function(metric)
    if score is None:
        return None
    parts = CONLL_PARTS if metric == CONLL else (metric,)
    chosen = (
        Score.objects.filter(run_id__in=list(run_ids))
        if run_ids is not None
        else Score.objects.filter(run__is_current=True)
    )
    # One query a submission: given several submissions and several metrics, SQLite's
    # planner takes the (metric, mode) index and reads every run's rows of the metric (seconds
    # at thousands of runs); one submission's (submission, mode) rows are few.
    rows = itertools.chain.from_iterable(
        chosen.filter(submission_id=sid, mode=mode, metric__in=parts)
        .exclude(document="")
        .order_by()  # any order: the rows are keyed below
        # the stored JSON as text, decoded below in one call (a decoder call per row cost
        # more than the query at a thousand runs)
        .annotate(counts_text=Cast("counts", TextField()))
        .values_list("submission_id", "subcorpus__slug", "document", "metric", "counts_text")
        for sid in sorted(set(submission_ids))
    )
    raw: dict[int, dict[tuple[str, str], dict[str, object]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for (sid, slug, document, m), counts in _decoded(rows):
        raw[sid][(slug, document)][m] = counts
    out: dict[int, dict[tuple[str, str], list[float]]] = {}
    found = False
    for sid, docs in raw.items():
        out[sid] = {}
        for key, by_metric in docs.items():
            if any(m not in by_metric for m in parts):
                continue
            vectors = [counts_vector(m, by_metric[m]) for m in parts]
            if any(vector is None for vector in vectors):
                return None
            out[sid][key] = [x for vector in vectors if vector is not None for x in vector]
            found = True
    if not found:
        return None
    return out, score


def _decoded(rows) -> zip:
    """(the row's other values, its counts decoded) for rows ending in their counts as
    JSON text."""
    rows = list(rows)
    texts = [row[-1] or "{}" for row in rows]
    return zip((row[:-1] for row in rows), json.loads("[" + ",".join(texts) + "]"), strict=True)


def compare_counts(
    a: dict[tuple[str, str], list[float]],
    b: dict[tuple[str, str], list[float]],
    *,
    score: significance.ScoreFunction,
    subcorpora: Sequence[str],
    samples: int,
    seed: int,
) -> significance.Comparison | None:
    """Stratified test over the documents both runs have in the given sub-corpora."""
    keys = sorted(k for k in a.keys() & b.keys() if k[0] in set(subcorpora))
    if not keys or {k[0] for k in keys} != set(subcorpora):
        return None
    strata = [subcorpora.index(k[0]) for k in keys]
    return significance.approximate_randomization(
        np.array([a[k] for k in keys]),
        np.array([b[k] for k in keys]),
        score=score,
        strata=strata,
        samples=samples,
        seed=seed,
    )
