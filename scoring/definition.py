"""Competition definitions: TOML files validated by pydantic.

A definition says everything the reader, validator and scorer need to know
about one competition: the task, the columns, the CSV dialect, the list syntax,
the vocabulary, the limits, the public/private split, the grouping and the
primary metric. Shipped definitions live in ``scoring/competitions/``; a user
may pass a path to their own TOML instead of a name.
"""

from __future__ import annotations

import tomllib
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from scoring.problems import HostError

COMPETITIONS_DIR = Path(__file__).parent / "competitions"

MULTILABEL_METRICS = ("transect_f1", "sample_f1", "micro_f1", "macro_f1", "sample_precision", "sample_recall")
MULTICLASS_METRICS = ("accuracy", "balanced_accuracy", "macro_f1", "group_accuracy")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Limits(_Strict):
    max_bytes: int = Field(50_000_000, gt=0, description="Largest accepted file, checked before reading.")
    max_rows: int = Field(1_000_000, gt=0)
    max_labels_per_row: int = Field(1_000, gt=0)
    max_cell_chars: int = Field(100_000, gt=0, description="Longest accepted CSV field.")
    max_seconds: float = Field(60.0, gt=0, description="Wall-clock budget for one grading in the hooks.")
    max_unzipped_bytes: int = Field(200_000_000, gt=0, description="Largest accepted member of a zip upload.")
    max_memory_mb: int = Field(2048, gt=0, description="Memory (address space, MiB) one grading in the hooks may "
                               "add to the server's own; POSIX only.")


class SplitSpec(_Strict):
    """Public/private split column of the solution (Kaggle ``Usage`` or HF ``split``)."""

    column: str = "Usage"
    public: str = "Public"
    private: str = "Private"
    ignored: str | None = "Ignored"
    # EvalAI phase codename -> split name ("public" or "private").
    phases: dict[str, Literal["public", "private"]] = Field(default_factory=dict)


class GroupingSpec(_Strict):
    """How rows are grouped: PlantCLEF transects, AgrI teams.

    ``solution_column`` wins when the solution has it; otherwise ``rule`` derives
    the group from the id (multilabel only). No official PlantCLEF rule exists:
    see ``scoring/grouping.py`` for what each rule gives on the real ids.
    """

    name: str = Field("group", description="What a group is called in reports: transect, team...")
    solution_column: str | None = None
    rule: Literal["strip-date", "first-n-parts", "regex", "whole-id", "column-only"] = "column-only"
    n_parts: int = Field(3, gt=0)
    patterns: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_rule(self) -> "GroupingSpec":
        if self.rule == "regex":
            import re

            if not self.patterns:
                raise ValueError("grouping.rule = 'regex' needs grouping.patterns")
            for p in self.patterns:
                try:
                    compiled = re.compile(p)
                except re.error as exc:
                    raise ValueError(f"grouping.patterns: {p!r} is not a valid regex ({exc})") from None
                if compiled.groups != 1:
                    raise ValueError(f"grouping.patterns: {p!r} must have exactly one capture group")
        if self.rule == "column-only" and not self.solution_column:
            raise ValueError("grouping.rule = 'column-only' needs grouping.solution_column")
        return self


