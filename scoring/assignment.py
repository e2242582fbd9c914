"""Kuhn–Munkres, loaded when an assignment is actually solved.

`scipy.optimize` takes about half a second of CPU to import, more than scoring a document;
most documents never need it (CEAF solves 1x1 components directly, the mention alignments
only run under partial or head matching, and a matrix whose rows each have a strictly best
cell in a column of its own has that choice as its only optimum), so it is imported on the
first call that needs it, not with the scorer. A Celery worker imports it before it forks
(tasks/scoring.py).

Matrices of up to `PYTHON_CELLS` cells (nearly all: CEAF's overlap components and the split
antecedent alignments of a document are a few entities wide) are solved here, in Python, by
the algorithm scipy runs (`_shortest_augmenting_paths`, a line-by-line port of scipy's
``rectangular_lsap.cpp``: the same operations in the same order, so the same assignment,
ties included; tests compare the two). A run then never imports scipy unless a matrix is
large, and a one-document run costs no more than the import of the scorer.
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
    if matrix.size <= PYTHON_CELLS:
        rows, cols = _shortest_augmenting_paths(matrix.ravel().tolist(), *matrix.shape,
                                                maximize)
        return np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp)
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


PYTHON_CELLS = 40_000
"""The largest matrix solved in Python (a 200 x 200 one takes 10-50 ms of CPU, importing scipy
about 300); larger ones go to scipy."""


def _shortest_augmenting_paths(cost: list[float], nr: int, nc: int, maximize: bool
                               ) -> tuple[list[int], list[int]]:
    """scipy's ``linear_sum_assignment`` on a row-major ``nr`` x ``nc`` matrix: Crouse's
    shortest augmenting path algorithm as scipy 1.x writes it (rectangular_lsap.cpp), step for
    step, so ties are broken as scipy breaks them. The matrix must hold finite numbers."""
    if nr == 0 or nc == 0:
        return [], []
    transpose = nc < nr
    if transpose:
        cost = [cost[i * nc + j] for j in range(nc) for i in range(nr)]
        nr, nc = nc, nr
    if maximize:
        cost = [-value for value in cost]
    inf = float("inf")
    u = [0.0] * nr
    v = [0.0] * nc
    path = [-1] * nc
    col4row = [-1] * nr
    row4col = [-1] * nc
    for current in range(nr):
        # the shortest augmenting path from row `current`
        min_val = 0.0
        remaining = list(range(nc - 1, -1, -1))  # reversed, as scipy fills it
        shortest = [inf] * nc
        row_seen = [False] * nr
        col_seen = [False] * nc
        i = current
        sink = -1
        while sink == -1:
            index = -1
            lowest = inf
            row_seen[i] = True
            base = i * nc
            u_i = u[i]
            for it in range(len(remaining)):
                j = remaining[it]
                r = min_val + cost[base + j] - u_i - v[j]
                if r < shortest[j]:
                    path[j] = i
                    shortest[j] = r
                if shortest[j] < lowest or (shortest[j] == lowest and row4col[j] == -1):
                    lowest = shortest[j]
                    index = it
            min_val = lowest
            if min_val == inf:
                raise ValueError("cost matrix is infeasible")
            j = remaining[index]
            if row4col[j] == -1:
                sink = j
            else:
                i = row4col[j]
            col_seen[j] = True
            remaining[index] = remaining[-1]
            remaining.pop()
        # update the dual variables
        u[current] += min_val
        for i in range(nr):
            if row_seen[i] and i != current:
                u[i] += min_val - shortest[col4row[i]]
        for j in range(nc):
            if col_seen[j]:
                v[j] -= min_val - shortest[j]
        # augment the previous solution
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == current:
                break
    if transpose:
        order = sorted(range(nr), key=col4row.__getitem__)
        return [col4row[v] for v in order], order
    return list(range(nr)), col4row
