"""The own server's front door: one upload, two short transactions, the grading between them unlocked.

``grade_stored`` is ``agrieval grade UPLOAD --team T --store DB``'s work:

1. ``BEGIN IMMEDIATE``: pending rows left by a crashed grader are resolved (``error``, code
   ``grading_interrupted``: they cost nothing); the timeline, the team's void, its rejected-upload rate and
   the submission limits are checked, counting the team's scored **and pending** uploads (so that
   concurrent uploads cannot all pass); a refusal is a ``refused`` row; otherwise a ``pending`` row is
   reserved, with this process's id. Commit: the lock is released.
2. The upload's bytes are kept under their sha256 and graded (``runtime.guard.grade``), under no lock and
   in no transaction: a slow or hostile upload delays nobody else's bookkeeping.
3. ``BEGIN IMMEDIATE``: the score (version the published one), the Ladder's update (its state is a row of
   the store) and the row's status and submission number are written in one transaction. **The row is the
   commit point**: until it commits nothing reaches the Ladder or a board, and if it fails nothing does.

Submission numbers count a team's *scored* uploads only (1, 2, ...), so that a team selects among the
numbers it was told scores for; the number is in the answer (``details.submission``). ``select`` and
``void`` record a final selection and a void (``server select``, ``server void``).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import sqlite3
from typing import List, Optional, Sequence

from agrieval.scoring._server.limits import HOUR, LIMIT_CODE, RATE_CODE, check, check_rejected_rate, day_bounds
from agrieval.scoring._server.settings import Competition, load_competition
from agrieval.scoring._server.store import Store, StoreError
from agrieval.scoring._server.submission_log import LogError, check_team
from agrieval.scoring._server.timeline import now_utc, parse_utc, utc_text
from agrieval.scoring.runtime.result import GradeResult

# Imported inside functions, so that importing this module loads only what it needs: the runtime's grading side
# (guard, ladder, report: they load numpy and multiprocessing) and the server modules that use it, loaded when an
# upload is graded.

__all__ = ["grade_stored", "select", "void_submission", "void_team", "resolve_abandoned", "VOIDED_CODE",
           "INTERRUPTED_CODE"]

VOIDED_CODE = "team_voided"
INTERRUPTED_CODE = "grading_interrupted"
# a pending row whose grader is alive is still abandoned after this long (its process id may have been reused)
ABANDONED_AFTER = dt.timedelta(hours=6)


def _alive(pid: Optional[int]) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def resolve_abandoned(conn, now: dt.datetime) -> int:
    """Inside a write transaction: pending rows whose grader is gone become ``error`` rows (they cost nothing;
    the bytes stay in the store). How many."""
    gone = [uid for uid, pid, at in conn.execute(
        "SELECT id, pid, reserved_at FROM uploads WHERE status = 'pending'").fetchall()
        if not _alive(pid) or at is None or now - parse_utc(at) > ABANDONED_AFTER]
    for uid in gone:
        conn.execute("UPDATE uploads SET status = 'error', codes = ?, pid = NULL, reserved_at = NULL WHERE id = ?",
                     (INTERRUPTED_CODE, uid))
    return len(gone)


def _ensure_team(conn, team: str) -> Optional[str]:
    """The team's row made if new; its void's reason (None: not voided)."""
    conn.execute("INSERT OR IGNORE INTO teams (name) VALUES (?)", (team,))
    return conn.execute("SELECT voided_reason FROM teams WHERE name = ?", (team,)).fetchone()[0]


def _times(conn, team: str, statuses: Sequence[str], since: dt.datetime, until: dt.datetime) -> List[dt.datetime]:
    """The team's uploads of these statuses in [since, until) (an index range: not the team's whole history)."""
    marks = ",".join("?" * len(statuses))
    return [parse_utc(t) for (t,) in conn.execute(
        f"SELECT submitted_at FROM uploads WHERE team = ? AND submitted_at >= ? AND submitted_at < ? "
        f"AND status IN ({marks})", (team, utc_text(since), utc_text(until), *statuses))]


def _reserve(store: Store, comp: Competition, team: str, name: bytes, when: dt.datetime):
    """Step 1: ``(upload id, None)`` reserved, or ``(None, (code, message, next_allowed))`` refused."""
    settings = comp.settings
    stamp = utc_text(when)
    with store.immediate() as conn:
        resolve_abandoned(conn, now_utc())
        voided = _ensure_team(conn, team)
        refusal = None
        closed = settings.timeline.upload_refusal(when)
        if voided is not None:
            refusal = (VOIDED_CODE, "your team was disqualified by the organizer; no upload is graded", None)
        elif closed is not None:
            refusal = (closed[0], closed[1], settings.timeline.start if closed[0] != "competition_closed" else None)
        else:
            limits = settings.limits
            recent = [] if limits.rejected_per_hour is None else _times(
                conn, team, ("rejected", "error"), when - HOUR, when + dt.timedelta(seconds=1))
            rate = check_rejected_rate(recent, when, limits)
            if rate is not None:
                refusal = (RATE_CODE, rate.message, rate.next_allowed)
            else:
                today = [] if limits.per_day is None else _times(conn, team, ("scored", "pending"), *day_bounds(when))
                total = None if limits.total is None else conn.execute(
                    "SELECT count(*) FROM uploads WHERE team = ? AND status IN ('scored', 'pending')",
                    (team,)).fetchone()[0]
                over = check(today, when, limits, total=total or 0)
                if over is not None:
                    refusal = (LIMIT_CODE, over.message, over.next_allowed)
        if refusal is not None:
            conn.execute("INSERT INTO uploads (team, submitted_at, name, status, codes) VALUES (?, ?, ?, 'refused', ?)",
                         (team, stamp, name, refusal[0]))
            return None, refusal
        # (the clock's time, not the upload's: --now replays must not make a live grading look abandoned)
        cur = conn.execute("INSERT INTO uploads (team, submitted_at, name, status, pid, reserved_at) "
                           "VALUES (?, ?, ?, 'pending', ?, ?)", (team, stamp, name, os.getpid(), utc_text(now_utc())))
        return cur.lastrowid, None


def _values(result: GradeResult, metric: str) -> tuple:
    """(raw public, raw private or None, shown) of a scored result (before the Ladder)."""
    details = result.report.details
    raw = details.get("public_raw", result.metrics.public)
    private = (result.metrics.private or {}).get(metric)
    private = None if private is None or math.isnan(private) else float(private)
    return float(raw[metric]), private, float(result.metrics.public[metric])


def _commit(store: Store, comp: Competition, upload: int, team: str, result: GradeResult, name: str,
            digest: str) -> GradeResult:
    """Step 3: the row, the score and the Ladder's update in one transaction."""
    from agrieval.scoring.runtime import _ladder as ladder
    from agrieval.scoring.runtime._unit_scores import unit_name

    definition, settings = comp.definition, comp.settings
    metric = definition.primary_metric
    with store.immediate() as conn:
        conn.execute("UPDATE uploads SET sha256 = ? WHERE id = ?", (digest, upload))
        if result.status != "scored":
            codes = " ".join(sorted({e.code for e in result.errors}
                                    | {d.code for d in result.host.diagnostics if result.status == "error"}))
            conn.execute("UPDATE uploads SET status = ?, codes = ?, pid = NULL, reserved_at = NULL WHERE id = ?",
                         (result.status if result.status in ("rejected", "error") else "error", codes, upload))
            return result
        number = 1 + conn.execute("SELECT coalesce(max(number), 0) FROM uploads WHERE team = ?", (team,)).fetchone()[0]
        public, private, shown = _values(result, metric)
        if settings.ladder:
            units = result.report.details.get("public", {}).pop("ladder_unit_values")
            row = conn.execute("SELECT state FROM ladder WHERE team = ?", (team,)).fetchone()
            state = ladder.state_from_dict(json.loads(row[0])) if row else ladder.State(
                definition.name, metric, unit_name(definition), len(units), settings.solution_sha256)
            decision = ladder.decide(state, units, dict(result.metrics.public), file=name)
            if decision.released:  # the store's number of the released submission (the Ladder counts its own)
                state.released["number"] = number
            decision.submission = number
            decision.shown_submission = int(state.released.get("number", decision.shown_submission))
            result = ladder.show(result, decision)
            shown = float(decision.shown[metric])
            conn.execute("INSERT INTO ladder (team, state) VALUES (?, ?) ON CONFLICT (team) DO UPDATE SET "
                         "state = excluded.state", (team, json.dumps(state.to_dict(), allow_nan=False)))
        # the version published now, not when the settings were read: a rescore confirmed while this upload was
        # graded must not leave its score in a version no board shows
        version = conn.execute("SELECT score_version FROM competition WHERE id = 1").fetchone()[0]
        conn.execute("INSERT INTO scores (upload, version, public, private, shown) VALUES (?, ?, ?, ?, ?)",
                     (upload, version, public, private, shown))
        conn.execute("UPDATE uploads SET status = 'scored', number = ?, pid = NULL, reserved_at = NULL "
                     "WHERE id = ?", (number, upload))
    result.report.details["submission"] = number
    return result