class CompetitionDefinition(_Strict):
    name: str
    title: str = ""
    url: str = ""
    task: Literal["multilabel", "multiclass"]
    id_column: str
    prediction_column: str
    delimiter: str = Field(",", min_length=1, max_length=1)
    quoting: Literal["all", "minimal", "none"] = Field(
        "minimal", description="How files of this competition are usually written; the reader accepts any CSV quoting.")
    list_syntax: Literal["python-list", "space-separated", "single"] = "python-list"
    label_type: Literal["int", "str"] = "int"
    vocabulary_file: str | None = Field(None, description="One label per line, relative to the TOML file.")
    vocabulary: list[str] | None = Field(None, description="Inline vocabulary (small label sets).")
    id_pattern: str | None = Field(None, description="Regex every id must fully match.")
    limits: Limits = Field(default_factory=Limits)
    split: SplitSpec = Field(default_factory=SplitSpec)
    grouping: GroupingSpec | None = None
    primary_metric: str
    higher_is_better: bool = True
    empty_both_score: float = Field(1.0, ge=0.0, le=1.0,
                                    description="Score of a row whose truth and prediction are both empty.")
    source_path: str | None = Field(None, exclude=True)

    @field_validator("delimiter")
    @classmethod
    def _delim(cls, v: str) -> str:
        if v in ('"', "\n", "\r") or v.isalnum():
            raise ValueError(f"delimiter {v!r} cannot be used")
        return v

    @field_validator("id_pattern")
    @classmethod
    def _pattern(cls, v: str | None) -> str | None:
        if v is not None:
            import re

            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"id_pattern is not a valid regex ({exc})") from None
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "CompetitionDefinition":
        allowed = MULTILABEL_METRICS if self.task == "multilabel" else MULTICLASS_METRICS
        if self.primary_metric not in allowed:
            raise ValueError(f"primary_metric {self.primary_metric!r} is not one of {', '.join(allowed)} "
                             f"for task {self.task!r}")
        if self.task == "multiclass" and self.list_syntax != "single":
            raise ValueError("list_syntax must be 'single' for a multiclass task")
        if self.task == "multilabel" and self.list_syntax == "single":
            raise ValueError("list_syntax 'single' is only for multiclass tasks")
        if self.vocabulary_file and self.vocabulary:
            raise ValueError("give vocabulary_file or vocabulary, not both")
        if self.id_column == self.prediction_column:
            raise ValueError("id_column and prediction_column must differ")
        if self.primary_metric == "transect_f1" and self.grouping is None:
            raise ValueError("primary_metric 'transect_f1' needs a [grouping] table")
        return self

    @cached_property
    def labels(self) -> frozenset | None:
        """The vocabulary as a set of labels of ``label_type``, or None when open."""
        items: list[str] | None = self.vocabulary
        if self.vocabulary_file:
            base = Path(self.source_path).parent if self.source_path else COMPETITIONS_DIR
            path = (base / self.vocabulary_file)
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise HostError("definition_invalid",
                                f"{self.name}: vocabulary_file {str(path)!r} cannot be read ({exc})") from None
            items = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if items is None:
            return None
        if self.label_type == "int":
            try:
                return frozenset(int(x) for x in items)
            except ValueError as exc:
                raise HostError("definition_invalid", f"{self.name}: vocabulary has a non-integer label ({exc})") from None
        return frozenset(items)

    @cached_property
    def int_label_lookup(self):
        """Boolean array indexed by label: True for the vocabulary's integer labels (None when open)."""
        import numpy as np

        labels = self.labels
        if labels is None or self.label_type != "int":
            return None
        arr = np.fromiter(labels, dtype=np.int64, count=len(labels))
        if len(arr) and (arr.min() < 0 or arr.max() > 50_000_000):
            raise HostError("definition_invalid", f"{self.name}: vocabulary labels must lie in 0..50,000,000")
        lookup = np.zeros(int(arr.max()) + 1 if len(arr) else 0, dtype=bool)
        lookup[arr] = True
        return lookup

    @property
    def expected_columns(self) -> list[str]:
        return [self.id_column, self.prediction_column]


def available_competitions() -> list[str]:
    return sorted(p.stem for p in COMPETITIONS_DIR.glob("*.toml"))


def load_competition(name_or_path: str | Path) -> CompetitionDefinition:
    """Load a shipped definition by name, or a user's TOML by path.

    Raises ``HostError('definition_invalid')`` with a message naming the key.
    """
    text_path = Path(name_or_path)
    if str(name_or_path) in available_competitions():
        path = COMPETITIONS_DIR / f"{name_or_path}.toml"
    elif text_path.suffix == ".toml" or text_path.exists():
        path = text_path
    else:
        raise HostError("definition_invalid",
                        f"unknown competition {str(name_or_path)!r}; shipped: {', '.join(available_competitions())}, "
                        "or pass a path to a .toml file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise HostError("definition_invalid", f"cannot read competition definition {str(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise HostError("definition_invalid", f"{path}: not valid TOML ({exc})") from None
    data.setdefault("name", path.stem)
    try:
        definition = CompetitionDefinition.model_validate({**data, "source_path": str(path.resolve())})
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            key = ".".join(str(x) for x in err["loc"]) or "(top level)"
            lines.append(f"  {key}: {err['msg']}")
        raise HostError("definition_invalid", f"{path}: invalid competition definition\n" + "\n".join(lines)) from None
    return definition
