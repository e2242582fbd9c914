"""The scorer's C steps (scoring/native/*.c: the compact scan and mentions, the exploded token
lines, the metrics' counts, the assignment solver), built with the machine's C compiler and
Python headers. Each is optional: where one does not build (no compiler, no headers), the
install goes on and the scorer runs that step's Python twin, with the same numbers
(scoring/native/__init__.py)."""

from setuptools import Extension, setup

HEADERS = ["scoring/native/text.h", "scoring/native/lsap.h"]

setup(
    ext_modules=[
        Extension(
            f"scoring.native.{name}",
            [f"scoring/native/{name}.c"],
            depends=HEADERS,
            extra_compile_args=["-O2"],
            optional=True,
        )
        for name in ("_speedups", "_exploded", "_tables", "_assign")
    ]
)
