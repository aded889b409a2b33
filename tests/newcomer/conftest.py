"""A fresh clone and a scoring-only venv (``pip install -e .``, no extras), built once per session."""

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from .clone import REPO, copy_tracked


@pytest.fixture(scope="session")
def fresh_clone(tmp_path_factory) -> Path:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the git checkout to list what a clone holds")
    return copy_tracked(tmp_path_factory.mktemp("clone"))


@pytest.fixture(scope="session")
def another_clone(tmp_path_factory):
    """another_clone(): one more fresh clone, for a test whose outputs must not meet another's.

    It sits in a folder with nothing beside it, as a user's clone does.
    """
    def make() -> Path:
        base = tmp_path_factory.mktemp("checkout")
        clone = base / "agrieval"
        clone.mkdir()
        return copy_tracked(clone)

    return make


@pytest.fixture(scope="session")
def scoring_venv(tmp_path_factory, fresh_clone) -> Path:
    """bin/ of a venv holding the scoring install only, as `make demo` makes it (about 12 s, 340 MB)."""
    root = tmp_path_factory.mktemp("venv-scoring")
    venv.create(root, with_pip=True)
    bin_dir = root / "bin"
    done = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "-c",
                           str(fresh_clone / "constraints.txt"), "-e", str(fresh_clone)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    # make's second install line: the path entry static analysers follow (scripts/static_editable.py)
    done = subprocess.run([str(bin_dir / "python"), str(fresh_clone / "scripts" / "static_editable.py")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    return bin_dir


@pytest.fixture(scope="session")
def env_with():
    """env_with(bin_dir): this environment with ``bin_dir`` first on PATH, as after ``. .venv/bin/activate``."""
    return base_env


def base_env(bin_dir: Path | None = None) -> dict:
    import os

    # A newcomer's shell: no PYTHONPATH or venv of ours, and none of make's own variables (under `make test`
    # a pasted `make ...` would otherwise run as a sub-make and print "make[1]: Entering directory").
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PATH"] = f"{bin_dir or Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env
