"""Per-fold and per-epoch seeds.

``derive_seed(base, *parts) = int(sha256("base|part1|part2...")[:8], 16)`` — a
stable hash (Python's ``hash()`` changes between processes), so fold k's seed
depends only on ``--seed`` and its own name, never on the folds run before it.
Each epoch reseeds from ``(fold seed, "epoch", e)``: a run resumed at epoch e
draws the same augmentations and shuffles as an uninterrupted one.
"""

from __future__ import annotations

import hashlib
import os
import random

# Imported inside functions, so that importing this module loads only what it needs: numpy, torch (heavy or optional).


def derive_seed(base: int, *parts: object) -> int:
    text = "|".join([str(int(base))] + [str(p) for p in parts])
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def fold_seed(base: int, protocol: str, fold: str) -> int:
    return derive_seed(base, protocol, fold)


def seed_everything(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def set_deterministic(enabled: bool) -> None:
    """Bit-identical reruns: deterministic kernels, no cuDNN autotuning."""
    import torch

    if enabled:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(enabled)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
