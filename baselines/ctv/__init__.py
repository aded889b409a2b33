"""Cross-Team Validation (CTV) baselines: one timm model trained per fold of TOTO / LOTO.

The settings (``TrainConfig``, its named presets and the training flags generated from it), one run end to
end with skip and resume (``run_fold``), a sweep and its sbatch array script, the split manifests, the model,
one epoch and one prediction pass, the CPU demo, and a trained run turned into the competition's submission.
``agrieval baselines ctv ...`` is the command line; docs/development.md walks one training epoch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.baselines.ctv.config import PRESETS, TrainConfig, make_config
    from agrieval.baselines.ctv.demo import run_demo
    from agrieval.baselines.ctv.engine import predict, train_one_epoch
    from agrieval.baselines.ctv.errors import CTVError
    from agrieval.baselines.ctv.manifest import list_folds, load_fold
    from agrieval.baselines.ctv.models import build_model
    from agrieval.baselines.ctv.options import as_flags, overrides, train_options
    from agrieval.baselines.ctv.runner import run_fold
    from agrieval.baselines.ctv.slurm import sbatch_script
    from agrieval.baselines.ctv.submit import submit_run
    from agrieval.baselines.ctv.sweep import plan, run_all

__all__ = ["TrainConfig", "make_config", "PRESETS", "run_fold", "plan", "run_all", "sbatch_script", "load_fold",
           "list_folds", "build_model", "train_one_epoch", "predict", "run_demo", "submit_run", "CTVError",
           "train_options", "overrides", "as_flags"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
