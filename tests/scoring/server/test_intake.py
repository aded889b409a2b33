"""Grading through the store: one transaction per upload, the row as the commit point, limits that hold under
concurrency, the lock never held while an upload is graded, the timeline (issue 52)."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import stat
import subprocess
import sys
import threading
import time

import pytest
from click.testing import CliRunner

from agrieval.scoring._server import intake
from agrieval.scoring._server.limits import SubmissionLimits
from agrieval.scoring._server.store import StoreError, open_store
from agrieval.scoring._server.timeline import Timeline
from agrieval.scoring.cli.main import cli

from .conftest import DAY1, SUBS, make_store, upload

HOUR = dt.timedelta(hours=1)


def _count(store, team, status="scored"):
    return store.conn.execute("SELECT count(*) FROM uploads WHERE team = ? AND status = ?", (team, status)).fetchone()[0]


def test_a_linked_store_keeps_one_count(tmp_path):
    store = make_store(tmp_path / "real.db", limits=SubmissionLimits(total=2))
    link = tmp_path / "link.db"
    link.symlink_to(tmp_path / "real.db")
    answers = []
    for i, path in enumerate([link, tmp_path / "real.db", link]):
        s = open_store(path)
        answers.append(intake.grade_stored(s, upload("partial.csv"), "p.csv", "a", now=DAY1 + i * HOUR).status)
    assert answers == ["scored", "scored", "rejected"]
    assert link.is_symlink() and _count(store, "a") == 2


def test_nothing_reaches_the_ladder_without_its_row_and_a_non_utf8_name_is_data(store_path):
    store = make_store(store_path, limits=SubmissionLimits(total=1), ladder=True)
    name = os.fsdecode(b"caf\xe9-\xff.csv")  # not UTF-8: surrogate escapes
    first = intake.grade_stored(store, upload("partial.csv"), name, "a", now=DAY1)
    second = intake.grade_stored(store, upload("perfect.csv"), name, "a", now=DAY1 + HOUR)
    assert (first.status, second.status) == ("scored", "rejected")
    (stored,) = store.conn.execute("SELECT name FROM uploads WHERE status = 'scored'").fetchone()
    assert bytes(stored) == b"caf\xe9-\xff.csv"
    (state,) = store.conn.execute("SELECT state FROM ladder WHERE team = 'a'").fetchone()
    assert json.loads(state)["n_submissions"] == 1 == _count(store, "a")


def test_a_failing_commit_leaves_neither_row_nor_ladder(store_path, monkeypatch):
    store = make_store(store_path, ladder=True)
    real = intake._values

    def broken(result, metric):  # the score cannot be written (a non-number): the transaction must not commit
        public, private, shown = real(result, metric)
        return float("nan"), private, shown

    monkeypatch.setattr(intake, "_values", broken)
    with pytest.raises(sqlite3.IntegrityError):
        intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    assert store.conn.execute("SELECT count(*) FROM ladder").fetchone()[0] == 0
    assert store.conn.execute("SELECT count(*) FROM scores").fetchone()[0] == 0
    # reserved, never committed: released at once as an error row (it costs nothing), the exception raised as is
    assert _count(store, "a", "pending") == 0 and _count(store, "a", "error") == 1
    monkeypatch.setattr(intake, "_values", real)
    assert intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1).status == "scored"
    assert _count(store, "a", "error") == 1 and _count(store, "a", "pending") == 0


@pytest.mark.parametrize("column, value", [("public", float("nan")), ("public", None), ("shown", "0.5"),
                                           ("private", float("inf")), ("public", b"\x00")])
def test_no_row_can_hold_a_non_number_score(store_path, column, value):
    store = make_store(store_path)
    intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    values = {"public": 0.5, "private": 0.5, "shown": 0.5, column: value}
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("INSERT INTO scores (upload, version, public, private, shown) VALUES (1, 1, ?, ?, ?)"
                           .replace("(1, 1", "((SELECT id FROM uploads LIMIT 1), 1"),
                           (values["public"], values["private"], values["shown"]))
    with pytest.raises(sqlite3.IntegrityError):  # and the version 1 row exists: a second one is refused too
        store.conn.execute("UPDATE uploads SET status = 'bogus'")


def test_the_store_stays_0600_after_uploads(store_path):
    store = make_store(store_path, ladder=True)
    assert stat.S_IMODE(os.stat(store_path).st_mode) == 0o600
    for i in range(3):
        intake.grade_stored(store, upload("partial.csv"), "p.csv", f"t{i}", now=DAY1)
    for path in [store_path] + [p for p in store_path.parent.iterdir() if p.name.startswith("comp.db-")]:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
    uploads = store_path.parent / "comp.db.uploads"
    assert stat.S_IMODE(os.stat(uploads).st_mode) == 0o700
    assert {stat.S_IMODE(os.stat(p).st_mode) for p in uploads.iterdir()} == {0o600}


def test_a_fifo_store_is_refused_at_once(tmp_path):
    fifo = tmp_path / "comp.db"
    os.mkfifo(fifo)
    done = []

    def run():
        try:
            open_store(fifo)
        except StoreError as exc:
            done.append(exc.code)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(5)
    assert done == ["store_not_regular"]
    for path in (tmp_path, "/dev/null"):
        with pytest.raises(StoreError) as exc:
            open_store(path)
        assert exc.value.code == "store_not_regular"


def test_the_lock_is_not_held_while_an_upload_is_graded(store_path, monkeypatch):
    """Team a's upload blocks inside its grading; team b's whole upload (both transactions) completes meanwhile."""
    store = make_store(store_path, limits=SubmissionLimits(total=5))
    from agrieval.scoring.runtime import guard

    real = guard.grade
    inside, release = threading.Event(), threading.Event()

    def slow(data, *args, **kwargs):
        if kwargs.get("filename") == "slow.csv":
            inside.set()
            assert release.wait(30)
        return real(data, *args, **kwargs)

    monkeypatch.setattr(guard, "grade", slow)
    answers = {}
    worker = threading.Thread(target=lambda: answers.setdefault(
        "a", intake.grade_stored(open_store(store_path), b"not,a,submission\n" * 1000, "slow.csv", "a", now=DAY1)))
    worker.start()
    assert inside.wait(30)
    started = time.monotonic()
    other = intake.grade_stored(open_store(store_path), upload("partial.csv"), "p.csv", "b", now=DAY1)
    assert other.status == "scored" and time.monotonic() - started < 20
    release.set()
    worker.join(30)
    assert answers["a"].status == "rejected"
    assert _count(store, "a", "rejected") == 1 and _count(store, "b") == 1


def test_timeline_start_and_deadline(store_path):
    store = make_store(store_path, timeline=Timeline(start=DAY1, deadline=DAY1 + 24 * HOUR))
    early = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1 - HOUR)
    late = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1 + 24 * HOUR)
    ok = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1 + HOUR)
    assert [e.code for e in early.errors] == ["competition_not_started"]
    assert [e.code for e in late.errors] == ["competition_closed"] and late.exit_code == 1
    assert ok.status == "scored" and _count(store, "a", "refused") == 2


def test_rejected_uploads_cost_no_submission_but_have_their_own_rate(store_path):
    store = make_store(store_path, limits=SubmissionLimits(total=1, rejected_per_hour=2))
    bad = (SUBS / "malformed" / "wrong_header.csv").read_bytes()
    codes = []
    for minute in (0, 10, 20):
        r = intake.grade_stored(store, bad, "bad.csv", "a", now=DAY1 + dt.timedelta(minutes=minute))
        codes.append([e.code for e in r.errors])
    assert codes[2] == ["rejected_rate_reached"]
    assert intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1 + 2 * HOUR).status == "scored"


def test_the_utc_day_is_utc_whatever_the_host_zone(store_path, monkeypatch):
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")  # UTC+14: the local day changes at 10:00 UTC
    time.tzset()
    try:
        store = make_store(store_path, limits=SubmissionLimits(per_day=1))
        morning = dt.datetime(2026, 5, 1, 9, 0, tzinfo=dt.timezone.utc)
        assert intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=morning).status == "scored"
        later = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=morning + 2 * HOUR)
        assert [e.code for e in later.errors] == ["submission_limit_reached"]
        assert later.report.details["next_allowed"] == "2026-05-02T00:00:00Z"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_submission_numbers_count_scored_uploads_only(store_path):
    store = make_store(store_path)
    bad = (SUBS / "malformed" / "wrong_header.csv").read_bytes()
    numbers = []
    for data in (upload("partial.csv"), bad, upload("perfect.csv")):
        numbers.append(intake.grade_stored(store, data, "x.csv", "a", now=DAY1).report.details.get("submission"))
    assert numbers == [1, None, 2]


_GRADER = """
import sys
from agrieval.scoring._server import intake
from agrieval.scoring._server.store import open_store
store = open_store(sys.argv[1])
data = open(sys.argv[3], "rb").read()
print(intake.grade_stored(store, data, "u.csv", sys.argv[2]).status)
"""


def test_twenty_concurrent_graders_across_five_teams_give_exactly_the_limit(store_path):
    make_store(store_path, limits=SubmissionLimits(total=3)).close()
    procs = [subprocess.Popen([sys.executable, "-c", _GRADER, str(store_path), f"team{i % 5}",
                               str(SUBS / "partial.csv")], stdout=subprocess.PIPE, text=True) for i in range(20)]
    statuses = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert sorted(statuses).count("scored") == 15
    store = open_store(store_path)
    assert {t: _count(store, t) for t in (f"team{i}" for i in range(5))} == {f"team{i}": 3 for i in range(5)}


def test_grade_cli_with_a_store_and_log_gone(store_path):
    make_store(store_path).close()
    runner = CliRunner()
    ok = runner.invoke(cli, ["grade", str(SUBS / "partial.csv"), "--team", "a", "--store", str(store_path)])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["host"]["details"]["submission"] == 1
    assert "private" not in json.loads(ok.stdout)["metrics"] or json.loads(ok.stdout)["metrics"]["private"] is None
    gone = runner.invoke(cli, ["grade", str(SUBS / "partial.csv"), "--team", "a", "--log", "log.csv"])
    assert gone.exit_code == 2 and "server import" in gone.stderr


def test_a_selection_for_a_team_the_store_does_not_know_is_refused(store_path):
    store = make_store(store_path)
    for numbers in ([], [1]):
        with pytest.raises(intake.LogError) as err:
            intake.select(store, "nobody", numbers, now=DAY1)
        assert err.value.code == "bad_selection" and "no upload in the store" in str(err.value)
