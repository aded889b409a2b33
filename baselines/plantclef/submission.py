"""The PlantCLEF baseline writes its submission through the baselines' one writer
(``agrieval.baselines.submission``: validated by the grading reader before it is renamed into place)."""

from __future__ import annotations

from agrieval.baselines.submission import SubmissionFailsValidation, write_validated

__all__ = ["SubmissionFailsValidation", "write_validated"]
