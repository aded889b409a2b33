"""The warm ``Grader`` and ``leaderboard`` apply the competition's time and memory limits by default (issue 22).

``grade`` reads and scores each upload in a child process killed past
``limits.max_seconds`` and capped at ``limits.max_memory_mb``; the warm path
and the leaderboard used to read in the caller's process with no limit at all.
Each test makes reading an upload costly (a monkeypatched reader, inherited by
the forked child) and checks that the upload is refused with the guard's codes
while the caller survives, and that ``limits=False`` (``--no-limits``) opts out.
"""

from __future__ import annotations

import dataclasses
import sys
import time

import pytest

from agrieval.scoring.runtime import warm
from agrieval.scoring.runtime.definition import load_definition
from agrieval.scoring.runtime.scorer import score_file
from agrieval.scoring.runtime.warm import Grader
from tests.scoring.runtime.shipped_files import REFERENCE

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the memory cap is RLIMIT_AS (POSIX, /proc)")

SOLUTION = REFERENCE / "plantclef2025" / "solution.csv"
UPLOAD = REFERENCE / "plantclef2025" / "submissions" / "baseline_top5_common.csv"


def _definition(**limits):
    base = load_definition("plantclef2025")
    return dataclasses.replace(base, limits=dataclasses.replace(base.limits, **limits))


@pytest.fixture
def hungry(monkeypatch):
    """Reading an upload maps 4 GiB more (numpy.empty: no page is touched) before reading it for real."""
    import numpy as np

    real = warm._read_upload

    def read(*args, **kwargs):
        block = np.empty(4 << 30, dtype=np.uint8)
        del block
        return real(*args, **kwargs)

    monkeypatch.setattr(warm, "_read_upload", read)


@pytest.fixture
def slow(monkeypatch):
    real = warm._read_upload

    def read(*args, **kwargs):
        time.sleep(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(warm, "_read_upload", read)


def test_the_warm_grader_caps_memory_by_default(hungry):
    grader = Grader(SOLUTION, _definition(max_memory_mb=256))
    report = grader.score(UPLOAD)
    assert report.status == "rejected" and [e.code for e in report.errors] == ["memory_limit_exceeded"]
    assert "256 MiB" in report.errors[0].message
    graded = grader.evaluate(UPLOAD)
    assert graded.submission is None and graded.order is None


def test_the_warm_grader_stops_at_the_time_limit_by_default(slow):
    grader = Grader(SOLUTION, _definition(max_seconds=1))
    started = time.perf_counter()
    report = grader.score(UPLOAD)
    assert time.perf_counter() - started < 15
    assert report.status == "rejected" and "time_limit_exceeded" in [e.code for e in report.errors]


def test_limits_false_opts_out(hungry):
    definition = _definition(max_memory_mb=256)
    report = Grader(SOLUTION, definition, limits=False).score(UPLOAD)
    assert report.to_dict() == score_file(UPLOAD, SOLUTION, definition).to_dict()


def test_within_the_limits_the_verdict_rows_and_ids_are_the_one_shot_ones():
    definition = load_definition("plantclef2025")
    graded = Grader(SOLUTION, definition, reveal_private=True).evaluate(UPLOAD)
    assert graded.report.to_dict() == score_file(UPLOAD, SOLUTION, definition, reveal_private=True).to_dict()
    assert graded.report.status == "scored"
    assert [graded.submission.ids[i] for i in graded.order] == Grader(SOLUTION, definition).solution.ids


def test_the_leaderboard_applies_the_limits_and_has_an_opt_out(hungry, tmp_path, monkeypatch):
    # the leaderboard is the kit's, not the runtime's: run by the main suite, skipped in the platforms' venvs
    # (numpy only: .ci/interpreters)
    CliRunner = pytest.importorskip("click.testing").CliRunner
    from agrieval.scoring.cli.main import cli
    from agrieval.scoring.leaderboard.build import build_leaderboard

    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "a.csv").write_bytes(UPLOAD.read_bytes())
    board = build_leaderboard(folder, SOLUTION, _definition(max_memory_mb=256), n_resamples=0)
    assert [e.status for e in board.entries] == ["rejected"]
    assert [e["code"] for e in board.entries[0].errors] == ["memory_limit_exceeded"]
    board = build_leaderboard(folder, SOLUTION, _definition(max_memory_mb=256), n_resamples=0, limits=False)
    assert [e.status for e in board.entries] == ["scored"]
    res = CliRunner().invoke(cli, ["leaderboard", str(folder), "-s", str(SOLUTION), "-c", "plantclef2025",
                                   "--out", str(tmp_path / "lb"), "--resamples", "0", "--no-limits"])
    assert res.exit_code == 0, res.output
