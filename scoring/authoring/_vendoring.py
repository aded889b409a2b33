"""Copy the grading runtime into a platform bundle: as a package folder, or inside one Python file.

The runtime (``scoring/runtime/``) imports nothing outside itself, so it can be
copied under another name (``agrieval_runtime``) without a change. Platforms
that take a folder get the package as files; platforms that take one file
(Hugging Face ``metric.py``, a Kaggle metric notebook or utility script) get
the sources embedded in that file, loaded by a small import hook
(``_EMBED_LOADER``), so nothing has to be installed or downloaded there.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import agrieval.scoring.runtime as _runtime

RUNTIME_DIR = Path(_runtime.__file__).resolve().parent
PACKAGE = "agrieval_runtime"


def runtime_sources() -> dict[str, str]:
    """``relative/path.py`` -> source, for every module of the runtime (sorted; shipped definitions left out:
    a bundle carries its own frozen definition)."""
    out = {}
    for path in sorted(RUNTIME_DIR.rglob("*.py")):
        rel = path.relative_to(RUNTIME_DIR)
        if "__pycache__" in rel.parts:
            continue
        out[rel.as_posix()] = path.read_text(encoding="utf-8")
    return out


def runtime_digest() -> str:
    """sha256 over the runtime's sources: which runtime a bundle carries (printed in its README)."""
    h = hashlib.sha256()
    for rel, src in runtime_sources().items():
        h.update(rel.encode() + b"\0" + src.encode() + b"\0")
    return h.hexdigest()[:16]


def package_files() -> dict[str, bytes]:
    """The runtime as files of a package folder named ``agrieval_runtime``."""
    return {f"{PACKAGE}/{rel}": src.encode("utf-8") for rel, src in runtime_sources().items()}


_EMBED_LOADER = '''
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys


class _EmbeddedRuntime(_abc.MetaPathFinder, _abc.Loader):
    """Imports ``{package}`` from the sources embedded in this file (no install, no download)."""

    def __init__(self, sources):
        self.sources = sources

    def _key(self, fullname):
        if fullname == "{package}":
            return "__init__.py"
        if not fullname.startswith("{package}."):
            return None
        rel = fullname[len("{package}."):].replace(".", "/")
        if rel + "/__init__.py" in self.sources:
            return rel + "/__init__.py"
        if rel + ".py" in self.sources:
            return rel + ".py"
        return None

    def find_spec(self, fullname, path=None, target=None):
        key = self._key(fullname)
        if key is None:
            return None
        is_package = key.endswith("__init__.py")
        spec = _util.spec_from_loader(fullname, self, origin="<embedded>/{package}/" + key, is_package=is_package)
        spec.has_location = False
        return spec

    def create_module(self, spec):
        return None

    def get_source(self, fullname):
        return self.sources[self._key(fullname)]

    def exec_module(self, module):
        key = self._key(module.__name__)
        module.__file__ = "<embedded>/{package}/" + key
        code = compile(self.sources[key], module.__file__, "exec", dont_inherit=True)
        exec(code, module.__dict__)


if not any(isinstance(f, _EmbeddedRuntime) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _EmbeddedRuntime(_RUNTIME_SOURCES))
'''


def embedded_runtime() -> str:
    """Python source that defines ``_RUNTIME_SOURCES`` and makes ``import agrieval_runtime`` load from it."""
    lines = ["_RUNTIME_SOURCES = {"]
    lines += [f"    {rel!r}: {src!r}," for rel, src in runtime_sources().items()]
    lines.append("}")
    return "\n".join(lines) + "\n" + _EMBED_LOADER.replace("{package}", PACKAGE)
