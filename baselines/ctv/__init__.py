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
"""
