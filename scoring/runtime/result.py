"""What one grading returns: a participant-safe part and a host-only part.

Everything outside ``host`` may be shown to the participant as is (status,
metrics of the revealed splits, warnings, errors). ``host`` carries what only
the organizer may see: timings, the real cause of a host-side failure (which
may quote the solution), per-class breakdowns (their supports are counts of
true labels). ``agrieval grade`` prints ``to_dict()``; every platform hook
builds its own answer from the same object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from .problems import locate
from .report import ReportProblem, ScoreReport

_STRICT = {"extra": "forbid"}


class SubmissionRejected(Exception):
    """The participant's file was refused; the message is safe to show them."""

# What a participant sees when the grader itself failed: the cause stays under ``host``.
HOST_FAILURE_MESSAGE = ("the submission could not be graded because of a problem on the grading server, "
                        "not in your file; the organizers have the details")
# The first line of stderr where a platform shows the program's log (Codabench, CodaLab, EvalAI) and the
# grading failed on the host side: it must not read like a rejection.
HOST_FAILURE_LINE = ("the scoring program failed on the organizers' side; this is not your submission's fault "
                     "(the organizers have been given the code below)")


@dataclass
class HostInfo:
    """What only the organizer may see."""

    __pydantic_config__ = _STRICT
    elapsed_seconds: float = 0.0  # wall-clock time of the grading (varies from run to run)
    time_limit_seconds: Optional[float] = None
    diagnostics: List[ReportProblem] = field(default_factory=list)  # host-side causes: never shown to a participant

    def to_dict(self) -> Dict[str, Any]:
        return {"elapsed_seconds": self.elapsed_seconds, "time_limit_seconds": self.time_limit_seconds,
                "diagnostics": [d.to_dict() for d in self.diagnostics]}


def _of_report(name: str) -> property:
    return property(lambda self: getattr(self.report, name), doc=f"``report.{name}``")


@dataclass
class GradeResult:
    """One grading: the score report, and ``host``.

    ``report`` is what the participant may see, except its ``details`` (per-class supports count true
    labels), which are shown under ``host``; a grading that did not score has no metrics and the status
    ``rejected`` (the participant's file) or ``error`` (the host's side).
    """

    __pydantic_config__ = _STRICT
    report: ScoreReport
    host: HostInfo = field(default_factory=HostInfo)

    schema_version, competition, status = _of_report("schema_version"), _of_report("competition"), _of_report("status")
    primary_metric, n_rows, metrics = _of_report("primary_metric"), _of_report("n_rows"), _of_report("metrics")
    warnings, errors, primary = _of_report("warnings"), _of_report("errors"), _of_report("primary")

    @property
    def exit_code(self) -> int:
        # The exit codes of DESIGN.md (scoring/cli/_failures.py), spelled out so that a bundled scoring
        # program does not need click.
        return {"scored": 0, "rejected": 1}.get(self.status, 3)

    def participant_view(self) -> dict[str, Any]:
        """Everything that may be shown to the participant (no ``host`` key; private metrics only if revealed)."""
        return {k: v for k, v in self.report.to_dict().items() if k != "details"}

    def participant_message(self) -> str:
        """One text for platforms that show a single message: one ``file:line:column: error [code] message``
        line per error, the format of every agrieval command."""
        return "\n".join(_render_line(e) for e in self.errors) or self.status

    def to_dict(self) -> dict[str, Any]:
        out = self.participant_view()
        out["host"] = {**self.host.to_dict(), "details": self.report.details}
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False, allow_nan=False)


def _render_line(problem: ReportProblem, severity: str = "error") -> str:
    """``file:line:column: error [code] message``, or ``error [code] message`` when there is no file."""
    if problem.file is None and problem.line is None:
        return f"{severity} [{problem.code}] {problem.message}"
    return f"{locate(problem.file, problem.line, problem.column)}: {severity} [{problem.code}] {problem.message}"
