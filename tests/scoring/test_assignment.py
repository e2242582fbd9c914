"""The Python Kuhn–Munkres (`scoring.assignment`) returns scipy's assignment, ties included:
the split-antecedent and mention alignments use the assignment itself, not only its total."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as scipy_solve

from scoring import assignment
from scoring.assignment import _shortest_augmenting_paths, linear_sum_assignment


def matrices(seed: int, count: int):
    """Small matrices full of ties (0/1 cells, a few fractions, constants) and random ones,
    wide, tall and square."""
    rng = random.Random(seed)
    for n in range(count):
        rows, cols = rng.randint(1, 9), rng.randint(1, 9)
        kind = n % 4
        if kind == 0:
            cells = [[float(rng.randint(0, 2)) for _ in range(cols)] for _ in range(rows)]
        elif kind == 1:
            cells = [[rng.choice([0.0, 0.5, 1 / 3, 2 / 3, 1.0]) for _ in range(cols)]
                     for _ in range(rows)]
        elif kind == 2:
            cells = [[rng.random() for _ in range(cols)] for _ in range(rows)]
        else:
            cells = [[0.0] * cols for _ in range(rows)]
        yield np.array(cells)


@pytest.mark.parametrize("maximize", [False, True])
def test_the_python_solver_gives_scipys_assignment_ties_included(maximize):
    for matrix in matrices(7, 3000):
        rows, cols = _shortest_augmenting_paths(matrix.ravel().tolist(), *matrix.shape,
                                                maximize)
        expected = scipy_solve(matrix, maximize=maximize)
        assert (rows, cols) == (expected[0].tolist(), expected[1].tolist()), matrix


def test_large_matrices_go_to_scipy_with_the_same_result(monkeypatch):
    matrix = np.kron(np.eye(30), np.array([[1.0, 1.0], [1.0, 0.0]]))
    small = linear_sum_assignment(matrix, maximize=True)
    monkeypatch.setattr(assignment, "PYTHON_CELLS", 0)
    large = linear_sum_assignment(matrix, maximize=True)
    assert [a.tolist() for a in small] == [a.tolist() for a in large]


def test_a_run_with_assignments_to_solve_does_not_import_scipy():
    """The AMI baseline needs Kuhn–Munkres (CEAF components of 81 x 56 entities): solved in
    Python, scipy stays unloaded."""
    root = Path(__file__).resolve().parents[2]
    code = ("import sys, io, contextlib\n"
            "from scoring.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['fixtures/data/codi-crac21/AMI_test_partial.ES2004a.CONLLUA',\n"
            "          'fixtures/baselines/codi-crac21/heuristic-gold/AMI.CONLLUA'])\n"
            "print('scipy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=root)
    assert done.stdout.split() == ["False"], done.stderr
