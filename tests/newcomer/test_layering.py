"""The layering rule of docs/development.md, read from every import statement of the three packages.

| package                | may import                                                                           |
|------------------------|--------------------------------------------------------------------------------------|
| ``scoring/runtime/``   | the standard library, numpy and itself, by relative imports only                     |
| ``scoring/text/``      | the standard library (matplotlib inside ``plot``'s functions)                        |
| ``scoring/`` (the rest)| the runtime, numpy, pandas, pydantic, click; scipy and matplotlib inside functions   |
| ``data_tools/``        | ``scoring``, PIL, imagehash, pillow-heif, numpy, pandas; never torch                 |
| ``baselines/``         | ``scoring``, ``data_tools``, torch, timm                                              |

``scoring`` never imports ``data_tools`` or ``baselines``, nor torch or PIL, not even inside a function: that is
what lets ``agrieval score`` start fast and the grading runtime run on a platform that holds numpy alone. No two
modules import each other, directly or around a circle, function-level imports included
(``test_no_import_circle``). The runtime's import list under each platform interpreter is checked by
``tests/scoring/runtime/test_portable_runtime.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {"scoring": "agrieval.scoring", "data_tools": "agrieval.data_tools", "baselines": "agrieval.baselines"}
GPU_STACK = ("torch", "torchvision", "timm")
IMAGES = ("PIL", "imagehash", "pillow_heif")


def module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    parts[0] = PACKAGES[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[str, bool, int, int]]:
    """(imported module, at module level?, line, relative level) for every import statement of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((alias.name, top, child.lineno, 0) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[:len(package) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module
                found.append((target, top, child.lineno, child.level))
            visit(child, inner)

    visit(tree, True)
    return found


def files(folder: str) -> list[Path]:
    return sorted(p for p in (REPO / folder).rglob("*.py") if "__pycache__" not in p.parts)


def under(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def broken(folder: str, rule) -> list[str]:
    out = []
    for path in files(folder):
        for target, top, line, level in imports(path):
            why = rule(path.relative_to(REPO).as_posix(), target, top, level)
            if why:
                out.append(f"{path.relative_to(REPO)}:{line} imports {target}: {why}")
    return out


def test_scoring_never_imports_the_other_packages_nor_the_gpu_and_image_stack():
    def rule(rel, target, top, level):
        if under(target, ("agrieval.data_tools", "agrieval.baselines", "data_tools", "baselines")):
            return "the scoring core imports neither data_tools nor baselines"
        if under(target, GPU_STACK + IMAGES):
            return "the scoring core never imports torch or PIL"
        return None

    assert broken("scoring", rule) == []


def test_the_runtime_imports_only_itself_by_relative_imports_numpy_and_the_standard_library():
    def rule(rel, target, top, level):
        if rel.startswith("scoring/runtime/") and under(target, ("agrieval", "scoring")) and not level:
            return "the runtime imports itself by relative imports only (bundles copy it as agrieval_runtime)"
        if rel.startswith("scoring/runtime/") and under(target, ("pandas", "pydantic", "click", "scipy",
                                                                "matplotlib", "sklearn")):
            if (rel, target) not in {("scoring/runtime/_platforms/kaggle.py", "pandas")}:
                return "the runtime is numpy only"
        return None

    assert broken("scoring", rule) == []


def test_the_scoring_side_imports_scipy_and_matplotlib_only_inside_the_functions_that_use_them():
    def rule(rel, target, top, level):
        if top and under(target, ("scipy", "matplotlib", "sklearn")):
            return "imported at module level: importing the module would cost every command that imports it"
        if rel.startswith("scoring/text/") and top and under(target, ("numpy", "pandas", "pydantic", "click")):
            return "scoring/text is standard library only"
        return None

    assert broken("scoring", rule) == []


# The one exception, named: ``_cpu_identity`` asks torch, where it is installed, for the processor's vector
# capability (``ImportError``: left out), for the CTV fidelity check's golden losses. It belongs with the
# baselines (its only callers are scripts/fidelity/agri_script.py and the baselines' tests).
DATA_TOOLS_TORCH = {("data_tools/versions.py", "torch")}


def test_data_tools_never_imports_the_baselines_nor_torch():
    def rule(rel, target, top, level):
        if (rel, target) in DATA_TOOLS_TORCH and not top:
            return None
        if under(target, ("agrieval.baselines", "baselines") + GPU_STACK):
            return "data_tools runs where torch is not installed, and baselines build on it, not the reverse"
        return None

    assert broken("data_tools", rule) == []


@pytest.mark.parametrize("folder", sorted(PACKAGES))
def test_every_import_of_the_kit_uses_the_agrieval_namespace(folder):
    def rule(rel, target, top, level):
        if not level and under(target, tuple(PACKAGES)):
            return f"import it as agrieval.{target} (nothing of the kit is installed at the top level)"
        return None

    assert broken(folder, rule) == []


def test_the_rule_sees_what_it_must():
    """The reader of import statements on one file of each kind: relative, nested and module-level imports."""
    found = {(t, top) for t, top, _, _ in imports(REPO / "scoring" / "runtime" / "metrics" / "multilabel.py")}
    assert ("agrieval.scoring.runtime.labelsets", True) in found
    nested = {(t, top) for t, top, _, _ in imports(REPO / "scoring" / "writing" / "figures.py")}
    assert ("matplotlib", False) in nested and ("agrieval.scoring.runtime.atomic", True) in nested


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the three packages it imports, at module level or inside a function.

    ``from package import name`` counts as an import of ``package.name`` when that is a module; a package's
    ``__init__`` importing its own submodules, and a module importing the package it lies in, are left out (Python
    runs the package's ``__init__`` first either way)."""
    paths = [p for folder in PACKAGES for p in files(folder)]
    known = {module_name(p) for p in paths}
    graph = {}
    for path in paths:
        here = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                named.setdefault(node.lineno, []).extend(alias.name for alias in node.names)
        deps = set()
        for target, _top, line, _level in imports(path):
            for name in [target] + [f"{target}.{n}" for n in named.get(line, ())]:
                while name and name not in known:
                    name = name.rpartition(".")[0]
                if name and name != here and not here.startswith(name + ".") \
                        and not (path.name == "__init__.py" and name.startswith(here + ".")):
                    deps.add(name)
        graph[here] = deps
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every set of two or more modules that import one another around a circle (Tarjan's strongly connected
    components, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_no_import_circle():
    graph = import_graph()
    assert sum(len(deps) for deps in graph.values()) > len(graph), "the reader of imports found too few imports"
    assert circles(graph) == []


def test_the_circle_check_finds_a_planted_circle():
    """One import planted against a real one (the labelsets importing the metric that imports them) is found, with
    the modules on its way."""
    graph = import_graph()
    metric, labelsets = "agrieval.scoring.runtime.metrics.multilabel", "agrieval.scoring.runtime.labelsets"
    assert labelsets in graph[metric]
    graph[labelsets] = graph[labelsets] | {metric}
    assert circles(graph) == [sorted({metric, labelsets})]
    longer = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert circles(longer) == [["a", "b", "c"]]


def package_of(module: str, packages: set[str]) -> str:
    """The innermost package of ``packages`` that holds ``module`` (a package's own ``__init__`` is in it)."""
    while module not in packages:
        module = module.rpartition(".")[0]
    return module


def package_graph() -> dict[str, set[str]]:
    """Package -> the packages its modules import (a package and the packages inside it are apart: the server's
    package may import the leaderboard's, not both ways)."""
    graph = import_graph()
    packages = {module_name(p) for folder in PACKAGES for p in files(folder) if p.name == "__init__.py"}
    out: dict[str, set[str]] = {p: set() for p in packages}
    for module, deps in graph.items():
        here = package_of(module, packages)
        for dep in deps:
            there = package_of(dep, packages)
            # (a package's modules reach its subpackages and its parent's names: that is nesting, not a circle)
            if there != here and not there.startswith(here + ".") and not here.startswith(there + "."):
                out[here].add(there)
    return out


def test_no_package_circle():
    """Packages import one another one way only (issue 58 found ``ctv`` <-> ``leaderboard``; the own server's
    package and the leaderboard's were the last pair)."""
    graph = package_graph()
    assert "agrieval.scoring.leaderboard" in graph["agrieval.scoring._server"]
    assert circles(graph) == []


def test_the_package_circle_check_finds_a_planted_one():
    graph = package_graph()
    graph["agrieval.scoring.leaderboard"] = graph["agrieval.scoring.leaderboard"] | {"agrieval.scoring._server"}
    assert ["agrieval.scoring._server", "agrieval.scoring.leaderboard"] in circles(graph)
