"""A store of the shipped plantclef2025 reference competition, and uploads whose scores are known."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from agrieval.scoring.server.limits import SubmissionLimits
from agrieval.scoring.server.settings import new_settings, write_settings
from agrieval.scoring.server.store import create_store, open_store
from agrieval.scoring.server.timeline import Timeline

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
