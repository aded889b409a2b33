"""The compiled modules of agrieval-native, one C file each (pyproject.toml holds the rest)."""
from setuptools import Extension, setup

setup(ext_modules=[Extension(f"agrieval_native.{name}", [f"agrieval_native/{name}.c"], extra_compile_args=["-O2"])
                   for name in ("_reader", "_cells", "_labelsets")])
