"""Where a run's random numbers come from (``--seed-stream``), one object per stream.

The runner calls the same hooks whatever the stream (before the model is built, before each epoch,
around the final predictions, at the end); what each hook does is the stream's.

* ``FoldStream`` (``fold``, the kit's): the fold's seed is ``sha256(seed|protocol|fold)``; the model is
  initialised from ``(seed, "init")``, each epoch reseeds from ``(seed, "epoch", e, rank)``, and the
  training order is ``EpochBatches`` (one permutation per epoch, split over the ranks without padding).
  A fold's result depends on nothing run before it, so folds run in parallel and resume exactly.
* ``SweepStream`` (``sweep``, the official preset's): the public script's one stream per sweep:
  seeded once at the first fold, each fold continuing where the previous left the generators, the script's
  own loaders (``shuffle=True`` from torch's global generator, its eval batch sizes), its discarded iterator
  per epoch and its loader draws after training. One process only.

How the sweep stream crosses folds: the script seeds once (``set_random_seeds``: ``random``, numpy, torch,
CUDA, cuDNN deterministic, no benchmark) and then runs its folds (teams in sorted order) in one process, so
fold k starts where fold k-1 left the generators: its model init, its loaders' shuffles and its augmentations
depend on every fold before it. To keep that across separate invocations and resumes, a fold's generator
states are saved: ``stream_after.pt`` at its end (the next fold starts from it), and inside ``last.pt`` at
each epoch end.

After training the script makes six more DataLoader passes (S:882-972: the final test evaluation, then
for train, val and test a prediction pass and a loop over the paths; the train and val ones both), each
drawing one int64 from torch's generator for the loader's base seed, except the final test pass when
the test loader's workers are persistent. The kit predicts through its own loaders, so it restores the
state from before its predictions and makes the script's draws (``_after_training``).

The seeds themselves (``derive_seed``, ``seed_everything``) are ``agrieval.baselines.ctv._seeding``'s.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader

from agrieval.baselines.ctv import _checkpoint as checkpoint
from agrieval.baselines.ctv._distributed import DistInfo, EpochBatches
from agrieval.baselines.ctv._seeding import derive_seed, fold_seed, seed_everything
from agrieval.baselines.ctv.config import TrainConfig
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.manifest import list_folds


class FoldStream:
    kind = "fold"
    script_init = False  # the kit's model initialisation
    prefetch_factor = 4  # batches each loader worker prepares ahead

    def __init__(self, cfg: TrainConfig, info: DistInfo):
        self.cfg, self.info = cfg, info
        self.seed = fold_seed(cfg.seed, cfg.protocol, cfg.fold)
        self.sampler: EpochBatches | None = None

    def begin(self, out: Path, splits_dir, *, resuming: bool, continue_stream: bool) -> str:
        return ""

    def before_model(self) -> None:
        seed_everything(derive_seed(self.seed, "init"))

    def train_loader(self, dataset, common: dict, min_per_rank: int) -> DataLoader:
        self.sampler = EpochBatches(len(dataset), self.cfg.batch_size, self.seed, self.info,
                                    drop_last=self.cfg.drop_last, min_per_rank=min_per_rank)
        return DataLoader(dataset, batch_sampler=self.sampler, **common)

    def eval_batch(self) -> int:
        return max(1, self.cfg.batch_size // self.info.world) * 2

    def resumed(self, ck: dict) -> str | None:
        return None  # every epoch reseeds: nothing to restore

    def before_epoch(self, epoch: int, loader) -> None:
        seed_everything(derive_seed(self.seed, "epoch", epoch, self.info.rank))
        self.sampler.set_epoch(epoch)

    def step_sizes(self) -> list[int] | None:
        return self.sampler.global_sizes()

    def test_not_evaluated(self) -> None:
        pass

    def checkpoint_state(self) -> dict | None:
        return None

    @contextlib.contextmanager
    def predictions(self):
        yield

    def hand_on(self, out: Path) -> None:
        pass

    def record(self, note: str) -> dict:
        return {"kind": self.kind}


# The sweep stream's generator states (module docstring: how the sweep stream crosses folds).
STREAM_FILE = "stream_after.pt"  # the generators' state a finished fold hands on (sweep stream)


def _script_seed(seed: int) -> None:
    """The script's ``set_random_seeds`` (S:200-207)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def _capture() -> dict:
    # numpy's state as plain data (its array as a list of ints): a checkpoint loads with weights_only=True
    name, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)
    state = {"python": random.getstate(), "numpy": [name, keys.tolist(), int(pos), int(has_gauss), float(cached)],
             "torch": torch.random.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _restore(state: dict) -> None:
    random.setstate(state["python"])
    name, keys, pos, has_gauss, cached = state["numpy"]
    np.random.set_state((name, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))
    torch.random.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _loader_draws(n: int) -> None:
    """What ``n`` DataLoader passes take from torch's generator (their base seeds)."""
    for _ in range(n):
        torch.empty((), dtype=torch.int64).random_()


def _after_training(persistent_test_workers: bool) -> None:
    _loader_draws(5 if persistent_test_workers else 6)


def _start_fold(seed: int, folds: list[str], fold: str, prev_dir: Path | None, *, continue_stream: bool) -> str:
    """Put the generators where the script has them when fold ``fold`` starts; say from where."""
    i = folds.index(fold)
    if i == 0:
        _script_seed(seed)
        return f"seeded with {seed} (first fold of the sweep)"
    saved = prev_dir / STREAM_FILE if prev_dir is not None else None
    if saved is not None and saved.is_file():
        _restore(checkpoint.load(saved))
        return f"continues {folds[i - 1]}'s stream ({saved})"
    if continue_stream:
        return f"continues the stream left by {folds[i - 1]} in this process"
    raise CTVError("stream_gap", f"--seed-stream sweep: fold {fold} starts where fold {folds[i - 1]} left the "
                   f"random stream, but {saved} is missing; run the folds in order (run-all), or pass "
                   "--seed-stream fold")


def _save_after(out: Path) -> None:
    checkpoint.save(out / STREAM_FILE, _capture())


class SweepStream:
    kind = "sweep"
    script_init = True  # the script's model initialisation order
    prefetch_factor = 2  # the script's loaders (PyTorch's default), train and eval

    def __init__(self, cfg: TrainConfig, info: DistInfo):
        if info.enabled:
            raise CTVError("bad_option", "--seed-stream sweep is the script's single-process stream; under "
                           "torchrun use --seed-stream fold")
        self.cfg, self.info = cfg, info
        self.seed = cfg.seed

    def begin(self, out: Path, splits_dir, *, resuming: bool, continue_stream: bool) -> str:
        note = ""
        if not resuming:
            folds = list_folds(splits_dir, self.cfg.protocol)
            i = folds.index(self.cfg.fold) if self.cfg.fold in folds else 0
            prev = out.parent / folds[i - 1] if i else None
            note = _start_fold(self.cfg.seed, folds, self.cfg.fold, prev, continue_stream=continue_stream)
        # the script's cuDNN flags (set_random_seeds), whatever --deterministic says
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
        return note

    def before_model(self) -> None:
        pass  # the stream goes on from where the previous fold (or the seeding) left it

    def train_loader(self, dataset, common: dict, min_per_rank: int) -> DataLoader:
        # the script's loaders (S:846-855, 1102-1110): shuffle=True draws its permutation from torch's
        # global generator; manifests list train rows in the script's dataset order
        return DataLoader(dataset, batch_size=self.cfg.batch_size, shuffle=True, drop_last=self.cfg.drop_last,
                          **common)

    def eval_batch(self) -> int:
        return 4 * self.cfg.batch_size if self.cfg.protocol == "toto" else self.cfg.batch_size  # S:846-855

    def resumed(self, ck: dict) -> str | None:
        _restore(ck["stream"])
        return "resumed from the stream saved in last.pt"

    def before_epoch(self, epoch: int, loader) -> None:
        # the script iterates tqdm.auto.tqdm(train_loader) (S:579); that tqdm (tqdm.asyncio's) calls
        # iter(loader) in its constructor, and its loop calls it again: one discarded iterator per epoch,
        # which takes a base seed (and, with workers, prefetches) from the stream. Made here the same way.
        iter(loader)

    def step_sizes(self) -> list[int] | None:
        return None  # one process: no share to weight

    def test_not_evaluated(self) -> None:
        _loader_draws(1)  # the script evaluates the test split every epoch (S:640)

    def checkpoint_state(self) -> dict | None:
        return _capture()

    @contextlib.contextmanager
    def predictions(self):
        """The kit predicts through its own loaders: the state from before them, then the script's draws."""
        before = _capture()
        yield
        _restore(before)
        _after_training(persistent_test_workers=self.cfg.num_workers > 0 and self.cfg.persistent_workers
                              and not self.cfg.deterministic)

    def hand_on(self, out: Path) -> None:
        _save_after(out)  # before run.json: a finished fold always hands its stream on

    def record(self, note: str) -> dict:
        return {"kind": self.kind, "start": note}


SEED_STREAMS = {"fold": FoldStream, "sweep": SweepStream}


def seed_stream_for(cfg: TrainConfig, info: DistInfo):
    return SEED_STREAMS[cfg.seed_stream](cfg, info)
