"""A fresh clone as a newcomer gets one: the tracked files only, copied from this checkout.

One definition for the tests (``conftest.fresh_clone``, ``another_clone``) and for
scripts/regen_docs_outputs.py, which runs the docs' commands in such a copy.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

__all__ = ["copy_tracked", "git_snapshot", "left_in_tree", "link_platform_venvs", "platform_links"]


def copy_tracked(dest: Path) -> Path:
    """Copy what a fresh clone holds into ``dest``: the tracked files (as in the working tree), never the
    outputs that commands left in this checkout, ignored or not."""
    listed = subprocess.run(["git", "ls-files", "--cached", "-z"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = REPO / name
        if src.is_file() and not src.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def git_snapshot(clone: Path) -> None:
    """Make the copy a git checkout of what it holds, so `git status --porcelain` shows what commands add."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "clone"]):
        subprocess.run(git + args, cwd=clone, check=True, capture_output=True)


def left_in_tree(clone: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True,
                          check=True).stdout


def link_platform_venvs(clone: Path) -> None:
    """Let the clone see the platform venvs this checkout built (`make platform-venvs`, which `make test` runs
    first): the clone's make target then finds them complete and only prints their paths. Git ignores the link."""
    platforms = REPO / ".venv-platforms"
    if platforms.is_dir():
        (clone / ".venv-platforms").symlink_to(platforms)


def platform_links() -> dict:
    """Where each platform venv's ``agrieval/scoring`` link points: a clone that borrows the venvs must leave
    them pointing at this checkout (scripts/platform_venvs.sh does not relink borrowed venvs)."""
    import os

    return {str(link): os.readlink(link) for link in sorted(REPO.glob(".venv-platforms/*/lib/python3*/site-packages/"
                                                                      "agrieval/scoring"))}
