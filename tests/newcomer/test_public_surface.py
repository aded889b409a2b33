"""The public surface, derived from the code: ``__all__`` is each package's one list, and internal is read from the name.

A package's module (or subpackage) whose name starts with ``_`` is internal: free to change, listed nowhere. One
without it is public: a public subpackage or module named in its package's ``__all__``, or the home of public
names of that ``__all__`` (scikit-learn's convention). Here: every public name resolves to a thing defined in a
public module of its package and has its own docstring; a public name never shadows a submodule; a lazy
package (one whose start-up needs it: ``scoring/runtime/_lazy_exports.py``) imports exactly ``__all__`` under
``if TYPE_CHECKING:`` and importing it imports none of its modules; an eager one has no ``__getattr__``; and
``docs/scoring_api.md`` lists exactly the public names of the scoring packages.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOTS = {"agrieval.scoring": REPO / "scoring", "agrieval.data_tools": REPO / "data_tools",
         "agrieval.baselines": REPO / "baselines"}
API_PAGE = REPO / "docs" / "scoring_api.md"


def children(folder: Path) -> set[str]:
    """The modules and subpackages of the package in ``folder``, as git would ship them."""
    out = {p.stem for p in folder.glob("*.py") if p.name != "__init__.py"}
    return out | {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def public_packages() -> dict[str, Path]:
    """The roots and, below them, every subpackage whose name has no leading underscore."""
    found, todo = {}, list(ROOTS.items())
    while todo:
        name, folder = todo.pop()
        found[name] = folder
        todo += [(f"{name}.{c}", folder / c) for c in children(folder)
                 if not c.startswith("_") and (folder / c / "__init__.py").is_file()]
    return dict(sorted(found.items()))


PACKAGES = public_packages()
LAZY = {name for name in PACKAGES if "__getattr__" in vars(importlib.import_module(name))}


def lazy_exports_module():
    return importlib.import_module("agrieval.scoring.runtime._lazy_exports")


def test_the_public_packages_are_the_ones_the_docs_name():
    assert sorted(PACKAGES) == [
        "agrieval.baselines", "agrieval.baselines.ctv", "agrieval.baselines.plantclef", "agrieval.data_tools",
        "agrieval.scoring", "agrieval.scoring.analysis_input", "agrieval.scoring.audit", "agrieval.scoring.authoring",
        "agrieval.scoring.cli", "agrieval.scoring.ctv", "agrieval.scoring.leaderboard", "agrieval.scoring.runtime",
        "agrieval.scoring.runtime.metrics", "agrieval.scoring.runtime.reading", "agrieval.scoring.text",
        "agrieval.scoring.writing"]


def home_of(package, public: str) -> str | None:
    """The module of ``package`` that defines ``public`` (a submodule: itself), or None."""
    value = getattr(package, public)
    if inspect.ismodule(value):
        return value.__name__
    if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__.startswith(package.__name__ + "."):
        return value.__module__
    for child in sorted(children(Path(package.__file__).resolve().parent)):
        source = Path(package.__file__).resolve().parent / f"{child}.py"
        if source.is_file() and public in defined_names(source):
            return f"{package.__name__}.{child}"
    return None


def defined_names(source: Path) -> set[str]:
    """The names a module's top level binds by definition or assignment (not by import)."""
    out = set()
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_public_name_lives_in_a_public_module_of_its_package(name):
    package = importlib.import_module(name)
    assert len(set(package.__all__)) == len(package.__all__), f"{name}: a name twice in __all__"
    assert set(package.__all__) <= set(dir(package))
    for public in package.__all__:
        if public == "__version__":
            continue
        home = home_of(package, public)
        assert home is not None, f"{name}.{public} is not defined in a module of {name}"
        child = home[len(name) + 1:].split(".")[0]
        assert not child.startswith("_"), f"{name}.{public} lives in the internal module {home}: rename it"
        if not inspect.ismodule(getattr(package, public)):
            assert public not in children(PACKAGES[name]), (
                f"{name}.{public} is both a public name and a submodule: importing the submodule would replace it")
    with pytest.raises(AttributeError):
        getattr(package, "no_such_name")


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_a_module_without_an_underscore_holds_public_names(name):
    """Internal is read from the name: a module or subpackage without ``_`` is public, or the home of public
    names; everything else carries the underscore."""
    package = importlib.import_module(name)
    homes = {home_of(package, p) for p in package.__all__ if p != "__version__"}
    homes = {h[len(name) + 1:].split(".")[0] for h in homes if h}
    plain = {c for c in children(PACKAGES[name]) if not c.startswith("_")}
    assert plain <= homes, f"{name}: {sorted(plain - homes)} hold no public name: underscore them"


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_a_package_keeps_one_list(name):
    """``__all__`` and nothing else: no map beside it, no list of names in the docstring."""
    package = importlib.import_module(name)
    assert not {"_HOME", "_INTERNAL"} & set(vars(package)), f"{name}: __all__ is the one list"
    assert not re.search(r"^(Public|Internal)\b", package.__doc__ or "", re.M), f"{name}: a list in the docstring"


@pytest.mark.parametrize("name", sorted(LAZY))
def test_a_lazy_package_imports_exactly_its_public_names_for_type_checkers(name):
    """The ``if TYPE_CHECKING:`` imports are the lazy map (mypy and IDEs read them): they name ``__all__``."""
    package = importlib.import_module(name)
    lazy = lazy_exports_module().exported(name)
    assert set(lazy) == set(package.__all__) - {"__version__"}, f"{name}: the TYPE_CHECKING imports differ from __all__"
    for public, (module, attribute) in lazy.items():
        target = importlib.import_module(f"{name}.{module}")
        assert getattr(package, public) is (target if attribute is None else getattr(target, attribute))