def grade_stored(store: Store, data: bytes, name: str, team: str, *, now: Optional[dt.datetime] = None,
                 reveal_private: bool = False, competition: Optional[Competition] = None) -> GradeResult:
    """Grade one upload of ``team`` (its bytes and original file name) through the store (see the module)."""
    from agrieval.scoring.runtime.guard import grade, host_failure

    check_team(team)
    comp = competition or load_competition(store)
    definition = comp.definition
    when = now_utc(now)
    raw_name = os.fsencode(name)  # an undecodable name (surrogate escapes) keeps its bytes: data, never a crash
    upload, refusal = _reserve(store, comp, team, raw_name, when)
    if refusal is not None:
        return refused(definition, *refusal)
    # whatever stops the grading step (a StoreError answered here; anything else, even an interrupt, raised to the
    # caller as it is) releases the reserved row now: a long-lived process's own id stays alive, and its row
    # would hold the team's limit until ABANDONED_AFTER
    code, committed = "internal_error", False
    try:
        digest = store.keep_upload(data)
        result = grade(data, comp.solution, definition, reveal_private=True, filename=name,
                       unit_values=comp.settings.ladder)
        result = _commit(store, comp, upload, team, result, name, digest)
        committed = True
    except StoreError as exc:
        code = exc.code
        return host_failure(definition.name, exc.code, str(exc))
    except (KeyboardInterrupt, SystemExit):
        code = INTERRUPTED_CODE
        raise
    finally:
        if not committed:
            _release(store, upload, code)
    if result.status == "scored" and not reveal_private:
        hide_private(result)
    result.report.details["timeline"] = comp.settings.timeline.texts()
    return result


