"""The audit's input: a CSV ``team,submitted_at,file`` listing every submission a platform received.

Each ``file`` is relative to the log's folder and must stay inside it (no absolute path, no ``..``
leading out, no link leading out): the log is an export, and its paths are data. ``submitted_at``
is ISO 8601 (``2025-05-01T12:30:00``, a trailing ``Z`` or an offset allowed, all with a time zone or
none). Entries are ordered by team, then time, then line. The own server's former log (``grade --log``)
is such a CSV: its ``refused`` and ``selected`` rows are not submissions and are skipped.

``read_store`` gives the same entries from the own server's store (``agrieval audit DB``): every graded
upload whose bytes the store kept, read from the store's uploads folder by content hash (no path joined).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path

from agrieval.scoring._server.timeline import parse_utc
from agrieval.scoring.analysis_input._csv_input import key_cell, read_csv_rows
from agrieval.scoring.analysis_input.input_error import InputError

COLUMNS = ("team", "submitted_at", "file")


@dataclass(frozen=True)
class LoggedSubmission:
    """One row of a submission log: the team, when it submitted, the file, and the log line it came from."""

    team: str
    submitted_at: dt.datetime
    path: Path  # resolved, inside the log's folder
    file: str  # as written in the log
    line: int


def read_log(path: str | Path) -> list[LoggedSubmission]:
    """The log's entries, sorted by (team, submitted_at, line); an ``InputError`` names the line and column."""
    table = read_csv_rows(path, COLUMNS)
    folder = Path(path).resolve().parent
    entries = []
    aware = None
    for i, line in enumerate(table.lines):
        # the own server's log (`agrieval grade --log`) also records refused uploads and final selections:
        # neither is a graded submission
        if table.rows[i].get("status", "").strip() in ("refused", "selected"):
            continue
        team = key_cell(table, i, "team")
        raw_time = key_cell(table, i, "submitted_at")
        when = _timestamp(raw_time, table, i)
        if aware is None:
            aware = when.tzinfo is not None
        elif aware != (when.tzinfo is not None):
            raise InputError("bad_timestamp", f"{raw_time!r} mixes times with and without a time zone",
                             file=table.path, line=line, column=table.column_index("submitted_at"))
        file = key_cell(table, i, "file")
        entries.append(LoggedSubmission(team, when, _inside(folder, file, table, i), file, line))
    return sorted(entries, key=lambda e: (e.team, e.submitted_at, e.line))


def _timestamp(raw: str, table, i: int) -> dt.datetime:
    text = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        raise InputError("bad_timestamp", f"{raw!r} is not an ISO 8601 date and time (e.g. 2025-05-01T12:30:00Z)",
                         file=table.path, line=table.lines[i], column=table.column_index("submitted_at")) from None


def _inside(folder: Path, file: str, table, i: int) -> Path:
    where = dict(file=table.path, line=table.lines[i], column=table.column_index("file"))
    relative = Path(file)
    if relative.is_absolute() or relative.drive:
        raise InputError("path_outside", f"{file!r} is an absolute path; name files relative to the log's folder",
                         **where)
    resolved = (folder / relative).resolve()
    if resolved != folder and folder not in resolved.parents:
        raise InputError("path_outside", f"{file!r} leads outside the log's folder {str(folder)!r}", **where)
    if not resolved.exists():
        raise InputError("file_not_found", f"{file!r} does not exist in the log's folder", **where)
    return resolved


def read_store(store, *, max_bytes: int) -> list[LoggedSubmission]:
    """The store's graded uploads (scored or rejected, voided ones too: the audit sees everything), sorted as
    ``read_log`` sorts; ``file`` is the original name as data (``team/number-or-id name``). Each kept file is
    checked against its sha256 first (``store_upload_lost``): the audit reads what was uploaded, or nothing."""


    entries = []
    for uid, team, at, name, sha in store.conn.execute(
            "SELECT id, team, submitted_at, name, sha256 FROM uploads WHERE sha256 IS NOT NULL AND "
            "status IN ('scored', 'rejected', 'error') ORDER BY id"):
        store.read_kept(sha, max_bytes, uid)
        entries.append(LoggedSubmission(team, parse_utc(at), Path(store.upload_path(sha)),
                                        os.fsdecode(bytes(name)), uid))
    return sorted(entries, key=lambda e: (e.team, e.submitted_at, e.line))
