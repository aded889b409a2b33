"""Cross-Team Validation (CTV) baselines: one timm model trained per fold of TOTO / LOTO.

Where things are:

* ``config``       every setting (``TrainConfig``, each field with its flag's help) and the named presets
* ``options``      the training flags, generated from ``TrainConfig`` with every preset's value in the help
* ``archs``        arch keys -> timm model names
* ``models``       backbone + head, local weights files
* ``manifest``     reading ``SPLITS/<protocol>/<fold>.csv`` and ``folds.json``
* ``transforms``   the loader workers' transforms (uint8: decode + resize, eval crop), normalisation
* ``augment``      the train augmentation, batched on the model's device (``BatchAugment``)
* ``loader_check`` ``ctv loader-check``: per-image host time and loader workers per GPU
* ``dataset``, ``cache``   images from disk or from a uint8 memmap
* ``seeding``      per-fold and per-epoch seeds (sha256-derived)
* ``distributed``  torchrun / DDP samplers and reductions
* ``engine``       one training epoch, one prediction pass
* ``checkpoint``   ``last.pt`` / ``best.pt``
* ``outputs``      ``predictions.csv``, ``history.jsonl``, ``run.json``
* ``runner``       ``run_fold``: one run end to end, with skip and resume
* ``run_folders``  where a run's files go and its state (done / partial / pending), without torch
* ``progress``     progress lines for logs, durations for the sweep's ETA
* ``replicates``   ``--seeds``: one runs folder per seed (``RUNS_DIR/seed-S``)
* ``sweep``, ``slurm``     [seeds x] protocols x archs x folds; the sbatch array script
* ``demo``, ``smoke``      the embedded CPU demo; the CUDA smoke check
* ``cli``          ``agrieval baselines ctv ...``

Public (``__all__``, imported on first use): ``TrainConfig``, ``make_config`` and ``PRESETS`` (the settings),
``run_fold`` (one run end to end), ``plan`` and ``run_all`` (a sweep), ``sbatch_script``, ``load_fold`` and
``list_folds`` (the split manifests), ``build_model``, ``train_one_epoch`` and ``predict``, ``run_demo``,
``submit_run`` (a trained run -> the competition's submission), and ``CTVError``.

Internal (may change without notice): ``archs``, ``augment``, ``cache``, ``checkpoint``, ``cli``, ``dataset``,
``distributed``, ``fidelity_pool``, ``loader_check``, ``loader_workers``, ``options``, ``outputs``,
``pipelines``, ``precision``, ``preset_table``, ``progress``, ``replicates``, ``run_folders``,
``script_transforms``, ``seed_streams``, ``seeding``, ``selection``, ``slurm_status``, ``smoke``,
``transforms``.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["TrainConfig", "make_config", "PRESETS", "run_fold", "plan", "run_all", "sbatch_script", "load_fold",
           "list_folds", "build_model", "train_one_epoch", "predict", "run_demo", "submit_run", "CTVError"]

_HOME = {"TrainConfig": "config", "make_config": "config", "PRESETS": "config", "run_fold": "runner",
         "plan": "sweep", "run_all": "sweep", "sbatch_script": "slurm", "load_fold": "manifest",
         "list_folds": "manifest", "build_model": "models", "train_one_epoch": "engine", "predict": "engine",
         "run_demo": "demo", "submit_run": "submit", "CTVError": "errors"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
