"""Where and how the kit writes files: the output policy every command goes through, paths built from table
cells kept inside their folder, figures, and submissions in a competition's exact format. The file-level
mechanism (temporary, fsync, check, rename) is ``agrieval.scoring.runtime.atomic_write``, which the grading
runtime needs too.
"""

from __future__ import annotations

from agrieval.scoring.writing.figures import FigureFormat
from agrieval.scoring.writing.policy import OutputPlan, OutputRefused
from agrieval.scoring.writing.submission import format_labels, format_submission, write_submission
from agrieval.scoring.writing.table_paths import UnsafePath, inside

__all__ = ["OutputPlan", "OutputRefused", "inside", "UnsafePath", "FigureFormat", "write_submission",
           "format_submission", "format_labels"]
