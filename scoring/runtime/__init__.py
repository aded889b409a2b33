"""What a grading run executes, and nothing else: definitions, readers, checks, metrics, report, guard, adapters.

This package runs on CPython 3.8 to 3.13 with numpy (>= 1.21) as its only third-party import, and imports
nothing outside itself (relative imports only), so that ``agrieval bundle`` can copy it as it is into a
scoring program for any grading platform (``agrieval_runtime/`` there). The one exception is the Kaggle
adapter, which takes the pandas DataFrames Kaggle hands it. Its names are imported on first use: a grading
platform that calls ``grade`` loads only what grading needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _lazy_exports as _lazy

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from . import metrics, reading
    from .atomic import atomic_write, write_bytes, write_text
    from .coded_error import CodedError
    from .definition import (
        CompetitionDefinition,
        GroupingSpec,
        Limits,
        SplitSpec,
        freeze,
        load_definition,
        shipped_competitions,
        thaw,
    )
    from .grouping import group_ids
    from .guard import grade
    from .labelsets import LabelSets
    from .problems import HostError, Problem
    from .report import ScoreReport
    from .result import GradeResult
    from .scorer import score, score_file
    from .untrusted import UntrustedFileError, read_bytes, read_json
    from .validate import validate_file
    from .warm import Grader

__all__ = ["grade", "GradeResult", "score_file", "score", "ScoreReport", "validate_file", "Grader",
           "CompetitionDefinition", "Limits", "SplitSpec", "GroupingSpec", "load_definition", "freeze", "thaw",
           "shipped_competitions", "Problem", "HostError", "CodedError", "read_bytes", "read_json", "UntrustedFileError",
           "LabelSets", "group_ids", "atomic_write", "write_text", "write_bytes", "metrics", "reading"]

__getattr__, __dir__ = _lazy.lazy_exports(__name__)
