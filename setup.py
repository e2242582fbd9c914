from setuptools import Extension, setup

setup(ext_modules=[Extension(f"scoring.native.{name}", [f"scoring/native/{name}.c"],
                             depends=["scoring/native/text.h"], extra_compile_args=["-O2"])
                   for name in ("_speedups", "_exploded", "_tables", "_assign")])
