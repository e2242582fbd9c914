"""Where the tests' data are: all inside the repository, each folder with its SOURCE.md.

Test vectors with the reference scorers' numbers are in ``tests/data/`` (the conformance pack,
the CorefUD scorer's own test cases); the real corpora, which the demo and its baselines use
too, are in ``fixtures/data/``. Nothing is read from beside the repository.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEST_DATA = REPO / "tests" / "data"
CONFORMANCE = TEST_DATA / "conformance"
COREFUD_TESTS = TEST_DATA / "corefud-scorer-tests"
CORPORA = REPO / "fixtures" / "data"
CODI21 = CORPORA / "codi-crac21"
CODI22 = CORPORA / "codi-crac22"
GUM = CORPORA / "gum-compact-samples"
