"""A fresh clone and a scoring-only venv (`make demo`'s: ``pip install -e .``, no extras), built once per session."""

import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from .clone import REPO, copy_tracked, git_snapshot, left_in_tree


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


class DemoClone(NamedTuple):
    path: Path
    make: subprocess.CompletedProcess  # `make demo`'s
    left_in_tree: str  # `git status --porcelain` right after it


@pytest.fixture(scope="session")
def demo_clone(another_clone) -> DemoClone:
    """A fresh clone (a git checkout of itself) in which `make demo` ran: its .venv holds the scoring install
    only (about 12 s quiet, 340 MB). One venv for the `make demo` test and the partial-install tests."""
    clone = another_clone()
    git_snapshot(clone)
    out = subprocess.run(["make", "demo"], cwd=clone, env=base_env(None), capture_output=True, text=True,
                         timeout=900)
    return DemoClone(clone, out, left_in_tree(clone))


@pytest.fixture(scope="session")
def scoring_venv(demo_clone) -> Path:
    """bin/ of a venv holding the scoring install only, as `make demo` makes it (it is `make demo`'s)."""
    assert demo_clone.make.returncode == 0, demo_clone.make.stderr[-3000:]
    return demo_clone.path / ".venv" / "bin"


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