def _release(store: Store, upload: int, code: str) -> None:
    """A reserved row whose grading failed (for any reason) becomes ``error`` now (it costs the team nothing), not
    when this process has ended: a long-lived process's own id stays alive. Left ``pending`` if even that fails."""
    try:
        with store.immediate() as conn:
            conn.execute("UPDATE uploads SET status = 'error', codes = ?, pid = NULL, reserved_at = NULL WHERE id = ? "
                         "AND status = 'pending'", (code, upload))
    except (StoreError, sqlite3.Error):
        pass  # (the store itself is what failed: the next reservation resolves the row once this process is gone)


def hide_private(result: GradeResult) -> None:
    """The private split out of what the participant is shown (computed for the store only)."""
    from agrieval.scoring.runtime.report import Metrics

    if result.metrics.private is not None:
        result.report.metrics = Metrics(public=dict(result.metrics.public), private=None)
    result.report.details.pop("private", None)


def refused(definition, code: str, message: str, next_allowed: Optional[dt.datetime]) -> GradeResult:
    """The answer to an upload the server does not grade: a participant-visible rejection (exit 1)."""
    from agrieval.scoring.runtime.report import ReportProblem, ScoreReport

    report = ScoreReport(competition=definition.name, status="rejected", primary_metric=definition.primary_metric,
                         errors=[ReportProblem(code=code, message=message)])
    report.details["next_allowed"] = None if next_allowed is None else utc_text(next_allowed)
    return GradeResult(report)


