"""GPU baselines: Cross-Team Validation training runs (``agrieval.baselines.ctv``) and the
PlantCLEF DINOv2 tiling predictor (``agrieval.baselines.plantclef``). Needs the
``baselines`` extra (torch, timm).

Public (``__all__``): the packages ``ctv`` and ``plantclef``, each with its own ``__all__``, and
``write_validated`` with ``SubmissionFailsValidation`` (both baselines' one submission writer: the file is
checked by the grading reader before it is renamed into place). Internal: ``cli`` (``agrieval baselines ...`` is
the contract), ``device`` and ``sbatch`` (the job scripts' one rule for values and the scheduler's warning
signal).
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["ctv", "plantclef", "write_validated", "SubmissionFailsValidation"]

_HOME = {"ctv": "ctv", "plantclef": "plantclef", "write_validated": "submission",
         "SubmissionFailsValidation": "submission"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
