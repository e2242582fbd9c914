"""No start-up tax: importing the scorer loads neither numpy nor scipy (the compiled solver
solves assignments; without it scipy's is loaded on the first assignment actually solved,
`scoring.assignment`) nor the process machinery (a run forks only for large inputs,
`scoring.runner`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AMI = "fixtures/data/codi-crac21/AMI_test_partial.ES2004a.CONLLUA"
AMI_BASELINE = "fixtures/baselines/codi-crac21/heuristic-gold/AMI.CONLLUA"
WATCHED = ("numpy", "scipy", "multiprocessing", "concurrent.futures")


def loaded_after(code: str) -> dict[str, bool]:
    """Which of `WATCHED` a fresh interpreter has imported after running ``code``."""
    code += f"\nprint(*(name in sys.modules for name in {WATCHED!r}))"
    done = subprocess.run(
        [sys.executable, "-c", "import sys\n" + code], capture_output=True, text=True, cwd=ROOT
    )
    return dict(zip(WATCHED, (word == "True" for word in done.stdout.split()), strict=True))


def loaded_by_a_run(key: str, response: str, *options: str) -> dict[str, bool]:
    return loaded_after(
        "import io, contextlib\n"
        "from scoring.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({[key, response, *options]!r})"
    )


def test_importing_the_scorer_loads_no_scipy_and_no_process_machinery():
    assert loaded_after("import scoring, scoring.cli") == dict.fromkeys(WATCHED, False)


def test_a_one_document_run_with_no_assignment_to_solve_loads_none_of_them():
    assert loaded_by_a_run(AMI, AMI, "remove_split_antecedent") == dict.fromkeys(WATCHED, False)


def run_solving_assignments(setup: str) -> list[str]:
    """The AMI baseline against its key, one process, after ``setup``: its split antecedents
    are aligned by Kuhn–Munkres (and it has CEAF components of many entities). Prints how
    many assignments `scoring.assignment` solved, and whether scipy's solver,
    ``scipy.optimize``, numpy and the process machinery were loaded."""
    code = (
        "import io, contextlib\n"
        "from scoring.cli import main\n"
        "from scoring import assignment\n"
        f"{setup}\n"
        "solved = []\n"
        "def counting(solve):\n"
        "    def counted(*args, **kw):\n"
        "        solved.append(1)\n"
        "        return solve(*args, **kw)\n"
        "    return counted\n"
        "if assignment._solve is not None:\n"
        "    assignment._solve = counting(assignment._solve)\n"
        "else:\n"
        "    assignment._python_solve = counting(assignment._python_solve)\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({[AMI, AMI_BASELINE]!r})\n"
        "print(len(solved), assignment._SOLVE is not None, 'scipy.optimize' in sys.modules,"
        " 'numpy' in sys.modules, 'multiprocessing' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import sys\n" + code], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_a_run_that_solves_assignments_with_the_compiled_solver_loads_no_numpy_or_scipy():
    solved, *loaded = run_solving_assignments("")
    assert int(solved) > 0
    assert loaded == ["False", "False", "False", "False"]


def test_without_the_compiled_steps_a_run_loads_scipys_solver_not_scipy_optimize():
    """scipy's compiled Kuhn–Munkres is loaded from its module file, without the
    ``scipy.optimize`` package (most of a one-document run's CPU before)."""
    solved, *loaded = run_solving_assignments(
        "from scoring.metrics import plain\n"
        "plain._plain_counts = plain._set_counts = None\n"
        "assignment._solve = assignment._assigned_sum = None"
    )
    assert int(solved) > 0
    assert loaded == ["True", "False", "True", "False"]


def test_a_run_in_two_processes_loads_no_process_machinery(tmp_path):
    """The halves and the early scan are forks of their own (`scoring.forked`), not a process
    pool: the run imports neither ``multiprocessing`` nor ``concurrent.futures``."""
    from bench.corpus import Shape, write_pair

    key, response = write_pair(tmp_path, Shape(documents=12, tokens=100, mentions=10))
    code = (
        "import io, contextlib\n"
        "from scoring import runner\n"
        "from scoring.cli import main\n"
        "runner.PARALLEL_DOCUMENTS = 2\n"
        "runner.EARLY_SCAN_BYTES = 0\n"
        "cuts = []\n"
        "halves = runner.halves\n"
        "runner.halves = lambda pairing: cuts.append(halves(pairing)) or cuts[-1]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({[str(key), str(response)]!r})\n"
        "print(cuts[-1] is not None, 'multiprocessing' in sys.modules, "
        "'concurrent.futures' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import sys\n" + code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "UA_SCORER_PROCESSES": "2"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False", "False"]


def threads_after_import(environment: dict[str, str]) -> int:
    """The threads of a fresh interpreter after ``import scoring`` then numpy (OpenBLAS
    starts its own at numpy's import; the scorer loads numpy only where the assignment solver
    is not compiled, the platform for its significance tests)."""
    code = "import scoring, numpy, os\nprint(len(os.listdir('/proc/self/task')))"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**env, **environment},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout)


def test_numpy_starts_no_blas_threads_unless_told_to():
    """OpenBLAS would start a spinning thread per core at numpy's import (about 0.1 s of CPU
    per process, and nothing here does linear algebra that needs them): `scoring` asks for
    one (the main thread) before numpy loads, and leaves a caller's own setting alone."""
    assert threads_after_import({}) == 1
    assert threads_after_import({"OPENBLAS_NUM_THREADS": "2"}) == min(2, os.cpu_count() or 1)
