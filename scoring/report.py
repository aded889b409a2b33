"""The JSON score report: one pydantic model, its JSON Schema exported to docs/report.schema.json."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scoring.problems import Problem

SCHEMA_VERSION = "1.0"


class ReportProblem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str
    message: str
    line: int | None = None
    column: int | None = None
    file: str | None = None

    @classmethod
    def of(cls, p: Problem) -> "ReportProblem":
        return cls(code=p.code, message=p.message, line=p.line, column=p.column, file=p.file)


class Metrics(BaseModel):
    model_config = ConfigDict(extra="forbid")
    public: dict[str, float] = Field(default_factory=dict)
    private: dict[str, float] | None = Field(None, description="Present only when private scores are revealed.")


class ScoreReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: str = SCHEMA_VERSION
    competition: str
    status: Literal["scored", "rejected", "error"]
    primary_metric: str | None = None
    n_rows: int = Field(0, description="Data rows read from the submission.")
    metrics: Metrics = Field(default_factory=Metrics)
    details: dict[str, Any] = Field(default_factory=dict, description=(
        "Per-split breakdowns: per-class scores, confusion matrix, per-group accuracy, grouping used."))
    warnings: list[ReportProblem] = Field(default_factory=list)
    errors: list[ReportProblem] = Field(default_factory=list)

    @property
    def primary(self) -> float | None:
        return self.metrics.public.get(self.primary_metric) if self.primary_metric else None

    def to_json(self) -> str:
        """One JSON object; ``metrics.private`` is left out (not null) unless it was revealed."""
        exclude = {"metrics": {"private"}} if self.metrics.private is None else None
        return self.model_dump_json(indent=2, exclude=exclude)


def json_schema() -> dict:
    return ScoreReport.model_json_schema()
