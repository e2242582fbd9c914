"""The one compiled part: `scoring.native._speedups`, two steps of the compact reader in C.

Everything else is declared in pyproject.toml. `make venv` builds the extension in place
(``python setup.py build_ext --inplace``) with the C compiler and Python headers a fresh
machine has; where it is not built, `scoring.readers.compact` runs the same steps in Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("scoring.native._speedups", ["scoring/native/_speedups.c"],
                             extra_compile_args=["-O2"])])
