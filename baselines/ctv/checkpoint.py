"""Per-epoch checkpoint (``last.pt``) and best model (``best.pt``), written atomically.

``last.pt`` holds what resuming needs: model, optimizer and scheduler states,
the last finished epoch, the best validation accuracy so far and its epoch,
the history rows, the accumulated wall time, and the config identity hash
(a checkpoint of other settings is refused, never mixed in). RNG state is not
needed with per-fold seeds: every epoch reseeds from the fold seed and its number. Under
``--seed-stream sweep`` it holds the generators' state (``stream``) and the GradScaler's (fp16), so a
resumed fold continues the script's stream; exactly so with ``--num-workers 0`` (with workers, a resumed
epoch starts new worker processes, which draw new seeds).
"""

from __future__ import annotations

from pathlib import Path

import torch

from agrieval.baselines.ctv.errors import CTVError
from agrieval.scoring.runtime.atomic import atomic_write


def save(path: Path, obj: dict) -> None:
    with atomic_write(path, "wb", encoding=None) as fh:
        torch.save(obj, fh)


def load(path: Path) -> dict:
    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:  # a truncated or foreign file: say which and what to do
        raise CTVError("checkpoint_invalid", f"{path}: cannot be read ({exc}); move it away to start "
                       "this run from epoch 1") from exc
