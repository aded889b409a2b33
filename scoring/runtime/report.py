"""The score report: plain dataclasses, serialised as one JSON object.

The JSON Schema of this report is exported from these classes by
``agrieval.scoring.authoring.schemas`` (pydantic reads the annotations) into
``docs/report.schema.json``; the runtime itself needs no pydantic.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Literal, Optional

from .problems import Problem

SCHEMA_VERSION = "1.0"
_STRICT = {"extra": "forbid"}


@dataclass
class ReportProblem:
    """One problem as the report shows it: a stable code, a message and, where they apply, a position."""

    __pydantic_config__ = _STRICT
    code: str
    message: str
    line: Optional[int] = None
    column: Optional[int] = None
    file: Optional[str] = None

    @classmethod
    def of(cls, p: Problem) -> "ReportProblem":
        return cls(code=p.code, message=p.message, line=p.line, column=p.column, file=p.file)

    def to_dict(self) -> Dict[str, Any]:
        """The problem without its empty fields."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "ReportProblem":
        return cls(**data)


@dataclass
class Metrics:
    """Metric values per split; ``private`` is present only when private scores are revealed."""

    __pydantic_config__ = _STRICT
    public: Dict[str, float] = field(default_factory=dict)
    private: Optional[Dict[str, float]] = None

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"public": dict(self.public)}
        if self.private is not None:
            out["private"] = dict(self.private)
        return out


@dataclass
class ScoreReport:
    """What ``agrieval score --json`` prints: status, metrics, per-split details, warnings and errors."""

    __pydantic_config__ = _STRICT
    competition: str
    status: Literal["scored", "rejected", "error"]
    schema_version: str = SCHEMA_VERSION
    primary_metric: Optional[str] = None
    n_rows: int = 0  # data rows read from the submission
    metrics: Metrics = field(default_factory=Metrics)
    # Per-split breakdowns: per-class scores, confusion matrix, per-group accuracy, grouping used.
    details: Dict[str, Any] = field(default_factory=dict)
    warnings: List[ReportProblem] = field(default_factory=list)
    errors: List[ReportProblem] = field(default_factory=list)

    @property
    def primary(self) -> Optional[float]:
        return self.metrics.public.get(self.primary_metric) if self.primary_metric else None

    def to_dict(self) -> Dict[str, Any]:
        """Plain data; ``metrics.private`` is left out (not null) unless it was revealed."""
        return {
            "schema_version": self.schema_version, "competition": self.competition, "status": self.status,
            "primary_metric": self.primary_metric, "n_rows": self.n_rows, "metrics": self.metrics.to_dict(),
            "details": self.details, "warnings": [w.to_dict() for w in self.warnings],
            "errors": [e.to_dict() for e in self.errors],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "ScoreReport":
        data = dict(data)
        metrics = data.pop("metrics", {}) or {}
        return cls(metrics=Metrics(public=dict(metrics.get("public", {})), private=metrics.get("private")),
                   warnings=[ReportProblem.from_dict(w) for w in data.pop("warnings", [])],
                   errors=[ReportProblem.from_dict(e) for e in data.pop("errors", [])], **data)
