"""The worked examples in the public metrics' docstrings run as doctests, under every interpreter of
``.ci/interpreters`` too (numpy alone: what a grading platform has). The numbers they show are checked
against scikit-learn in ``tests/scoring/runtime/metrics/test_examples_against_sklearn.py``."""

from __future__ import annotations

import doctest
import importlib

import pytest

from agrieval.scoring.runtime.metrics import multiclass, multilabel

PUBLIC_RUNTIME_PACKAGES = ("agrieval.scoring.runtime", "agrieval.scoring.runtime.reading",
                           "agrieval.scoring.runtime.metrics")


@pytest.mark.parametrize("module", [multilabel, multiclass], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_public_metric_has_a_worked_example_and_it_holds(module):
    tests = {t.name.rsplit(".", 1)[-1]: t for t in doctest.DocTestFinder().find(module) if t.examples}
    without = [name for name in module.__all__ if name not in tests]
    assert not without, f"{module.__name__}: no worked example in the docstring of {without}"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests.values():
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} failed example(s) in {module.__name__} (printed above)"


@pytest.mark.parametrize("package", PUBLIC_RUNTIME_PACKAGES)
def test_the_runtime_public_names_resolve_on_this_interpreter(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None
