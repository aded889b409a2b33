"""The own server's front door: limits checked, the upload graded, the event logged, under one lock.

``grade_logged`` is ``agrieval grade --team T --log LOG``'s work: under an exclusive lock on the log (so
that two uploads of a team cannot both pass a limit), it reads the log, refuses an upload over a limit
(status ``rejected``, code ``submission_limit_reached``, exit 1, the message saying when the next one is
accepted), or grades it (``runtime.guard.grade``, with the team's Ladder when given) and appends its row:
raw public and private values for the organizer, the value shown to the participant. The private value is
computed for the log in every case and shown to the participant only with ``reveal_private``.

``select`` records a team's final selection (up to ``k`` of its scored submissions), the own server's
version of Kaggle's and Hugging Face's "select for final".
"""

from __future__ import annotations

import datetime as dt
import math
import os
from pathlib import Path
from typing import Optional, Sequence, Union

from agrieval.scoring.runtime.ladder import locked
from agrieval.scoring.runtime.result import GradeResult
from agrieval.scoring.server.limits import LIMIT_CODE, SubmissionLimits, check
from agrieval.scoring.server.submission_log import GRADED, LogError, LogRow, append_rows, check_team, read_log

__all__ = ["grade_logged", "select", "DEFAULT_SELECTION_LIMIT"]

DEFAULT_SELECTION_LIMIT = 2  # Kaggle's and Hugging Face's default (SELECTION_LIMIT in competitions' conf.json)


def _now(now: Optional[dt.datetime]) -> dt.datetime:
    when = now or dt.datetime.now(dt.timezone.utc)
    return when.replace(tzinfo=dt.timezone.utc) if when.tzinfo is None else when.astimezone(dt.timezone.utc)


def logged_name(submission: Union[str, Path, bytes], log: Path, filename: Optional[str]) -> str:
    """The ``file`` cell: relative to the log's folder when the upload lies inside it (the audit reads it so)."""
    if isinstance(submission, bytes):
        return filename or ""
    path = Path(os.path.abspath(submission))
    folder = Path(os.path.abspath(log)).parent
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(submission)


def grade_logged(submission: Union[str, Path, bytes], solution, definition, *, log: Union[str, Path], team: str,
                 now: Optional[dt.datetime] = None, limits: SubmissionLimits = SubmissionLimits(),
                 reveal_private: bool = False, ladder: Union[str, Path, None] = None,
                 filename: Optional[str] = None) -> GradeResult:
    """Grade one upload of ``team`` through the log at ``log`` (see the module's docstring)."""
    from agrieval.scoring.runtime.guard import grade, host_failure

    log = Path(log)
    check_team(team)
    when = _now(now)
    try:
        with locked(log):
            rows = read_log(log)
            file = logged_name(submission, log, filename)
            refusal = check(rows, team, when, limits)
            if refusal is not None:
                result = refused(definition, refusal.message, refusal.next_allowed)
                append_rows(log, rows, [LogRow(team, when, file, "refused", codes=(LIMIT_CODE,))])
                return result
            result = grade(submission, solution, definition, reveal_private=True, ladder=ladder, filename=filename)
            number = 1 + sum(1 for r in rows if r.team == team and r.status in GRADED)
            append_rows(log, rows, [_row(result, team, when, file, number, definition.primary_metric)])
    except LogError as exc:
        return host_failure(definition.name, exc.code, exc.render())
    except Exception as exc:  # noqa: BLE001 - the lock's HostError (an unwritable folder...): an answer, not a crash
        return host_failure(definition.name, getattr(exc, "code", "log_unwritable"), f"{log}: {exc}")
    if not reveal_private:
        hide_private(result)
    return result


def _row(result: GradeResult, team: str, when: dt.datetime, file: str, number: int, metric: str) -> LogRow:
    if result.status != "scored":
        return LogRow(team, when, file, result.status, number, tuple(sorted({e.code for e in result.errors})))
    details = result.report.details
    raw = dict(result.metrics.public)
    if "ladder" in details:
        raw = details["ladder"]["raw_public"]
    elif "public_raw" in details:
        raw = details["public_raw"]
    private = (result.metrics.private or {}).get(metric, math.nan)
    return LogRow(team, when, file, "scored", number, public=float(raw[metric]), private=float(private),
                  shown=float(result.metrics.public[metric]))


def hide_private(result: GradeResult) -> None:
    """The private split out of what the participant is shown (computed for the log only)."""
    from agrieval.scoring.runtime.report import Metrics

    if result.metrics.private is not None:
        result.report.metrics = Metrics(public=dict(result.metrics.public), private=None)
    result.report.details.pop("private", None)


def refused(definition, message: str, next_allowed: Optional[dt.datetime]) -> GradeResult:
    """The answer to an upload over a limit: a participant-visible rejection (exit 1), not graded."""
    from agrieval.scoring.runtime.report import ReportProblem, ScoreReport
    from agrieval.scoring.server.submission_log import utc_text

    report = ScoreReport(competition=definition.name, status="rejected", primary_metric=definition.primary_metric,
                         errors=[ReportProblem(code=LIMIT_CODE, message=message)])
    report.details["next_allowed"] = None if next_allowed is None else utc_text(next_allowed)
    return GradeResult(report)


def select(log: Union[str, Path], team: str, submissions: Sequence[int], *, k: int = DEFAULT_SELECTION_LIMIT,
           now: Optional[dt.datetime] = None) -> LogRow:
    """Record ``team``'s final selection: up to ``k`` of its scored submission numbers (an empty selection
    clears it: the best public ones count again). The latest selection row of a team is the one that counts."""
    log = Path(log)
    check_team(team)
    chosen = tuple(sorted(set(int(s) for s in submissions)))
    if len(chosen) > k:
        raise LogError("bad_selection", f"{len(chosen)} submissions selected; a team may select at most {k}",
                       exit_code=1)
    with locked(log):
        rows = read_log(log)
        scored = {r.submission for r in rows if r.team == team and r.status == "scored"}
        unknown = [s for s in chosen if s not in scored]
        if unknown:
            raise LogError("bad_selection", f"team {team!r} has no scored submission numbered "
                                            f"{', '.join(map(str, unknown))}", exit_code=1)
        row = LogRow(team, _now(now), "", "selected", selected=chosen)
        append_rows(log, rows, [row])
    return row
