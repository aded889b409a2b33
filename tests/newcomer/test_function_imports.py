"""Where the three packages import, read from their syntax trees.

A module imports what it uses at its top, where a reader looks for what it depends on. An import inside a
function is there for a reason the module states once, in its docstring or a comment that says what is
imported inside functions and why: start-up (a heavy or optional module, torch, timm, PIL, scipy, matplotlib,
pandas, pydantic, huggingface_hub, tqdm, that a command which does not need it must not pay for; `agrieval
score` loads none of them), a module that exists on one platform only (``resource``, ``fcntl``), or an import
circle. Such an import stands at the top of the function body, after the docstring, never in the middle of it:

- ``test_no_import_in_the_middle_of_a_function``: the head of a body is its imports, a ``try`` holding only
  imports (an optional module: ``except ImportError``), or an ``if`` choosing between imports;
- ``test_cheap_modules_are_imported_at_the_top``: a standard-library module that ``agrieval score`` loads anyway
  (``CHEAP``, checked against a real run) costs nothing at a module's top, so it is never imported in a function;
- ``test_every_module_with_function_imports_says_why``.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "data_tools", "baselines")
CHEAP = frozenset("""abc ast collections contextlib copy csv dataclasses datetime enum errno functools hashlib heapq io
    itertools json math os pathlib re stat struct sys textwrap time types typing warnings weakref""".split())
# How a module says what it imports inside functions, and why (in its docstring or a comment): "pandas is
# imported inside the functions that use it", "matplotlib is imported only when a figure is drawn".
SAYS_WHY = re.compile(r"imported (only )?(inside|when|where)|imports? inside", re.IGNORECASE)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def sources() -> list[Path]:
    return sorted(p for folder in PACKAGES for p in (REPO / folder).rglob("*.py") if "__pycache__" not in p.parts)


def in_head(statement: ast.stmt) -> bool:
    """An import, or a ``try``/``if`` whose own statements are all imports (what an optional import looks like)."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(statement, ast.Try):
        return bool(statement.body) and all(map(in_head, statement.body + statement.orelse))
    if isinstance(statement, ast.If):
        return all(map(in_head, statement.body + statement.orelse))
    return False


def function_imports(tree: ast.Module):
    """(function, import statement, at the head of its body?) for every import inside a function; an import of
    a nested function is that function's."""
    for function in ast.walk(tree):
        if not isinstance(function, FUNCTIONS):
            continue
        body = function.body
        start = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str) else 0
        head: set[int] = set()
        for statement in body[start:]:
            if not in_head(statement):
                break
            head.update(id(node) for node in ast.walk(statement))
        todo = list(body)
        while todo:
            node = todo.pop()
            if isinstance(node, FUNCTIONS + (ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                yield function, node, id(node) in head
            todo.extend(ast.iter_child_nodes(node))


def imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return ["." * node.level + (node.module or "")]


def mid_body(tree: ast.Module, rel: str) -> list[str]:
    return [f"{rel}:{node.lineno} imports {', '.join(imported(node))} in the middle of {function.name}()"
            for function, node, at_head in function_imports(tree) if not at_head]


def cheap_inside(tree: ast.Module, rel: str) -> list[str]:
    return [f"{rel}:{node.lineno} imports {name} inside {function.name}(): import it at the module's top"
            for function, node, _ in function_imports(tree) for name in imported(node)
            if name.split(".")[0] in CHEAP]


def test_no_import_in_the_middle_of_a_function():
    found = []
    for path in sources():
        found += mid_body(ast.parse(path.read_text(encoding="utf-8")), path.relative_to(REPO).as_posix())
    assert found == []


def test_cheap_modules_are_imported_at_the_top():
    found = []
    for path in sources():
        found += cheap_inside(ast.parse(path.read_text(encoding="utf-8")), path.relative_to(REPO).as_posix())
    assert found == []


def test_every_module_with_function_imports_says_why():
    silent = []
    for path in sources():
        text = path.read_text(encoding="utf-8")
        if any(True for _ in function_imports(ast.parse(text))) and not SAYS_WHY.search(text):
            silent.append(path.relative_to(REPO).as_posix())
    assert silent == [], "say once, in the docstring or a comment, what is imported inside functions and why"


def test_the_cheap_modules_are_those_agrieval_score_loads_anyway():
    """``CHEAP`` holds only what a real ``agrieval score`` run has imported by its end: moving one of them to a
    module's top slows no command."""
    ref = REPO / "reference_submissions" / "plantclef2025"
    code = ("import sys\nfrom agrieval.scoring.cli.main import cli\ntry:\n    cli(sys.argv[1:])\n"
            "except SystemExit:\n    pass\nprint('LOADED', ' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code, "score", str(ref / "submissions" / "partial.csv"), "-s",
                          str(ref / "solution.csv"), "-c", "plantclef2025", "--json"],
                         capture_output=True, text=True, check=True, cwd=REPO).stdout
    loaded = set(out.rsplit("LOADED ", 1)[1].split())
    assert sorted(CHEAP - loaded) == []


PLANTED = '''
import json


def load(path):
    """Read it."""
    import csv
    text = path.read_text()
    from agrieval.scoring.runtime import atomic
    try:
        import torch
    except ImportError:
        torch = None
    return json.loads(text), csv, atomic, torch


def optional():
    try:
        import torch
    except ImportError:
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    return torch, tomllib
'''


def test_the_checks_catch_planted_imports():
    """A mid-body import and a try block after code are found; the same try at the head, an ``if`` between two
    imports and a cheap module's import at the head pass the first check; the cheap one fails the second."""
    tree = ast.parse(PLANTED)
    assert sorted(mid_body(tree, "planted.py")) == [
        "planted.py:11 imports torch in the middle of load()",
        "planted.py:9 imports agrieval.scoring.runtime in the middle of load()",
    ]
    assert cheap_inside(tree, "planted.py") == ["planted.py:7 imports csv inside load(): import it at the module's top"]
