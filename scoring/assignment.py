"""Kuhn–Munkres, loaded when an assignment is actually solved.

`scipy.optimize` takes about half a second of CPU to import, more than scoring a document;
most documents never need it (CEAF solves 1x1 components directly, the mention alignments
only run under partial or head matching, and a matrix whose rows each have a strictly best
cell in a column of its own has that choice as its only optimum), so it is imported on the
first call that needs it, not with the scorer. A Celery worker imports it before it forks
(tasks/scoring.py).
"""

from __future__ import annotations

import numpy as np


def linear_sum_assignment(matrix: np.ndarray, maximize: bool = False
                          ) -> tuple[np.ndarray, np.ndarray]:
    """`scipy.optimize.linear_sum_assignment`: row and column indices of an optimal
    one-to-one assignment (minimal total cost, or maximal with ``maximize``), rows in
    increasing order.

    When every row's best cell is strictly better than the rest of its row and no two rows
    share that column, taking them is the only optimum (any other assignment gives up a
    row's best for something worse): it is returned without solving, as the same indices
    scipy returns.
    """
    found = _only_optimum(matrix, maximize)
    if found is not None:
        return found
    from scipy.optimize import linear_sum_assignment as solve

    return solve(matrix, maximize=maximize)


def _only_optimum(matrix: np.ndarray, maximize: bool
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    rows, cols = matrix.shape
    if rows == 0 or rows > cols:
        return None
    values = -matrix if maximize else matrix
    best = values.argmin(axis=1)
    if len(set(best.tolist())) != rows:
        return None  # two rows want one column: a real choice
    chosen = values[np.arange(rows), best]
    if ((values == chosen[:, None]).sum(axis=1) != 1).any():
        return None  # a tie within a row: the solver's choice, not ours
    return np.arange(rows), best
