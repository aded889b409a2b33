"""Per-epoch checkpoint (``last.pt``) and best model (``best.pt``), written atomically, read without
running anything.

``last.pt`` holds what resuming needs: model, optimizer and scheduler states,
the last finished epoch, the best validation accuracy so far and its epoch,
the history rows, the accumulated wall time, and the config identity hash
(a checkpoint of other settings is refused, never mixed in). RNG state is not
needed with per-fold seeds: every epoch reseeds from the fold seed and its number. Under
``--seed-stream sweep`` it holds the generators' state (``stream``) and the GradScaler's (fp16), so a
resumed fold continues the script's stream; exactly so with ``--num-workers 0`` (with workers, a resumed
epoch starts new worker processes, which draw new seeds).

A run tree may come from someone else (or be planted): a checkpoint is opened by the kit's one opening
rule (``scoring/runtime/untrusted.py``: a regular file, capped) and unpickled with
``torch.load(weights_only=True)``, which builds tensors and plain containers only; the few other types a
run state holds are allow-listed (``SAFE_GLOBALS``). A pickle that would call anything else is refused
as ``checkpoint_invalid`` before anything runs, and the settings are compared (``runner._resume``) on
what was read this way, before any of it is used.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import torch

from agrieval.baselines.ctv.errors import CTVError
from agrieval.scoring.runtime.atomic import atomic_write
from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular

__all__ = ["save", "load", "SAFE_GLOBALS", "MAX_CHECKPOINT_BYTES"]

# a Swin-Base run state (model, AdamW moments) is ~1.1 GB; nothing the kit writes comes near this
MAX_CHECKPOINT_BYTES = 16 << 30
# types a run state holds beyond tensors, numbers, strings, lists, tuples and dicts (weights_only's own);
# the numpy generator's state is stored as plain lists (``stream.capture``), never as an array
SAFE_GLOBALS: list = []


def save(path: Path, obj: dict) -> None:
    with atomic_write(path, "wb", encoding=None) as fh:
        torch.save(obj, fh)


def load(path: Path) -> dict:
    """The checkpoint at ``path``, read by the opening rule and ``weights_only=True``; ``CTVError
    checkpoint_invalid`` naming the file for a file that is not one (not regular, too large, truncated,
    foreign, or a pickle that would call code)."""
    try:
        with open_regular(path, max_bytes=MAX_CHECKPOINT_BYTES, what="checkpoint") as fh, \
                torch.serialization.safe_globals(SAFE_GLOBALS):
            return torch.load(fh, map_location="cpu", weights_only=True)
    except UntrustedFileError as exc:
        raise CTVError("checkpoint_invalid", f"{path}: {exc.message}; move it away to start this run from "
                       "epoch 1") from None
    except pickle.UnpicklingError as exc:
        raise CTVError("checkpoint_invalid", f"{path}: holds something other than tensors and plain data, so it "
                       f"was not loaded (nothing in it ran): {str(exc).splitlines()[0][:300]}; a checkpoint the "
                       "kit wrote never does: move it away to start this run from epoch 1") from None
    except Exception as exc:  # a truncated or foreign file: say which and what to do
        raise CTVError("checkpoint_invalid", f"{path}: cannot be read ({exc}); move it away to start "
                       "this run from epoch 1") from exc
