"""The one guarded entry point every grading hook goes through.

``grade(submission, solution, competition)`` never raises and never hangs:

1. the definition and the solution are loaded in this process (they are the
   organizer's files: a problem there is host-side, status ``error``);
2. the participant's upload is unpacked (``scoring/runtime/reading/_uploads.py``), read and
   scored in a child process killed after ``limits.max_seconds`` and capped
   at ``limits.max_memory_mb`` more memory (``time_limit.py``); byte, row, cell, label and unzipped-size
   limits are checked by the reader before the work they protect;
3. the answer is split into what the participant may see (status, metrics,
   problems with stable codes) and what only the host may see (``host``:
   timings, the cause of a failure, per-class breakdowns).

A crash, a timeout or a host-side problem never shows a traceback or the
solution to the participant. Nothing is written anywhere: hooks write their
declared outputs themselves, from the returned ``GradeResult``.
"""

from __future__ import annotations

import json
import time
import traceback
from dataclasses import replace
from pathlib import Path

from ._split_safe import split_independent
from ._time_limit import run_with_time_limit
from ._unit_scores import check_decomposable, public_unit_values, unit_name
from .definition import CompetitionDefinition, load_definition
from .problems import HostError
from .reading._uploads import ZIP_MAGIC, unpack
from .reading.solution import Solution, load_solution
from .reading.submission import Submission, read_submission
from .report import Metrics, ReportProblem, ScoreReport
from .result import HOST_FAILURE_MESSAGE, GradeResult, HostInfo
from .untrusted import open_regular

# Imported inside functions, so that importing this module loads only what it needs: the Ladder (only a grade with
# a Ladder state needs it); the scorer, looked up when called so that a test's replaced scorer.score reaches the
# forked child.


def grade(submission: str | Path | bytes, solution: str | Path | Solution,
          competition: str | Path | CompetitionDefinition, *, reveal_private: bool = False,
          filename: str | None = None, split_safe: bool = False, ladder: str | Path | None = None,
          unit_values: bool = False) -> GradeResult:
    """Grade one upload; the in-process twin of ``agrieval grade`` (same ``GradeResult``).

    ``ladder``: the team's Ladder state file (``ladder.py``; created if absent): the public metrics
    shown are then those of the team's released submission, this one's raw values go under ``host``.
    ``unit_values=True`` (no ``ladder``): the public unit values of the primary metric are left under
    ``details['public']['ladder_unit_values']`` for a caller that keeps the Ladder's state itself (the own
    server's store, ``scoring/_server``).

    ``submission`` is a path (a CSV, a zip holding one CSV, a folder holding one
    file) or the bytes of a CSV or zip. ``split_safe=True`` is for platforms
    that hand over one split at a time (Kaggle): row-level problems then become one message that names no
    row, count, cell or code (``split_safe.py``).
    """
    started = time.perf_counter()
    name = str(getattr(competition, "name", competition))
    try:
        definition = competition if isinstance(competition, CompetitionDefinition) else load_definition(competition)
        name = definition.name
        sol = solution if isinstance(solution, Solution) else load_solution(solution, definition)
    except HostError as exc:
        return host_failure(name, exc.code, str(exc), started)
    except Exception as exc:  # noqa: BLE001 - a server must get an answer, not a traceback
        return host_failure(name, "internal_error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}",
                             started)

    units = ladder is not None or unit_values
    if units:
        try:
            check_decomposable(definition)
        except HostError as exc:
            return host_failure(name, exc.code, str(exc), started)
    limit = definition.limits.max_seconds
    memory_mb = definition.limits.max_memory_mb
    outcome = run_with_time_limit(_read_and_score, (submission, sol, definition, reveal_private, filename, units),
                                  seconds=limit, memory_bytes=memory_mb * 2**20)
    breach = limit_breach(outcome, definition)
    if breach is not None:
        result = _over_limit(name, definition, *breach, outcome.error_text)
        if outcome.kind == "timeout":
            result.errors.extend(problems_near_the_start(submission, definition, filename))
    elif outcome.kind == "ok":
        result = _from_report(ScoreReport.from_dict(json.loads(outcome.value)))
    elif outcome.kind == "raised" and outcome.error_type == "HostError":
        result = host_failure(name, outcome.value["code"], outcome.value["message"], started)
    else:
        result = host_failure(name, "internal_error", f"{outcome.error_type}: {outcome.error_text}", started)
    if ladder is not None and result.status == "scored":
        result = _through_ladder(result, ladder, sol, definition, filename or str(submission), started)
    elif definition.public_decimals is not None and result.status == "scored" and not unit_values:
        result = _rounded_public(result, definition.public_decimals)
    if split_safe:
        result = split_independent(result)
    result.host.diagnostics.extend(ReportProblem.of(w) for w in sol.warnings)  # host-only: never in errors
    result.report.primary_metric = definition.primary_metric
    result.host.elapsed_seconds = round(time.perf_counter() - started, 3)
    result.host.time_limit_seconds = limit
    return result