@pytest.mark.parametrize("name", sorted(set(PACKAGES) - LAZY))
def test_an_eager_package_imports_its_names_plainly(name):
    package = importlib.import_module(name)
    assert "__dir__" not in vars(package) and all(p in vars(package) for p in package.__all__)


PENDING: set = set()  # packages whose public modules' helpers still lack the underscore


def pending(test: str) -> list:
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=f"{n}: {test}, not yet done"))
            if n in PENDING else n for n in sorted(PACKAGES)]


@pytest.mark.parametrize("name", pending("helpers underscored"))
def test_a_public_modules_helpers_carry_the_underscore(name):
    """What a public module defines for itself alone is internal, so named ``_...``: a top-level name outside its
    package's ``__all__`` and its own ``__all__`` (what it offers the kit's other modules) that no other module
    of the kit names."""
    package = importlib.import_module(name)
    folder = PACKAGES[name]
    loose = []
    for child in sorted(children(folder)):
        source = folder / f"{child}.py"
        if child.startswith("_") or not source.is_file() or child in package.__all__:
            continue  # (a public module keeps its own ``__all__``: metrics.multilabel, text.markdown)
        offered = module_all(source)
        loose += [f"{child}.{n}" for n in sorted(defined_names(source))
                  if not n.startswith("_") and n not in package.__all__ and n not in offered
                  and not named_elsewhere(n, source)]
    assert not loose, f"{name}: helpers of public modules without an underscore: {loose}"


def module_all(source: Path) -> set[str]:
    """A module's own ``__all__``."""
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


@functools.lru_cache(maxsize=None)
def _product_sources() -> tuple[tuple[Path, str], ...]:
    return tuple((p, p.read_text(encoding="utf-8")) for root in ROOTS.values() for p in sorted(root.rglob("*.py")))


def named_elsewhere(name: str, source: Path) -> bool:
    """Whether a module of the kit other than ``source`` names ``name`` (a whole word)."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    return any(p != source and word.search(text) for p, text in _product_sources())


def test_named_elsewhere_reads_the_other_modules_of_the_kit():
    """A name no module defines is named nowhere; OutputPlan, defined in policy.py, is named by many."""
    module = ROOTS["agrieval.scoring"] / "writing" / "policy.py"
    assert not named_elsewhere("no_such_helper_anywhere", module)
    assert named_elsewhere("OutputPlan", module)  # defined in policy.py, used across the kit


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_public_function_and_class_has_its_own_docstring(name):
    """What ``help()`` shows of a public name is written for it: not missing, not inherited, not the signature a
    dataclass makes up."""
    package = importlib.import_module(name)
    bare = []
    for public in package.__all__:
        value = getattr(package, public)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        doc = (vars(value).get("__doc__") if inspect.isclass(value) else value.__doc__) or ""
        if not doc.strip() or doc.startswith(f"{value.__name__}("):
            bare.append(public)
    assert not bare, f"{name}: public names without a docstring: {bare}"


def test_importing_the_lazy_packages_imports_none_of_their_modules():
    code = ("import json, sys\n"
            f"for name in {sorted(LAZY)!r}:\n    __import__(name)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('agrieval')"
            " or m.split('.')[0] in ('numpy', 'pandas', 'pydantic', 'scipy', 'torch', 'PIL', 'click'))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                       cwd=REPO).stdout)
    assert set(loaded) == LAZY | {"agrieval", lazy_exports_module().__name__}


def test_a_package_module_for_a_public_name_in_another_package_is_loaded_on_first_use():
    code = ("import sys\nfrom agrieval.scoring.runtime import grade\n"
            "print('agrieval.scoring.runtime.guard' in sys.modules, 'agrieval.scoring.runtime._ladder' in sys.modules,"
            " 'pandas' in sys.modules, 'pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.split() == ["True", "False", "False", "False"]


def api_page_imports() -> dict[str, list[str]]:
    """package -> the names the page's code block imports from it (``from agrieval... import a, b``)."""
    out: dict[str, list[str]] = {}
    text = API_PAGE.read_text(encoding="utf-8")
    for module, names in re.findall(r"^from (agrieval[\w.]*) import ([^#\n]+)", text, re.M):
        out.setdefault(module, []).extend(n.strip() for n in names.split(","))
    return out


def test_the_api_page_imports_exactly_the_public_names_of_the_scoring_packages():
    shown = api_page_imports()
    scoring = {n: importlib.import_module(n) for n in PACKAGES if n.startswith("agrieval.scoring")}
    assert set(shown) <= set(scoring), f"the page imports from {sorted(set(shown) - set(scoring))}: not a package"
    for name, package in scoring.items():
        public = [n for n in package.__all__ if n != "__version__" and f"{name}.{n}" not in scoring]
        assert sorted(shown.get(name, [])) == sorted(public), (
            f"docs/scoring_api.md and {name}.__all__ differ: only on the page "
            f"{sorted(set(shown.get(name, [])) - set(public))}, only in __all__ {sorted(set(public) - set(shown.get(name, [])))}")


def test_the_api_page_imports_run():
    code = "\n".join(f"from {module} import {', '.join(names)}" for module, names in api_page_imports().items())
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
