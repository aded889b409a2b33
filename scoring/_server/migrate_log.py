"""``agrieval server import``: a competition in flight, from the former ``log.csv`` and Ladder JSON files.

Into a store made by ``server init`` (same competition and solution) that holds no upload yet, in one
transaction: every row of the log in its order (scored uploads keep the numbers the log gave them, so
that the teams' selections keep meaning what they meant; new uploads continue after the highest; rejected
and failed ones lose theirs: numbers count scored uploads only from now on), each upload's bytes when the
file is still there (read through the opening rule; its path as the log wrote it, relative to the log's
folder or absolute), the final selections, and each team's Ladder state (``<team>.json``). A row the store
cannot hold (a scored row without a finite score) stops the import, naming its line: nothing is written.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Optional

from agrieval.scoring._server.store import Store
from agrieval.scoring._server.submission_log import LogError, check_team, read_log
from agrieval.scoring._server.timeline import utc_text
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes, read_json

# Imported inside functions, so that importing this module loads only what it needs: scoring.runtime.ladder (it
# loads numpy).

__all__ = ["import_log"]


def _bytes(store: Store, log: Path, file: str, max_bytes: int) -> Optional[str]:
    """The upload's sha256 once kept in the store, None when the file is gone or refused by the opening rule."""
    if not file:
        return None
    path = Path(file) if os.path.isabs(file) else log.parent / file
    try:
        return store.keep_upload(read_bytes(path, max_bytes=max_bytes, what="logged upload"))
    except (FileNotFoundError, UntrustedFileError):
        return None


def _ladder_states(store: Store, ladder_dir: Path, numbers: dict) -> dict:
    from agrieval.scoring.runtime._ladder import MAX_STATE_BYTES, state_from_dict

    settings = store.conn.execute("SELECT competition, solution_sha256 FROM competition").fetchone()
    states = {}
    for path in sorted(Path(ladder_dir).glob("*.json")):
        team = check_team(path.stem)
        try:
            state = state_from_dict(read_json(path, max_bytes=MAX_STATE_BYTES, what="Ladder state"))
        except (UntrustedFileError, ValueError, KeyError, TypeError) as exc:
            raise LogError("log_corrupt", f"the Ladder state cannot be read: {exc}", file=path) from None
        if (state.competition, state.solution_sha256) != tuple(settings):
            raise LogError("log_corrupt", "the Ladder state belongs to another competition or solution than the "
                                          "store's", file=path)
        if state.released is not None:  # the Ladder's own count -> the store's number of that upload
            scored = numbers.get(team, [])
            k = int(state.released["submission"])
            if k <= len(scored):
                state.released["number"] = scored[k - 1]
        states[team] = json.dumps(state.to_dict(), allow_nan=False)
    return states


def import_log(store: Store, log: Path, ladder_dir: Optional[Path] = None, *, max_bytes: int) -> dict:
    """Bring ``log`` (and the Ladder states in ``ladder_dir``) into the empty ``store``; counts of what came."""
    log = Path(os.path.realpath(log))
    rows = read_log(log)
    if store.conn.execute("SELECT count(*) FROM uploads").fetchone()[0]:
        raise LogError("log_corrupt", "the store already holds uploads; import a log into a new store only",
                       exit_code=2)
    version = store.conn.execute("SELECT score_version FROM competition").fetchone()[0]
    numbers: dict = {}
    counts = {"uploads": 0, "selections": 0, "kept_files": 0, "ladder_states": 0}
    with store.immediate() as conn:
        for r in rows:
            conn.execute("INSERT OR IGNORE INTO teams (name) VALUES (?)", (r.team,))
            if r.status == "selected":
                conn.execute("INSERT INTO selections (team, selected_at, numbers) VALUES (?, ?, ?)",
                             (r.team, utc_text(r.submitted_at), " ".join(map(str, r.selected))))
                counts["selections"] += 1
                continue
            digest = None if r.status == "refused" else _bytes(store, log, r.file, max_bytes)
            counts["kept_files"] += digest is not None
            number = r.submission if r.status == "scored" else None
            try:
                cur = conn.execute("INSERT INTO uploads (team, submitted_at, name, sha256, status, number, codes) "
                                   "VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   (r.team, utc_text(r.submitted_at), os.fsencode(os.path.basename(r.file)), digest,
                                    r.status, number, " ".join(r.codes)))
                if r.status == "scored":
                    conn.execute("INSERT INTO scores (upload, version, public, private, shown) VALUES (?, ?, ?, ?, ?)",
                                 (cur.lastrowid, version, r.public, None if r.private != r.private else r.private,
                                  r.shown))
                    numbers.setdefault(r.team, []).append(number)
            except sqlite3.IntegrityError as exc:
                raise LogError("log_corrupt", f"line {r.line}: the store cannot hold this row ({exc}); nothing was "
                                              "imported", file=log) from None
            counts["uploads"] += 1
        if ladder_dir is not None:
            for team, state in _ladder_states(store, ladder_dir, numbers).items():
                conn.execute("INSERT OR IGNORE INTO teams (name) VALUES (?)", (team,))
                conn.execute("INSERT INTO ladder (team, state) VALUES (?, ?)", (team, state))
                counts["ladder_states"] += 1
    return counts
