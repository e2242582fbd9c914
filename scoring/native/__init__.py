"""Compiled helpers of the readers (`_speedups`, built by `make venv` through setup.py).

A package of its own, which imports nothing, so that the readers' import of the compiled
module is an edge to this package and never to `scoring` itself (whose `__init__` imports
the readers). Each helper has a Python twin that gives the same results
(tests/scoring/test_speedups.py); the readers use the twin where the module is not built.
"""
