"""Compiled steps of the scorer, built by `make venv` through setup.py: `_speedups` (the
compact reader), `_exploded` (the exploded reader), `_tables` (the metrics' counts of a
table without accommodated sets, `scoring.metrics.plain`) and `_assign` (the assignment
solver, `scoring.assignment`).

A package of its own, which imports nothing, so that an import of a compiled module is an
edge to this package and never to `scoring` itself (whose `__init__` imports the readers).
Each step has a Python twin that gives the same results (tests/scoring/test_speedups.py,
test_exploded_native.py, test_plain_counts.py; scipy's solver for test_assign_native.py);
the scorer uses the twin where the module is not built.
"""
