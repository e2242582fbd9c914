"""No start-up tax: importing the scorer loads neither scipy (small assignments are solved in
Python, `scoring.assignment`) nor the process machinery (a run forks only for large inputs,
`scoring.runner`). numpy is part of the scorer and loads with it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scoring import runner


def test_importing_the_scorer_loads_no_scipy_or_process_machinery():
    code = ("import sys, scoring, scoring.cli\n"
            "print(*(name in sys.modules for name in ('scipy', 'multiprocessing',\n"
            "                                          'concurrent.futures')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["False"] * 3, done.stderr


@pytest.mark.parametrize("name", ["ProcessPoolExecutor", "BrokenProcessPool", "get_context"])
def test_the_runner_still_offers_the_process_machinery(name):
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    expected = {"ProcessPoolExecutor": ProcessPoolExecutor,
                "BrokenProcessPool": BrokenProcessPool, "get_context": get_context}[name]
    assert getattr(runner, name) is expected
    with pytest.raises(AttributeError):
        runner.no_such_thing  # noqa: B018