def select(store: Store, team: str, numbers: Sequence[int], *, now: Optional[dt.datetime] = None) -> dict:
    """Record ``team``'s final selection: up to the store's selection limit of its scored, not voided submission
    numbers (none: the best public ones count again). The latest selection counts."""
    from agrieval.scoring._server.settings import read_settings

    check_team(team)
    settings = read_settings(store)
    when = now_utc(now)
    chosen = tuple(sorted(set(int(s) for s in numbers)))
    late = settings.timeline.selection_refusal(when)
    if late is not None:
        raise LogError("selection_closed", late, exit_code=1)
    k = settings.selection_limit
    if len(chosen) > k:
        raise LogError("bad_selection", f"{len(chosen)} submissions selected; a team may select at most {k}",
                       exit_code=1)
    with store.immediate() as conn:
        if conn.execute("SELECT 1 FROM teams WHERE name = ?", (team,)).fetchone() is None:
            raise LogError("bad_selection", f"team {team!r} has no upload in the store; check the name (it is "
                                            "compared exactly, as `agrieval grade --team` was given it)", exit_code=1)
        have = {n for (n,) in conn.execute("SELECT number FROM uploads WHERE team = ? AND status = 'scored' AND "
                                           "voided_reason IS NULL", (team,))}
        unknown = [s for s in chosen if s not in have]
        if unknown:
            raise LogError("bad_selection", f"team {team!r} has no scored submission numbered "
                                            f"{', '.join(map(str, unknown))}; it may select "
                                            f"{', '.join(map(str, sorted(have))) or 'none yet'}", exit_code=1)
        conn.execute("INSERT INTO selections (team, selected_at, numbers) VALUES (?, ?, ?)",
                     (team, utc_text(when), " ".join(map(str, chosen))))
    return {"team": team, "selected_at": utc_text(when), "selected": list(chosen)}


def _void_reason(reason: str) -> str:
    from agrieval.scoring.text.terminal import is_safe

    if not reason.strip() or not is_safe(reason) or len(reason) > 1000:
        raise LogError("bad_void", "--reason must be 1 to 1000 printable characters on one line", exit_code=2)
    return reason


def void_submission(store: Store, team: str, number: int, reason: str,
                    now: Optional[dt.datetime] = None) -> dict:
    """Mark ``team``'s scored submission ``number`` voided (kept, shown as voided, never ranked)."""
    check_team(team)
    reason = _void_reason(reason)
    with store.immediate() as conn:
        cur = conn.execute("UPDATE uploads SET voided_reason = ?, voided_at = ? WHERE team = ? AND number = ? AND "
                           "voided_reason IS NULL", (reason, utc_text(now_utc(now)), team, int(number)))
        if cur.rowcount != 1:
            raise LogError("bad_void", f"team {team!r} has no scored, not yet voided submission numbered "
                                            f"{number}", exit_code=1)
    return {"team": team, "submission": int(number), "voided": reason}


def void_team(store: Store, team: str, reason: str, now: Optional[dt.datetime] = None) -> dict:
    """Disqualify ``team``: kept and listed as voided, never ranked, no later upload graded."""
    check_team(team)
    reason = _void_reason(reason)
    with store.immediate() as conn:
        cur = conn.execute("UPDATE teams SET voided_reason = ?, voided_at = ? WHERE name = ? AND voided_reason IS NULL",
                           (reason, utc_text(now_utc(now)), team))
        if cur.rowcount != 1:
            raise LogError("bad_void", f"the store has no team {team!r} that is not voided yet", exit_code=1)
    return {"team": team, "voided": reason}