def _read_and_score(submission: str | Path | bytes, sol: Solution, definition: CompetitionDefinition,
                    reveal_private: bool, filename: str | None, units: bool = False) -> str:
    """Runs in the child process: unpack, read, score; returns the report as JSON (cheap to send back).
    ``units``: the public unit values of the primary metric go along in ``details['public']`` (the Ladder's
    input; ``_through_ladder`` takes them out)."""
    from .scorer import _score_aligned, score

    try:
        upload = unpack(submission, definition.limits, filename=filename)
    except FileNotFoundError as exc:
        raise HostError("internal_error", str(exc)) from None
    if not upload.ok:
        return ScoreReport(competition=definition.name, status="rejected",
                           errors=[ReportProblem.of(p) for p in upload.problems if p.severity == "error"],
                           warnings=[ReportProblem.of(p) for p in upload.problems if p.severity == "warning"]
                           ).to_json()
    data, shown = upload.data, upload.filename
    sub: Submission = read_submission(data, definition, filename=shown, checked_ids=sol.checked_ids)
    if not units:
        return score(sub, sol, definition, reveal_private=reveal_private).to_json()
    report, order = _score_aligned(sub, sol, definition, reveal_private=reveal_private)
    if report.status == "scored":
        report.details["public"][_UNITS] = public_unit_values(sub, sol, definition, order)
    return report.to_json()


_UNITS = "ladder_unit_values"


def _rounded_public(result: GradeResult, decimals: int) -> GradeResult:
    """The public metrics rounded to the definition's ``public_decimals`` (a stateless board's defence against
    probing); the raw values go under ``host.details['public_raw']``."""
    result.report.details["public_raw"] = dict(result.metrics.public)
    result.report.metrics = Metrics(public={k: round(v, decimals) for k, v in result.metrics.public.items()},
                             private=result.metrics.private)
    return result


def _through_ladder(result: GradeResult, state: str | Path, sol: Solution, definition: CompetitionDefinition,
                    file: str, started: float) -> GradeResult:
    """The scored ``result`` as the team's Ladder shows it, or a host failure (bad state file...)."""
    from . import _ladder as ladder

    values = result.report.details.get("public", {}).pop(_UNITS)
    try:
        decision = ladder.submit(state, values, result.metrics.public, competition=definition.name,
                                 metric=definition.primary_metric, unit=unit_name(definition),
                                 solution_sha256=ladder.solution_fingerprint(sol, definition), file=file)
    except HostError as exc:
        return host_failure(definition.name, exc.code, str(exc), started)
    return ladder.show(result, decision)


def _from_report(report: ScoreReport) -> GradeResult:
    status = report.status if report.status != "error" else "rejected"
    metrics = report.metrics if status == "scored" else Metrics()
    return GradeResult(replace(report, status=status, metrics=metrics))


