"""The compiled assignment solver (scoring/native/_assign.c) against scipy and numpy.

It must return the optimum scipy's ``linear_sum_assignment`` returns, the same indices and
not merely the same total, and `assigned_sum` must be the double numpy's ``sum`` gives: then
every CEAF similarity, split alignment and partial/head mention alignment is what it was with
scipy. Random matrices full of ties (small integers, a few fractions) test the tie rules,
where a different but equally good optimum would show.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as reference

from scoring import assignment
from scoring.native import _assign as native  # built by `make venv`


def random_matrix(rng: random.Random, max_rows: int, max_cols: int) -> np.ndarray:
    rows, cols = rng.randint(0, max_rows), rng.randint(0, max_cols)
    kind = rng.random()
    if kind < 0.4:
        cells = [float(rng.randint(0, 3)) for _ in range(rows * cols)]
    elif kind < 0.7:
        cells = [
            rng.choice((0.0, 0.0, 2 / 3, 0.5, 0.4, 1.0, 2 / 7, 1 / 3)) for _ in range(rows * cols)
        ]
    else:
        cells = [rng.uniform(-1, 1) for _ in range(rows * cols)]
    return np.array(cells, dtype=float).reshape(rows, cols)


def scipys(matrix: np.ndarray, maximize: bool) -> tuple[list[int], list[int], float]:
    rows, cols = reference(matrix, maximize=maximize)
    return rows.tolist(), cols.tolist(), float(matrix[rows, cols].sum())


@pytest.mark.parametrize("seed", range(4))
def test_the_same_optimum_and_the_same_sum_as_scipy_and_numpy(seed):
    rng = random.Random(seed)
    for _ in range(2000):
        matrix = random_matrix(rng, 8, 8)
        flat = matrix.ravel().tolist()
        for maximize in (True, False):
            rows, cols, total = scipys(matrix, maximize)
            assert native.solve(flat, *matrix.shape, maximize) == (rows, cols), matrix
            assert native.assigned_sum(flat, *matrix.shape, maximize) == total, matrix


def test_large_matrices_too():
    rng = random.Random(5)
    for _ in range(40):
        matrix = random_matrix(rng, 70, 70)
        flat = matrix.ravel().tolist()
        rows, cols, total = scipys(matrix, True)
        assert native.solve(flat, *matrix.shape, True) == (rows, cols)
        assert native.assigned_sum(flat, *matrix.shape, True) == total


@pytest.mark.parametrize(
    "size", [*range(1, 40), 63, 64, 65, 127, 128, 129, 130, 255, 256, 257, 300, 513]
)
def test_the_sum_adds_as_numpy_adds(size):
    """numpy's pairwise summation gives other doubles than a plain left-to-right sum from
    eight values on; a matrix whose optimum is its diagonal sums exactly those values."""
    rng = random.Random(size)
    diagonal = [1 + rng.random() * 10 ** rng.randint(-4, 4) for _ in range(size)]
    matrix = np.diag(diagonal)
    assert native.solve(matrix.ravel().tolist(), size, size, True)[1] == list(range(size))
    total = native.assigned_sum(matrix.ravel().tolist(), size, size, True)
    assert total == float(np.array(diagonal).sum())


def test_those_sums_would_differ_added_left_to_right():
    """So the test above tells numpy's order from the plain one."""
    differ = 0
    for size in range(9, 300):
        rng = random.Random(size)
        diagonal = [1 + rng.random() * 10 ** rng.randint(-4, 4) for _ in range(size)]
        differ += float(np.array(diagonal).sum()) != sum(diagonal, 0.0)
    assert differ > 100


def test_the_scorers_entry_points_give_the_same_with_and_without_the_compiled_solver(monkeypatch):
    rng = random.Random(9)
    matrices = [random_matrix(rng, 7, 7) for _ in range(500)]
    compiled = [
        (
            assignment.linear_sum_assignment(m.ravel().tolist(), *m.shape, True),
            assignment.assigned_sum(m.ravel().tolist(), *m.shape, True),
        )
        for m in matrices
    ]
    monkeypatch.setattr(assignment, "_solve", None)
    monkeypatch.setattr(assignment, "_assigned_sum", None)
    python = [
        (
            assignment.linear_sum_assignment(m.ravel().tolist(), *m.shape, True),
            assignment.assigned_sum(m.ravel().tolist(), *m.shape, True),
        )
        for m in matrices
    ]
    assert compiled == python


def test_ints_are_taken_as_floats_as_numpy_takes_them():
    assert native.solve([1, 0, 0, 1], 2, 2, True) == ([0, 1], [0, 1])
    assert native.assigned_sum([3, 1, 1, 2], 2, 2, True) == 5.0


@pytest.mark.parametrize(
    "values, shape, maximize, message",
    [
        ([1.0, 2.0, 3.0], (2, 2), False, "expected 4 costs"),
        ([float("nan"), 1.0], (1, 2), False, "invalid numeric entries"),
        ([float("inf"), 1.0], (1, 2), True, "invalid numeric entries"),
        ([float("-inf"), 1.0], (1, 2), False, "invalid numeric entries"),
        ([float("inf"), float("inf")], (1, 2), False, "infeasible"),
        ([1.0], (-1, 1), False, "negative size"),
    ],
)
def test_bad_matrices_are_refused_as_scipy_refuses_them(values, shape, maximize, message):
    for call in (native.solve, native.assigned_sum):
        with pytest.raises(ValueError, match=message):
            call(values, *shape, maximize)
    if shape[0] >= 0 and len(values) == shape[0] * shape[1]:
        with pytest.raises(ValueError):
            reference(np.array(values).reshape(shape), maximize=maximize)


def test_cells_that_are_not_numbers_are_refused():
    with pytest.raises(TypeError):
        native.solve(["1", 0.0], 1, 2)
    with pytest.raises(TypeError):
        native.solve(3, 1, 1)


def test_empty_matrices():
    for shape in ((0, 0), (0, 3), (3, 0)):
        assert native.solve([], *shape) == ([], [])
        assert native.assigned_sum([], *shape) == 0.0
