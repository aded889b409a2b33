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
from typing import Any, Dict, List, Literal, Optional

from .problems import locate
from .report import SCHEMA_VERSION, Metrics, ReportProblem

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
    details: Dict[str, Any] = field(default_factory=dict)  # per-split breakdowns from the scorer

    def to_dict(self) -> Dict[str, Any]:
        return {"elapsed_seconds": self.elapsed_seconds, "time_limit_seconds": self.time_limit_seconds,
                "diagnostics": [d.to_dict() for d in self.diagnostics], "details": self.details}


@dataclass
class GradeResult:
    """One grading: the participant-safe part, and ``host``."""

    __pydantic_config__ = _STRICT
    competition: str
    status: Literal["scored", "rejected", "error"]
    schema_version: str = SCHEMA_VERSION
    primary_metric: Optional[str] = None
    n_rows: int = 0
    metrics: Metrics = field(default_factory=Metrics)
    warnings: List[ReportProblem] = field(default_factory=list)
    errors: List[ReportProblem] = field(default_factory=list)  # participant-safe messages
    host: HostInfo = field(default_factory=HostInfo)

    @property
    def exit_code(self) -> int:
        # The exit codes of DESIGN.md (scoring/cli/common.py), spelled out so that a bundled scoring
        # program does not need click.
        return {"scored": 0, "rejected": 1}.get(self.status, 3)

    @property
    def primary(self) -> float | None:
        return self.metrics.public.get(self.primary_metric) if self.primary_metric else None

    def participant_view(self) -> dict[str, Any]:
        """Everything that may be shown to the participant (no ``host`` key; private metrics only if revealed)."""
        return {"schema_version": self.schema_version, "competition": self.competition, "status": self.status,
                "primary_metric": self.primary_metric, "n_rows": self.n_rows, "metrics": self.metrics.to_dict(),
                "warnings": [w.to_dict() for w in self.warnings], "errors": [e.to_dict() for e in self.errors]}

    def participant_message(self) -> str:
        """One text for platforms that show a single message: one ``file:line:column: error [code] message``
        line per error, the format of every agrieval command."""
        return "\n".join(render_line(e) for e in self.errors) or self.status

    def to_dict(self) -> dict[str, Any]:
        out = self.participant_view()
        out["host"] = self.host.to_dict()
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False, allow_nan=False)


def render_line(problem: ReportProblem, severity: str = "error") -> str:
    """``file:line:column: error [code] message``, or ``error [code] message`` when there is no file."""
    if problem.file is None and problem.line is None:
        return f"{severity} [{problem.code}] {problem.message}"
    return f"{locate(problem.file, problem.line, problem.column)}: {severity} [{problem.code}] {problem.message}"
