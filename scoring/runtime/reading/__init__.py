"""Reading what graders are handed: uploads (zip, folder), CSV tables, ids, label cells, solution, submission.

The reader's layers run once each (docs/development.md walks them); the label sets it gives are
``agrieval.scoring.runtime.LabelSets``.
"""

from __future__ import annotations

from .id_list import IdListError, read_id_list
from .solution import Solution, load_solution
from .submission import Submission, read_submission

__all__ = ["read_submission", "Submission", "load_solution", "Solution", "read_id_list", "IdListError"]
