"""The one compiled part: `scoring._speedups` (the compact reader's token-line scan in C).

Everything else is declared in pyproject.toml. `make venv` builds the extension in place
(``python setup.py build_ext --inplace``) with the C compiler and Python headers a fresh
machine has; where it is not built, `scoring.readers.compact` runs the same scan in Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("scoring._speedups", ["scoring/_speedups.c"],
                             extra_compile_args=["-O2"])])
