"""A package's public names, imported when first used (PEP 562), so that importing a package costs nothing.

Each package's ``__init__`` names its public names in ``__all__`` and, in ``_HOME``, the module of the
package that defines each one (a public module maps to itself). ``lazy_exports`` gives it the module-level
``__getattr__`` and ``__dir__`` that import that module on the first ``package.name`` or ``from package
import name``: ``agrieval score`` imports no more than before, and the grading runtime stays numpy-only.
Standard library only, and nothing of the package: ``agrieval bundle`` copies this file with the runtime.
"""

from __future__ import annotations

import importlib
import sys
from typing import Callable, Dict, List, Tuple


def lazy_exports(package: str, homes: Dict[str, str]) -> Tuple[Callable[[str], object], Callable[[], List[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` (its ``__name__``), whose public name ``n`` is defined in its
    module ``homes[n]`` (``homes[n] == n``: the public name is that module itself)."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{home}")
        value = module if home == name else getattr(module, name)
        setattr(sys.modules[package], name, value)  # found once: the next look-up is a plain attribute
        return value

    def __dir__() -> List[str]:
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__
