"""The script's one random stream per sweep (``--seed-stream sweep``, preset ``official``).

The script seeds once (``set_random_seeds``: ``random``, numpy, torch, CUDA, cuDNN deterministic, no
benchmark) and then runs its folds (teams in sorted order) in one process, so fold k starts where fold
k-1 left the generators: its model init, its loaders' shuffles and its augmentations depend on every fold
before it. To keep that across separate invocations and resumes, a fold's generator states are saved:
``stream_after.pt`` at its end (the next fold starts from it), and inside ``last.pt`` at each epoch end.

After training the script makes six more DataLoader passes (S:882-972: the final test evaluation, then
for train, val and test a prediction pass and a loop over the paths; the train and val ones both), each
drawing one int64 from torch's generator for the loader's base seed, except the final test pass when
the test loader's workers are persistent. The kit predicts through its own loaders, so it restores the
state from before its predictions and makes the script's draws (``after_training``).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import torch

from agrieval.baselines.ctv import checkpoint
from agrieval.baselines.ctv.errors import CTVError

FILE = "stream_after.pt"


def script_seed(seed: int) -> None:
    """The script's ``set_random_seeds`` (S:200-207)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def capture() -> dict:
    # numpy's state as plain data (its array as a list of ints): a checkpoint loads with weights_only=True
    name, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)
    state = {"python": random.getstate(), "numpy": [name, keys.tolist(), int(pos), int(has_gauss), float(cached)],
             "torch": torch.random.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore(state: dict) -> None:
    random.setstate(state["python"])
    name, keys, pos, has_gauss, cached = state["numpy"]
    np.random.set_state((name, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))
    torch.random.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def loader_draws(n: int) -> None:
    """What ``n`` DataLoader passes take from torch's generator (their base seeds)."""
    for _ in range(n):
        torch.empty((), dtype=torch.int64).random_()


def after_training(persistent_test_workers: bool) -> None:
    loader_draws(5 if persistent_test_workers else 6)


def start(seed: int, folds: list[str], fold: str, prev_dir: Path | None, *, continue_stream: bool) -> str:
    """Put the generators where the script has them when fold ``fold`` starts; say from where."""
    i = folds.index(fold)
    if i == 0:
        script_seed(seed)
        return f"seeded with {seed} (first fold of the sweep)"
    saved = prev_dir / FILE if prev_dir is not None else None
    if saved is not None and saved.is_file():
        restore(checkpoint.load(saved))
        return f"continues {folds[i - 1]}'s stream ({saved})"
    if continue_stream:
        return f"continues the stream left by {folds[i - 1]} in this process"
    raise CTVError("stream_gap", f"--seed-stream sweep: fold {fold} starts where fold {folds[i - 1]} left the "
                   f"random stream, but {saved} is missing; run the folds in order (run-all), or pass "
                   "--seed-stream fold")


def save_after(out: Path) -> None:
    checkpoint.save(out / FILE, capture())
