"""Kuhn–Munkres: the optimal one-to-one assignment of a matrix, compiled or scipy's.

The scorer solves assignments for CEAF's components of more than one entity per side, for
the alignment of split antecedents and under partial or head matching. A matrix is given row
by row as one flat list of floats (``values[i * n_cols + j]``).

Where `scoring.native._assign` is built (`make venv`), it solves them: the same algorithm as
scipy's ``linear_sum_assignment``, step for step, so the same optimum, and `assigned_sum`
adds the chosen cells as numpy's ``sum`` does, so the same double
(tests/scoring/test_assign_native.py). A run then loads neither numpy nor scipy.

Where it is not built, scipy's solver does, loaded on the first call that needs it. Most
documents never do (CEAF solves 1x1 components directly, and a matrix whose rows each have a
strictly best cell in a column of its own has that choice as its only optimum). Importing
``scipy.optimize`` runs the whole package, all of scipy's optimizers: 0.6-1.0 s of CPU, more
than scoring a document. `solver` loads the compiled module ``scipy.optimize._lsap``, whose
``linear_sum_assignment`` is the same object, from its file without running that package
(about 0.04 s), and falls back to the public import wherever that does not work (another
scipy layout).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
from collections.abc import Callable
from typing import Any

try:
    from scoring.native._assign import assigned_sum as _native_assigned_sum
    from scoring.native._assign import solve as _native_solve
except ImportError:  # not built: numpy and scipy solve
    _native_solve = _native_assigned_sum = None
_solve: Callable[[list[float], int, int, bool], tuple[list[int], list[int]]] | None = _native_solve
_assigned_sum: Callable[[list[float], int, int, bool], float] | None = _native_assigned_sum

_SOLVE: Callable[..., Any] | None = None


def linear_sum_assignment(
    values: list[float], n_rows: int, n_cols: int, maximize: bool = False
) -> tuple[list[int], list[int]]:
    """Row and column indices of an optimal one-to-one assignment of the matrix (minimal
    total cost, or maximal with ``maximize``), rows in increasing order: those of
    `scipy.optimize.linear_sum_assignment`."""
    if _solve is not None:
        return _solve(values, n_rows, n_cols, maximize)
    rows, cols = _python_solve(values, n_rows, n_cols, maximize)[1:]
    return rows.tolist(), cols.tolist()


def assigned_sum(values: list[float], n_rows: int, n_cols: int, maximize: bool = False) -> float:
    """The total of the cells `linear_sum_assignment` chooses, as ``matrix[rows,
    cols].sum()`` in numpy adds them."""
    if _assigned_sum is not None:
        return _assigned_sum(values, n_rows, n_cols, maximize)
    matrix, rows, cols = _python_solve(values, n_rows, n_cols, maximize)
    return float(matrix[rows, cols].sum())


def solver() -> Callable[..., Any]:
    """scipy's ``linear_sum_assignment``, loaded once (see the module's docstring)."""
    global _SOLVE
    if _SOLVE is None:
        try:
            _SOLVE = _compiled_solver()
        except Exception:  # another scipy layout: its public import, slower to load
            from scipy.optimize import linear_sum_assignment

            _SOLVE = linear_sum_assignment
    return _SOLVE


def preload() -> None:
    """Load what the first assignment would load: nothing when it is compiled, else scipy's
    solver (a Celery worker calls this before it forks its children)."""
    if _solve is None:
        solver()


def _compiled_solver() -> Callable[..., Any]:
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
    found = importlib.util.spec_from_file_location(name, path, loader=loader)
    if found is None:
        raise ImportError(f"{path} cannot be loaded")
    module = importlib.util.module_from_spec(found)
    loader.exec_module(module)
    solve: Callable[..., Any] = module.linear_sum_assignment
    if not callable(solve):
        raise ImportError("scipy's _lsap module has no linear_sum_assignment")
    return solve


def _python_solve(
    values: list[float], n_rows: int, n_cols: int, maximize: bool
) -> tuple[Any, Any, Any]:
    """The matrix as a numpy array and scipy's optimum of it (the uncompiled path)."""
    import numpy as np

    matrix = np.array(values, dtype=float).reshape(n_rows, n_cols)
    found = _only_optimum(matrix, maximize)
    if found is None:
        found = solver()(matrix, maximize=maximize)
    return matrix, found[0], found[1]


def _only_optimum(matrix: Any, maximize: bool) -> tuple[Any, Any] | None:
    """When every row's best cell is strictly better than the rest of its row and no two
    rows share that column, taking them is the only optimum (any other assignment gives up a
    row's best for something worse): the same indices scipy returns, without loading it."""
    import numpy as np

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
