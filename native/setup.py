"""The one compiled module of agrieval-native (pyproject.toml holds the rest)."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("agrieval_native._reader", ["agrieval_native/_reader.c"],
                             extra_compile_args=["-O2"])])
