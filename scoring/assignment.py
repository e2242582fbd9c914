"""Kuhn–Munkres: scipy's solver, loaded when an assignment is actually solved.

Most documents never need it (CEAF solves 1x1 components directly, the mention alignments
only run under partial or head matching, and a matrix whose rows each have a strictly best
cell in a column of its own has that choice as its only optimum), so it is loaded on the
first call that needs it, not with the scorer.

`scipy.optimize.linear_sum_assignment` is a function of scipy's compiled module
``scipy.optimize._lsap``, the same object. Importing it the usual way first runs the
``scipy.optimize`` package, which loads all of scipy's optimizers: 0.6-1.0 s of CPU, more
than scoring a document and most of a one-document command line. `solver` loads the compiled
module from its file without running that package (about 0.04 s), and falls back to the
public import wherever that does not work (another scipy layout). A Celery worker loads it
before it forks (tasks/scoring.py).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
from collections.abc import Callable

import numpy as np

_SOLVE: Callable | None = None


def solver() -> Callable:
    """scipy's ``linear_sum_assignment``, loaded once (see the module's docstring)."""
    global _SOLVE
    if _SOLVE is None:
        try:
            _SOLVE = _compiled_solver()
        except Exception:  # another scipy layout: its public import, slower to load
            from scipy.optimize import linear_sum_assignment

            _SOLVE = linear_sum_assignment
    return _SOLVE


def _compiled_solver() -> Callable:
    """``linear_sum_assignment`` of scipy's compiled ``_lsap`` module, loaded from its file."""
    spec = importlib.util.find_spec("scipy")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("scipy is not installed")
    folder = os.path.join(spec.submodule_search_locations[0], "optimize")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, "_lsap" + suffix)
        if os.path.isfile(path):
            break
    else:
        raise ImportError(f"no compiled _lsap module in {folder}")
    name = "scipy.optimize._lsap"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_file_location(name, path, loader=loader))
    loader.exec_module(module)
    solve = module.linear_sum_assignment
    if not callable(solve):
        raise ImportError("scipy's _lsap module has no linear_sum_assignment")
    return solve


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
    return solver()(matrix, maximize=maximize)


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
