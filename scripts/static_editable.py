"""Make this checkout's editable install one that static analysers follow (mypy, pyright, IDEs).

    .venv/bin/python scripts/static_editable.py     # after `pip install -e .`; `make demo` / `make test` run it

setuptools' editable install of a package-dir layout (``agrieval.scoring`` -> ``scoring/``) is an import hook
that analysers do not run. This adds a plain path entry beside it: ``<venv>/agrieval-src/agrieval/`` holds one
folder link per entry of pyproject's ``[tool.setuptools.package-dir]`` (``scoring -> <checkout>/scoring``), and
``agrieval-src.pth`` in site-packages names that folder. Links to folders, not to files: a module added to the
checkout is importable at once, without reinstalling. Python then finds ``agrieval.*`` through that entry before
the hook, so ``__file__`` reads ``<venv>/agrieval-src/agrieval/scoring/...`` (``Path.resolve()`` gives the
checkout's file). Rerunning replaces only the links it made; the checkout is never written.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
NAMESPACE = "agrieval"
PTH_NAME = "agrieval-src.pth"


def package_dirs(repo: Path) -> dict:
    """``{"scoring": <repo>/scoring, ...}``: the folders pyproject maps under the ``agrieval`` namespace."""
    mapping = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    out = {}
    for name, folder in sorted(mapping.items()):
        top, _, sub = name.partition(".")
        if top != NAMESPACE or not sub or "." in sub:
            raise SystemExit(f"error: pyproject package-dir {name!r} is not agrieval.<folder>: this script links only those")
        out[sub] = (repo / folder).resolve()
    return out


def link_tree(venv: Path, repo: Path) -> Path:
    """Write ``<venv>/agrieval-src/agrieval/<name> -> <repo>/<folder>`` and return ``<venv>/agrieval-src``."""
    root = venv / "agrieval-src"
    ns = root / NAMESPACE
    ns.mkdir(parents=True, exist_ok=True)
    for name, target in package_dirs(repo).items():
        link = ns / name
        if link.is_symlink():
            link.unlink()
        elif link.exists():
            raise SystemExit(f"error: {link} exists and is not a link: move it away and rerun")
        link.symlink_to(target, target_is_directory=True)
    return root


def main() -> int:
    if sys.prefix == sys.base_prefix:
        raise SystemExit("error: run this with the virtual environment's python (.venv/bin/python)")
    root = link_tree(Path(sys.prefix), REPO)
    pth = Path(sysconfig.get_paths()["purelib"]) / PTH_NAME
    tmp = pth.with_name(pth.name + ".tmp")
    tmp.write_text(str(root) + "\n")
    os.replace(tmp, pth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
