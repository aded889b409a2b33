"""Grading-server hooks: Kaggle, Codabench/CodaLab, EvalAI, Hugging Face ``competitions``, ``agrieval grade``.

All of them call ``scoring.hooks.guard.grade``, the one guarded entry point
(limits, time limit, participant-safe messages). Import a platform module
only where that platform runs it: this package imports none of them.
"""

from scoring.hooks.guard import grade
from scoring.hooks.result import GradeResult

__all__ = ["grade", "GradeResult"]
