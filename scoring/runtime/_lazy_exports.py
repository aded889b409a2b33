"""A package's public names, imported when first used (PEP 562), for the packages whose start-up needs it.

A lazy package's ``__init__`` imports its public names under ``if TYPE_CHECKING:`` (so mypy, pyright and IDEs
see the real definitions), lists them in ``__all__``, and ends with
``__getattr__, __dir__ = lazy_exports(__name__)``. ``exported`` reads those import statements from the
package's own source, once, on the first look-up: that is the name -> module map, and there is no second
list to keep (``tests/newcomer/test_public_surface.py`` checks it equals ``__all__``). Standard library only,
and nothing of the package: ``agrieval bundle`` copies this file with the runtime, whose loaders (a folder, or
the sources embedded in one file) both give a package's source.
"""

from __future__ import annotations

import ast
import importlib
import sys
from typing import Callable, Dict, List, Optional, Tuple


def exported(package: str) -> Dict[str, Tuple[str, Optional[str]]]:
    """``public name -> (module, attribute)`` from the ``if TYPE_CHECKING:`` imports of ``package``'s
    ``__init__`` (``attribute`` None: the public name is that submodule itself). Relative imports
    (``from .guard import grade``, ``from . import metrics``) and absolute ones under the package both count."""
    module = sys.modules[package]
    source = module.__spec__.loader.get_source(package)  # type: ignore[union-attr]
    out: Dict[str, Tuple[str, Optional[str]]] = {}
    for node in ast.parse(source or "").body:
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if not ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
                or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom):
                continue
            base = statement.module or ""
            if statement.level == 1:
                where = base
            elif statement.level == 0 and (base == package or base.startswith(package + ".")):
                where = base[len(package) + 1:]
            else:
                continue  # (an import for annotations only, from elsewhere)
            for alias in statement.names:
                public = alias.asname or alias.name
                out[public] = (alias.name, None) if not where else (where, alias.name)
    return out


def lazy_exports(package: str) -> Tuple[Callable[[str], object], Callable[[], List[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` (its ``__name__``): the first ``package.name`` or ``from
    package import name`` imports the module that ``name``'s ``if TYPE_CHECKING:`` import names."""
    homes: Dict[str, Tuple[str, Optional[str]]] = {}

    def table() -> Dict[str, Tuple[str, Optional[str]]]:
        if not homes:
            homes.update(exported(package))
        return homes

    def __getattr__(name: str) -> object:
        if name.startswith("__"):  # (dunder probes of inspect and copy: no source to read for them)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        home = table().get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        where, attribute = home
        module = importlib.import_module(f"{package}.{where}")
        value = module if attribute is None else getattr(module, attribute)
        setattr(sys.modules[package], name, value)  # found once: the next look-up is a plain attribute
        return value

    def __dir__() -> List[str]:
        return sorted(set(vars(sys.modules[package])) | set(table()))

    return __getattr__, __dir__
