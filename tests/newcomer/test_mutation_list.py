"""scripts/mutation_check.py plants each of its mistakes by finding an exact snippet in a file: a snippet that
no longer occurs (the code moved) would plant nothing and be reported as a survivor, or worse, as killed by an
unrelated failure. This reads the files only; the mutation run itself is slow and stays out of the suite
(docs/development.md says how to run it)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("mutation_check", REPO / "scripts" / "mutation_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


def test_every_mutation_can_be_planted_as_written():
    script = _script()
    assert len(script.MUTATIONS) >= 30
    assert script.snippet_problems() == []


def test_a_snippet_that_moved_is_reported():
    script = _script()
    moved = script.Mutation("moved", "scoring/text/literals.py", "no such snippet", "x", ("tests/newcomer",), "")
    assert script.snippet_problems([moved]) == ["moved: its snippet occurs 0 times in scoring/text/literals.py, not once"]
