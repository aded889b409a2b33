"""``agrieval server rescore``: every stored upload re-graded with the installed scorer, as a new score version.

Each upload the store kept (its bytes under their sha256) is read and scored again, in a process pool
(``jobs`` workers, each loading the definition and solution once; the store's uploads were each graded
under the competition's limits when they came, so they are scored here without a child process apiece).
The new values go into a new, **unpublished** score version (with the Ladder replayed over each team's
uploads in order, when the store runs it, and each team's replayed Ladder state kept with the version); every rank that would change, on the public and the private
board of every rule, is listed. Nothing a board shows changes until ``confirm``: the version is then
published in the same transaction that writes it, and the replayed Ladder states become the ones each team's
next upload continues from. An upload whose status would change (rejected before,
scored now, or the reverse) is listed and keeps its status: its number, and the team's selections, stay
as the team knew them.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from concurrent.futures import ProcessPoolExecutor
from typing import List, Optional

from agrieval.scoring._server.settings import Competition, scorer_name
from agrieval.scoring._server.store import Store, StoreError, read_kept
from agrieval.scoring._server.timeline import now_utc, utc_text

# Imported inside functions, so that importing this module loads only what it needs: the settings, the reader, the
# scorer and the Ladder (they load numpy), needed only when a rescore runs.

__all__ = ["rescore"]

_WORKER: dict = {}


def _start(definition_name: str, solution: str, units: bool) -> None:
    from agrieval.scoring._server.settings import load

    _WORKER["definition"], _WORKER["solution"] = load(definition_name, solution)
    _WORKER["units"] = units


def _score(job: tuple) -> tuple:
    """In a worker: ``(upload id, status, public, private, unit values, every public metric)`` of one stored
    upload."""
    from agrieval.scoring.runtime._unit_scores import public_unit_values
    from agrieval.scoring.runtime.reading._uploads import unpack
    from agrieval.scoring.runtime.reading.submission import read_submission
    from agrieval.scoring.runtime.scorer import _score_aligned

    upload, path, digest, name = job
    definition, sol = _WORKER["definition"], _WORKER["solution"]
    metric = definition.primary_metric
    try:
        data = read_kept(path, digest, definition.limits.max_bytes, upload)
    except StoreError as exc:  # (reported by the parent, which stops before writing anything)
        return upload, "lost", str(exc), None, None, None
    unpacked = unpack(data, definition.limits, filename=name)
    if not unpacked.ok:
        return upload, "rejected", None, None, None, None
    sub = read_submission(unpacked.data, definition, filename=unpacked.filename, checked_ids=sol.checked_ids)
    report, order = _score_aligned(sub, sol, definition, reveal_private=True)
    if report.status != "scored":
        return upload, "rejected", None, None, None, None
    units = public_unit_values(sub, sol, definition, order) if _WORKER["units"] else None
    private = (report.metrics.private or {}).get(metric)
    public = {k: float(v) for k, v in report.metrics.public.items()}
    return upload, "scored", public[metric], private, units, public


def _replay(comp: Competition, graded: dict, order: List[tuple]) -> tuple:
    """``(shown, states)``: upload id -> the value its team would have been shown (the Ladder replayed over the
    uploads that stay scored, in order, as ``intake._commit`` runs it; or the rounded public), and team -> its
    replayed Ladder state (the one its next upload continues from once the rescore is confirmed)."""
    from agrieval.scoring.runtime import _ladder as ladder
    from agrieval.scoring.runtime._unit_scores import unit_name

    definition, settings = comp.definition, comp.settings
    metric = definition.primary_metric
    shown: dict = {}
    states: dict = {}
    for upload, team, number, name in order:
        status, public, _, units, metrics = graded[upload][1:]
        if status != "scored" or number is None:  # (an upload rejected before keeps its status: not on a board)
            continue
        if settings.ladder:
            state = states.setdefault(team, ladder.State(
                definition.name, metric, unit_name(definition), len(units), settings.solution_sha256))
            decision = ladder.decide(state, units, metrics, file=os.fsdecode(name))
            if decision.released:  # the store's number of the released submission, as intake._commit keeps it
                state.released["number"] = number
            shown[upload] = float(decision.shown[metric])
        elif definition.public_decimals is not None:
            shown[upload] = round(public, definition.public_decimals)
        else:
            shown[upload] = public
    return shown, states


def _ranks(store: Store, definition, version: int) -> dict:
    from agrieval.scoring._server.boards import store_board
    from agrieval.scoring._server.selection import RULES

    out = {}
    for rule in RULES:
        for reveal in (False, True):
            board = store_board(store, definition, rule, reveal_private=reveal, version=version)
            out[(rule, "private" if reveal else "public")] = {
                r.team: (r.private_rank if reveal else r.public_rank) for r in board.rows}
    return out


def rescore(store: Store, comp: Competition, *, confirm: bool = False, jobs: Optional[int] = None,
            now: Optional[dt.datetime] = None) -> dict:
    """Re-grade, write the new version (published only with ``confirm``), and say what would change."""
    conn = store.conn
    stored = conn.execute("SELECT id, team, sha256, name, status, number FROM uploads WHERE sha256 IS NOT NULL "
                          "AND status IN ('scored', 'rejected', 'error') ORDER BY id").fetchall()
    jobs = max(1, jobs or os.cpu_count() or 1)
    work = [(uid, store.upload_path(sha), sha, os.fsdecode(bytes(name))) for uid, _, sha, name, _, _ in stored]
    settings = comp.settings
    args = (settings.definition, settings.solution, settings.ladder)
    if jobs == 1 or len(work) < 2:
        _start(*args)
        results = list(map(_score, work))
    else:
        with ProcessPoolExecutor(jobs, initializer=_start, initargs=args) as pool:
            results = list(pool.map(_score, work, chunksize=max(1, len(work) // (jobs * 8))))
    lost = [r[2] for r in results if r[1] == "lost"]
    if lost:
        more = f" (and {len(lost) - 1} more)" if len(lost) > 1 else ""
        raise StoreError("store_upload_lost", f"{lost[0]}{more}; nothing was rescored")
    graded = {r[0]: r for r in results}
    shown, states = _replay(comp, graded, [(uid, team, number, bytes(name))
                                           for uid, team, _, name, _, number in stored])
    status_changes = [{"upload": uid, "team": team, "status": status, "would_be": graded[uid][1]}
                      for uid, team, _, _, status, _ in stored if status in ("scored", "rejected")
                      and graded[uid][1] != status]
    last_seen = max((uid for uid, *_ in stored), default=0)
    stamp = utc_text(now_utc(now))
    with store.immediate() as c:
        # read here, not before the grading: a rescore confirmed meanwhile moved it
        before = c.execute("SELECT score_version FROM competition").fetchone()[0]
        version = 1 + c.execute("SELECT max(version) FROM score_versions").fetchone()[0]
        c.execute("INSERT INTO score_versions (version, scorer, created_at, published_at) VALUES (?, ?, ?, NULL)",
                  (version, scorer_name(), stamp))
        for uid, team, _, _, status, _ in stored:
            if status == "scored" and graded[uid][1] == "scored":
                _, _, public, private, _, _ = graded[uid]
                c.execute("INSERT INTO scores (upload, version, public, private, shown) VALUES (?, ?, ?, ?, ?)",
                          (uid, version, public, private, shown[uid]))
            elif status == "scored":  # no longer scores: its published values are kept in this version
                c.execute("INSERT INTO scores (upload, version, public, private, shown) SELECT upload, ?, public, "
                          "private, shown FROM scores WHERE upload = ? AND version = ?", (version, uid, before))
        # uploads scored since the snapshot above (graded while this ran) keep the values they were given
        c.execute("INSERT INTO scores (upload, version, public, private, shown) SELECT s.upload, ?, s.public, "
                  "s.private, s.shown FROM scores s JOIN uploads u ON u.id = s.upload WHERE s.version = ? AND "
                  "u.status = 'scored' AND s.upload NOT IN (SELECT upload FROM scores WHERE version = ?)",
                  (version, before, version))
        for team, state in sorted(states.items()):
            c.execute("INSERT INTO ladder_versions (version, team, state) VALUES (?, ?, ?)",
                      (version, team, json.dumps(state.to_dict(), allow_nan=False)))
        # a team that uploaded while this ran has a live state past the replay (its new upload's unit values are
        # not at hand here): it keeps that state, and the report names it
        ladder_kept = sorted({t for (t,) in c.execute(
            "SELECT DISTINCT team FROM uploads WHERE id > ? AND status = 'scored'", (last_seen,))} & set(states))
        old, new = _ranks(store, comp.definition, before), _ranks(store, comp.definition, version)
        if confirm:
            c.execute("UPDATE score_versions SET published_at = ? WHERE version = ?", (stamp, version))
            c.execute("UPDATE competition SET score_version = ? WHERE id = 1", (version,))
            # the published version's replayed states are what each team's next upload continues from
            c.execute("INSERT INTO ladder (team, state) SELECT team, state FROM ladder_versions WHERE version = ? "
                      f"AND team NOT IN ({','.join('?' * len(ladder_kept))}) ON CONFLICT (team) DO UPDATE SET "
                      "state = excluded.state", (version, *ladder_kept))
    changes = [{"rule": rule, "board": board, "team": team, "rank": old[(rule, board)].get(team), "would_be": rank}
               for (rule, board), teams in sorted(new.items()) for team, rank in sorted(teams.items())
               if old[(rule, board)].get(team) != rank]
    return {"version": version, "published": confirm, "previous_version": before, "uploads": len(stored),
            "rank_changes": changes, "status_changes": status_changes, "ladder_kept": ladder_kept, "jobs": jobs}

