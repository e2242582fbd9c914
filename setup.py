from setuptools import Extension, setup

HEADERS = ["scoring/native/text.h", "scoring/native/lsap.h"]

setup(ext_modules=[Extension(f"scoring.native.{name}", [f"scoring/native/{name}.c"],
                             depends=HEADERS, extra_compile_args=["-O2"])
                   for name in ("_speedups", "_exploded", "_tables", "_assign")])
