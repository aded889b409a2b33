"""The store attacked where the first attacker pass stopped: an upload at the byte cap, a full disk, a grader killed
with SIGKILL at each step (docs/own_server.md, "Attacked")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from click.testing import CliRunner

from agrieval.scoring._server import intake
from agrieval.scoring._server.limits import SubmissionLimits
from agrieval.scoring._server.store import open_store

from .conftest import DAY1, make_store, tiny_tmpfs, upload

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _rows(store):
    return store.conn.execute("SELECT id, status, codes, number FROM uploads ORDER BY id").fetchall()


def test_an_upload_at_the_byte_cap_is_read_and_one_byte_more_is_refused_for_its_size(store_path, tmp_path):
    """Through ``grade --store`` (which reads one byte past the cap so that the grader refuses it with its own
    message): the cap itself is read and judged on its content; neither costs the team a submission."""
    from agrieval.scoring.cli.main import cli

    store = make_store(store_path, limits=SubmissionLimits(total=1))
    from agrieval.scoring.authoring.definitions import load_competition

    cap = load_competition("plantclef2025").limits.max_bytes
    head = upload("partial.csv")
    codes = {}
    for size in (cap + 1, cap):
        path = tmp_path / f"u{size}.csv"
        path.write_bytes(head + b"\n" * (size - len(head)))
        out = CliRunner().invoke(cli, ["grade", str(path), "--team", "a", "--store", str(store_path),
                                       "--now", "2026-05-01T09:00:00Z"])
        answer = json.loads(out.stdout)
        assert out.exit_code == 1 and answer["status"] == "rejected", out.output
        codes[size] = [e["code"] for e in answer["errors"]]
    assert codes[cap + 1] == ["file_too_large"]
    assert "file_too_large" not in codes[cap] and codes[cap]  # read whole: refused for what it holds (its rows)
    assert [r[1] for r in _rows(store)] == ["rejected", "rejected"]  # no submission spent
    assert intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1).report.details["submission"] == 1


@pytest.fixture
def tiny_disk(tmp_path):
    """A 1 MiB tmpfs; skipped where mount is not allowed."""
    with tiny_tmpfs(tmp_path / "tiny") as folder:
        yield folder


def _fill(folder) -> str:
    path = str(folder / "filler")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"x" * 512)
    except OSError as exc:
        assert exc.errno == 28  # ENOSPC
    finally:
        os.close(fd)
    return path


@pytest.mark.parametrize("ladder", [False, True])
def test_a_full_disk_is_a_coded_host_failure_and_the_store_stays_whole(tiny_disk, ladder):
    """``grade --store`` on a full disk: exit 3, ``store_unwritable`` saying to free space (it was a raw
    ``cannot rollback`` OperationalError: SQLite had rolled back already); nothing half-written, and once space is
    freed the team's upload scores as its first."""
    from agrieval.scoring.cli.main import cli

    store = make_store(tiny_disk / "comp.db", limits=SubmissionLimits(total=1), ladder=ladder)
    (tiny_disk.parent / "p.csv").write_bytes(upload("partial.csv"))
    filler = _fill(tiny_disk)
    out = CliRunner().invoke(cli, ["grade", str(tiny_disk.parent / "p.csv"), "--team", "a", "--store",
                                   str(tiny_disk / "comp.db"), "--now", "2026-05-01T09:00:00Z"])
    diagnostic = json.loads(out.stdout)["host"]["diagnostics"][0]
    assert out.exit_code == 3 and diagnostic["code"] == "store_unwritable", out.output
    assert "free space" in diagnostic["message"]
    assert all(r[1] != "scored" for r in _rows(store))
    os.unlink(filler)
    again = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    assert again.status == "scored" and again.report.details["submission"] == 1
    assert store.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert store.conn.execute("SELECT count(*) FROM scores").fetchone()[0] == 1
    assert [r[1] for r in _rows(store) if r[1] != "error"] == ["scored"]


_GRADER = textwrap.dedent("""
    import datetime as dt, sys, time
    from pathlib import Path
    from agrieval.scoring.runtime import guard
    from agrieval.scoring._server import intake
    from agrieval.scoring._server.store import Store, open_store

    step, db, ready, data = sys.argv[1:]

    def hold(*args, **kwargs):
        Path(ready).write_text("held")
        time.sleep(600)

    if step == "reserved":  # the pending row is committed, the bytes not kept yet
        Store.keep_upload = hold
    elif step == "grading":
        guard.grade = hold
    else:  # inside the commit's transaction: the row's sha256 written, the score and the Ladder not yet
        real = intake._values
        intake._values = lambda *a: (hold(), real(*a))[1]
    intake.grade_stored(open_store(db), Path(data).read_bytes(), "p.csv", "a",
                        now=dt.datetime(2026, 5, 1, 9, tzinfo=dt.timezone.utc))
""")


@pytest.mark.parametrize("step", ["reserved", "grading", "commit"])
def test_a_grader_killed_at_each_step_leaves_a_store_the_next_call_resolves(store_path, tmp_path, step):
    store = make_store(store_path, limits=SubmissionLimits(total=1, per_day=1), ladder=True)
    ready, data = tmp_path / "ready", tmp_path / "p.csv"
    data.write_bytes(upload("partial.csv"))
    grader = subprocess.Popen([sys.executable, "-c", _GRADER, step, str(store_path), str(ready), str(data)],
                              cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert grader.poll() is None and time.monotonic() < deadline, "the grader never reached the step"
            time.sleep(0.05)
        assert _rows(store) == [(1, "pending", "", None)]
    finally:
        os.kill(grader.pid, signal.SIGKILL)
        grader.wait()
    store = open_store(store_path)
    answer = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    assert answer.status == "scored" and answer.report.details["submission"] == 1  # the killed one cost nothing
    assert _rows(store) == [(1, "error", "grading_interrupted", None), (2, "scored", "", 1)]
    assert store.conn.execute("SELECT upload FROM scores").fetchall() == [(2,)]
    (state,) = store.conn.execute("SELECT state FROM ladder").fetchone()
    assert json.loads(state)["n_submissions"] == 1  # the Ladder saw the scored upload only
    refused = intake.grade_stored(store, upload("perfect.csv"), "q.csv", "a", now=DAY1)
    assert [e.code for e in refused.errors] == ["submission_limit_reached"]
    assert store.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
