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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scoring.problems import HostError
from scoring.report import SCHEMA_VERSION, Metrics, ReportProblem


class SubmissionRejected(Exception):
    """The participant's file was refused; the message is safe to show them."""

# What a participant sees when the grader itself failed: the cause stays under ``host``.
HOST_FAILURE_MESSAGE = ("the submission could not be graded because of a problem on the grading server, "
                        "not in your file; the organizers have the details")


class HostInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    elapsed_seconds: float = Field(0.0, description="Wall-clock time of the grading (varies from run to run).")
    time_limit_seconds: float | None = None
    diagnostics: list[ReportProblem] = Field(default_factory=list,
                                             description="Host-side causes: never show them to a participant.")
    details: dict[str, Any] = Field(default_factory=dict, description="Per-split breakdowns from the scorer.")


class GradeResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: str = SCHEMA_VERSION
    competition: str
    status: Literal["scored", "rejected", "error"]
    primary_metric: str | None = None
    n_rows: int = 0
    metrics: Metrics = Field(default_factory=Metrics)
    warnings: list[ReportProblem] = Field(default_factory=list)
    errors: list[ReportProblem] = Field(default_factory=list, description="Participant-safe messages.")
    host: HostInfo = Field(default_factory=HostInfo)

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
        out = self.model_dump(exclude={"host"})
        if out["metrics"].get("private") is None:
            out["metrics"].pop("private", None)
        return out

    def participant_message(self) -> str:
        """One text for platforms that show a single message: the errors, one per line."""
        lines = []
        for e in self.errors:
            where = e.file or "submission"
            if e.line is not None:
                where += f", line {e.line}" + (f", column {e.column}" if e.column is not None else "")
            lines.append(f"[{e.code}] {where}: {e.message}")
        return "\n".join(lines) or self.status

    def raise_unless_scored(self) -> None:
        """For platforms that signal failure by an exception (EvalAI, HF competitions).

        A rejection carries the participant-safe message; a host-side failure only
        its code, since such workers may show any exception text to the participant.
        """
        if self.status == "rejected":
            raise SubmissionRejected(self.participant_message())
        if self.status == "error":
            codes = [d.code for d in self.host.diagnostics] or ["internal_error"]
            raise HostError(codes[0], f"host-side problem [{', '.join(codes)}]; run `agrieval grade` with the "
                            "same files to see its cause")

    def to_dict(self) -> dict[str, Any]:
        out = self.participant_view()
        out["host"] = self.host.model_dump()
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False, allow_nan=False)
