"""GPU baselines: Cross-Team Validation training runs (``agrieval.baselines.ctv``) and the PlantCLEF DINOv2
tiling predictor (``agrieval.baselines.plantclef``), with the one submission writer both use (checked by the
grading reader before it is renamed into place). Needs the ``baselines`` extra (torch, timm);
``agrieval baselines ...`` is the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.baselines import ctv, plantclef
    from agrieval.baselines.submission import SubmissionFailsValidation, write_validated

__all__ = ["ctv", "plantclef", "write_validated", "SubmissionFailsValidation"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
