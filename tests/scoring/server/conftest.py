"""A store of the shipped plantclef2025 reference competition, and uploads whose scores are known."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest

from agrieval.scoring._server.limits import SubmissionLimits
from agrieval.scoring._server.settings import new_settings, write_settings
from agrieval.scoring._server.store import create_store, open_store
from agrieval.scoring._server.timeline import Timeline

REF = Path(__file__).resolve().parents[3] / "reference_submissions" / "plantclef2025"
SOL = REF / "solution.csv"
SUBS = REF / "submissions"
DAY1 = dt.datetime(2026, 5, 1, 9, 0, tzinfo=dt.timezone.utc)


def make_store(path: Path, *, limits: SubmissionLimits = SubmissionLimits(), timeline: Timeline = Timeline(),
               ladder: bool = False, selection_limit: int = 2):
    store = create_store(path)
    write_settings(store, new_settings("plantclef2025", str(SOL), limits, timeline, selection_limit, ladder), DAY1)
    store.close()
    return open_store(path)


def upload(name: str) -> bytes:
    return (SUBS / name).read_bytes()


@pytest.fixture
def store_path(tmp_path) -> Path:
    return tmp_path / "comp.db"


@contextlib.contextmanager
def tiny_tmpfs(folder: Path):
    """``folder`` as a 1 MiB tmpfs for the test's length (a full disk; remounted read-only, a folder even root
    cannot write); the test skips where mounting is not allowed (not root, or a container that forbids it)."""
    folder.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)],
                                           capture_output=True).returncode != 0:
        pytest.skip("needs root and mount -t tmpfs (CI's container may not allow it)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