# How much of a file that timed out is read again, in this process, to name its real problem.
_PREFIX_BYTES = 1 << 16


def problems_near_the_start(submission: str | Path | bytes, definition: CompetitionDefinition,
                             filename: str | None) -> list:
    """The format problems of the file's first 64 KiB (whole lines): bounded work that tells a participant whose
    file timed out what is wrong with it, where a plain time-limit message would not."""
    try:
        if isinstance(submission, bytes):
            head, shown = submission[:_PREFIX_BYTES], filename or "submission.csv"
        else:
            path = Path(submission)
            if not path.is_file():
                return []
            with open_regular(path, max_bytes=definition.limits.max_bytes, what="submission") as fh:
                head = fh.read(_PREFIX_BYTES)
            shown = filename or path.name
        if head[:4] == ZIP_MAGIC or b"\n" not in head:
            return []
        head = head[:head.rindex(b"\n") + 1]
        sub = read_submission(head, definition, filename=shown)
    except Exception:  # noqa: BLE001 - only a hint: the rejection stands without it
        return []
    skip = ("header_only", "too_many_rows", "too_many_problems")
    return [ReportProblem.of(p) for p in sub.errors if p.code not in skip][:5]


def over_limit_problem(code: str, what: str) -> ReportProblem:
    """The participant's message of an upload refused for a resource limit (also the warm path's)."""
    return ReportProblem(code=code, message=f"grading this file {what}, the limit of this competition; check that "
                                            "it is a plain CSV in the expected format")


def limit_breach(outcome, definition: CompetitionDefinition) -> tuple[str, str] | None:
    """``(code, what)`` when ``outcome`` of ``run_with_time_limit`` went past the memory or time limit."""
    if outcome.kind == "raised" and outcome.error_type == "MemoryError":
        return "memory_limit_exceeded", f"needed more than {definition.limits.max_memory_mb:,} MiB of memory"
    if outcome.kind == "timeout":
        return "time_limit_exceeded", f"took longer than {definition.limits.max_seconds:g} seconds"
    return None


def _over_limit(name: str, definition: CompetitionDefinition, code: str, what: str, diagnostic: str) -> GradeResult:
    """The upload is refused: grading it went past a resource limit of the competition."""
    return GradeResult(ScoreReport(competition=name, status="rejected", primary_metric=definition.primary_metric,
                                   errors=[over_limit_problem(code, what)]),
                       HostInfo(diagnostics=[ReportProblem(code=code, message=diagnostic)]))


def host_failure(name: str, code: str, message: str, started: float | None = None) -> GradeResult:
    """A grading that failed on the host side: a generic participant message, the cause under ``host``."""
    elapsed = round(time.perf_counter() - started, 3) if started is not None else 0.0
    return GradeResult(ScoreReport(competition=name, status="error",
                                   errors=[ReportProblem(code="internal_error", message=HOST_FAILURE_MESSAGE)]),
                       HostInfo(elapsed_seconds=elapsed,
                                     diagnostics=[ReportProblem(code=code if code in _HOST_CODES else "internal_error",
                                                                message=message)]))


_HOST_CODES = ("solution_invalid", "definition_invalid", "internal_error", "time_limit_exceeded",
               "ladder_state_corrupt", "ladder_state_foreign", "ladder_state_unwritable", "ladder_lock_unavailable",
               "ladder_metric_unsupported", "ladder_too_few_units",
               "memory_limit_exceeded", "log_corrupt", "log_unwritable",
               # the command line's own host-side codes (scoring/cli/_failures.py): the operator's diagnostics
               # keep them rather than a vaguer internal_error
               "folder_not_found", "file_not_found", "bad_option",
               # the own server's store (scoring/_server/store.py's CODES; listed here because the runtime imports
               # nothing of the server: tests/scoring/server/test_store.py checks the two lists agree)
               "store_not_regular", "store_missing", "store_exists", "store_corrupt", "store_newer",
               "store_unwritable", "store_foreign", "store_upload_lost")
