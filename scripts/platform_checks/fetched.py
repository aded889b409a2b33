"""Read files of a platform's repository fetched here: a bare git dir (``git --git-dir=REPO show HEAD:path``) or a
checkout. Their code is copied to a scratch folder for one run and never into this repository."""

from __future__ import annotations

import subprocess
from pathlib import Path


def read(repo: str | Path, path: str) -> str:
    repo = Path(repo)
    if (repo / path).is_file():
        return (repo / path).read_text(encoding="utf-8")
    return subprocess.run(["git", "--git-dir", str(repo), "show", f"HEAD:{path}"], check=True, capture_output=True,
                          text=True).stdout


def commit(repo: str | Path) -> str:
    repo = Path(repo)
    git_dir = ["--git-dir", str(repo)] if not (repo / ".git").exists() else ["-C", str(repo)]
    return subprocess.run(["git", *git_dir, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def copy_to(repo: str | Path, paths: list, dest: Path) -> Path:
    """Each of ``paths`` (repository-relative) written under ``dest`` with its folders; returns ``dest``."""
    for rel in paths:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(read(repo, rel), encoding="utf-8")
    return dest
