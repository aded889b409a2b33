"""Opening the store attacked as a careless organizer would: a read-only folder, an uploads folder that is a file."""

from __future__ import annotations

import os
import subprocess

import pytest

from agrieval.scoring._server import intake
from agrieval.scoring._server.limits import SubmissionLimits
from agrieval.scoring._server.store import StoreError, open_store

from .conftest import DAY1, make_store, tiny_tmpfs, upload


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder that cannot be written, even by root (a read-only tmpfs); skipped where mount is not allowed."""
    with tiny_tmpfs(tmp_path / "ro") as folder:
        yield folder


def test_a_store_in_a_read_only_folder_is_unwritable_not_corrupt(read_only_folder):
    make_store(read_only_folder / "comp.db").close()
    subprocess.run(["mount", "-o", "remount,ro", str(read_only_folder)], check=True)
    with pytest.raises(StoreError) as err:
        open_store(read_only_folder / "comp.db")
    assert err.value.code == "store_unwritable" and "folder" in str(err.value)


def test_an_uploads_folder_replaced_by_a_file_is_a_host_failure_and_costs_nothing(store_path):
    """Even in a long-lived process (an organizer's script calling ``grade_stored``), whose id stays alive: the
    reserved row must not stay ``pending`` and hold the team's only submission."""
    store = make_store(store_path, limits=SubmissionLimits(total=1))
    (store_path.parent / "comp.db.uploads").write_bytes(b"not a folder")
    answer = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    assert answer.status == "error" and "cannot keep the upload" in answer.host.diagnostics[0].message
    os.unlink(store_path.parent / "comp.db.uploads")
    again = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    assert again.status == "scored" and again.report.details["submission"] == 1


@pytest.mark.parametrize("failure, code", [(RuntimeError("a bug in the scorer"), "internal_error"),
                                           (KeyboardInterrupt(), "grading_interrupted")])
def test_a_grading_step_that_raises_releases_its_row_and_raises(store_path, monkeypatch, failure, code):
    """Not only a StoreError: whatever stops the grading step in a long-lived process releases the reserved row
    (an ``error`` row with a code, costing nothing) and reaches the caller unchanged."""
    from agrieval.scoring.runtime import guard

    store = make_store(store_path, limits=SubmissionLimits(total=1))

    def broken(*args, **kwargs):
        raise failure

    with monkeypatch.context() as patch:
        patch.setattr(guard, "grade", broken)
        with pytest.raises(type(failure)):
            intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    assert store.conn.execute("SELECT status, codes FROM uploads").fetchall() == [("error", code)]
    again = intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    assert again.status == "scored" and again.report.details["submission"] == 1


def test_every_store_code_reaches_the_operators_diagnostics():
    """``runtime.guard.host_failure`` keeps the codes it knows and makes the rest ``internal_error``: a store's
    code must survive (the operator's line says what to fix), and the runtime stays free of the server."""
    from agrieval.scoring._server.store import CODES
    from agrieval.scoring.runtime.guard import host_failure

    for code in CODES:
        assert host_failure("plantclef2025", code, "m").host.diagnostics[0].code == code


def _foreign_sqlite(path):
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('an organizer keeps this')")
    conn.commit()
    conn.close()


def _newer_store(path):
    import sqlite3

    make_store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")  # (so that the file alone is the store, no -wal beside it)
    conn.execute("PRAGMA user_version = 99")
    conn.close()


@pytest.mark.parametrize("make, code", [
    (lambda p: p.write_bytes(b""), "store_corrupt"),
    (lambda p: p.write_bytes(b"id,label\n1,oak\n" * 100), "store_corrupt"),
    (lambda p: p.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 20), "store_corrupt"),
    (_foreign_sqlite, "store_corrupt"),
    (_newer_store, "store_newer"),
], ids=["empty", "csv", "sqlite-header-on-garbage", "foreign-sqlite", "newer-schema"])
def test_a_file_that_is_not_our_store_is_refused_and_never_written(tmp_path, make, code):
    """Every command opens through ``open_store``: a 0-byte file, a CSV, a corrupt one, someone else's SQLite
    database and a newer store are refused before SQLite switches them to WAL (the first write)."""
    path = tmp_path / "comp.db"
    make(path)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    with pytest.raises(StoreError) as err:
        open_store(path)
    assert err.value.code == code
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["comp.db"]  # no -wal, -shm or journal left beside it


def test_the_schemas_team_name_check_is_the_terminal_formatters():
    """The triggers of schema version 2 refuse exactly the characters ``one_line`` escapes (over the whole BMP;
    surrogates cannot reach SQLite as text), NUL included."""
    import sqlite3

    from agrieval.scoring._server.schema import MIGRATIONS
    from agrieval.scoring.text.terminal import is_safe

    conn = sqlite3.connect(":memory:")
    for step in MIGRATIONS:
        for statement in step:
            conn.execute(statement)
    refused = set()
    for code in [*range(0, 0xD800), *range(0xE000, 0x10000)]:
        try:
            conn.execute("INSERT INTO teams (name) VALUES (?)", (f"a{chr(code)}b",))
        except sqlite3.IntegrityError as exc:
            assert "bad_team" in str(exc)
            refused.add(code)
    assert refused == {code for code in [*range(0, 0xD800), *range(0xE000, 0x10000)] if not is_safe(chr(code))}
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE teams SET name = 'x\x1b[2Jy' WHERE name = 'a b'")


def test_a_name_another_tool_stored_is_refused_at_migration_and_escaped_on_the_board(store_path):
    """A version-1 store holding a control character in a team name (written by another tool) is not migrated
    (``store_corrupt``, left at version 1); a store whose check was dropped prints the name escaped (the board's
    Markdown cells go through ``text.markdown.text``, which is ``one_line`` first)."""
    import sqlite3

    from click.testing import CliRunner

    from agrieval.scoring.cli.main import cli

    store = make_store(store_path)
    intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    store.close()
    raw = sqlite3.connect(store_path, isolation_level=None)
    raw.execute("DROP TRIGGER teams_printable_insert")  # what another tool can do
    raw.execute("INSERT INTO teams (name) VALUES ('evil\x1b[2J\u202e')")
    raw.execute("INSERT INTO uploads (team, submitted_at, name, status, number, sha256) SELECT 'evil\x1b[2J\u202e', "
                "submitted_at, name, 'scored', 1, sha256 FROM uploads WHERE id = 1")
    raw.execute("INSERT INTO scores SELECT 2, version, public, private, shown FROM scores WHERE upload = 1")
    out = CliRunner().invoke(cli, ["server", "board", str(store_path), "--rule", "best"])
    assert out.exit_code == 0, out.output
    assert "evil%1B\\[2J%E2%80%AE" in out.output and "\x1b" not in out.output and "\u202e" not in out.output
    for undo in ("DROP TRIGGER teams_printable_update", "DROP TABLE ladder_versions", "PRAGMA user_version = 1"):
        raw.execute(undo)  # (the store as version 1 left it)
    with pytest.raises(StoreError) as err:
        open_store(store_path)
    assert err.value.code == "store_corrupt" and "not migrated" in str(err.value)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
