"""DistributedDataParallel plumbing for ``torchrun --nproc_per_node=N``.

torchrun sets RANK, WORLD_SIZE and LOCAL_RANK; without them everything here is
a single-process no-op. The rules that make N processes the same science as one:

* Training: ``EpochBatches`` cuts one permutation per epoch into global batches of ``--batch-size``
  and gives rank r the share ``batch[r::N]``; nothing is padded, so every image is trained on once per
  epoch. Shares may differ by one image, so each rank's loss is weighted by ``N * n_rank / n_batch``:
  DDP's mean over ranks is then the mean over the global batch, as in one process.
* Evaluation: ``Shard`` (no padding) and the per-rank predictions gathered, so the metrics are counts
  over exactly the manifest's images, once each.
* State: DDP keeps the parameters equal, not the buffers (BatchNorm's running statistics are updated
  by each rank's own batches); ``broadcast_buffers`` gives every rank rank 0's, which is what rank 0
  saves, before anything is evaluated.
* No hang: the process group has a timeout (``--dist-timeout``), and ``collective(info, step)`` turns a
  timed-out or broken collective into ``collective_failed`` naming the rank and the step.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.utils.data import Sampler

from agrieval.baselines.ctv._seeding import derive_seed
from agrieval.baselines.ctv.errors import CTVError


@dataclass(frozen=True)
class DistInfo:
    rank: int = 0
    world: int = 1
    local_rank: int = 0
    timeout_s: float = 0.0

    @property
    def enabled(self) -> bool:
        return self.world > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


_TIMEOUT_S: list[float] = []  # the timeout the process group was made with (once per process)


def init_distributed(device_type: str, timeout_s: float = 900.0) -> DistInfo:
    """Join the process group, once per process: ``run-all`` under torchrun trains its folds in one group
    (a gloo group destroyed and made again in the same processes was seen to hang while connecting)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return DistInfo()


    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device_type == "cuda" else "gloo",
                                timeout=timedelta(seconds=timeout_s))
        _TIMEOUT_S[:] = [timeout_s]
        atexit.register(shutdown)
    return DistInfo(dist.get_rank(), dist.get_world_size(), int(os.environ.get("LOCAL_RANK", "0")),
                    _TIMEOUT_S[0] if _TIMEOUT_S else timeout_s)


def shutdown() -> None:
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def _is_collective_error(exc: BaseException) -> bool:
    if isinstance(exc, getattr(dist, "DistError", ())):  # DistBackendError, DistNetworkError (torch >= 2.1)
        return True
    text = str(exc)
    return any(k in text for k in ("Gloo", "gloo", "NCCL", "Timed out", "timed out", "Connection closed by peer"))


@contextlib.contextmanager
def collective(info: DistInfo, step: str):
    """Run a block with collectives inside; a timeout or a lost peer becomes one clear error."""
    if not info.enabled:
        yield
        return
    try:
        yield
    except CTVError:
        raise
    except RuntimeError as exc:
        if not _is_collective_error(exc):
            raise
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        raise CTVError("collective_failed", f"rank {info.rank} of {info.world}: {step}: a collective did not "
                       f"complete within --dist-timeout {info.timeout_s:g} s or a peer rank stopped "
                       f"({type(exc).__name__}: {first}); the other ranks' logs say which one failed first"
                       ) from exc


def barrier(info: DistInfo, step: str = "barrier") -> None:
    if info.enabled:
        with collective(info, step):
            dist.barrier()


def all_reduce_sum(values: list[float], info: DistInfo, step: str = "all_reduce") -> list[float]:
    if not info.enabled:
        return values

    t = torch.tensor(values, dtype=torch.float64)
    if dist.get_backend() == "nccl":
        t = t.cuda()
    with collective(info, step):
        dist.all_reduce(t)
    return t.cpu().tolist()


def all_gather(obj, info: DistInfo, step: str = "all_gather") -> list:
    if not info.enabled:
        return [obj]

    out = [None] * info.world
    with collective(info, step):
        dist.all_gather_object(out, obj)
    return out


def broadcast_buffers(model: torch.nn.Module, info: DistInfo, step: str = "broadcast buffers") -> None:
    """Give every rank rank 0's buffers (BatchNorm running statistics): the state rank 0 saves."""
    if not info.enabled:
        return

    with collective(info, step):
        for buf in model.buffers():
            dist.broadcast(buf.data, src=0)


class EpochBatches(Sampler[list[int]]):
    """A batch sampler: one permutation per epoch in global batches of ``batch_size``, rank r's share
    ``batch[r::world]``; no index is padded or repeated.

    ``drop_last`` drops the last incomplete global batch (the script's rule). Otherwise a last batch too
    small to give every rank ``min_per_rank`` images (1; 2 for a model with BatchNorm1d, which cannot
    train on one) joins the batch before it, so every image is still trained on once and every rank
    makes the same number of steps (DDP needs that). ``global_sizes()`` lists the epoch's global batch
    sizes, the same on every rank, for the loss weighting.
    """

    def __init__(self, n: int, batch_size: int, seed: int, info: DistInfo = DistInfo(), *,
                 drop_last: bool = False, min_per_rank: int = 1, shuffle: bool = True):
        self.n, self.batch_size, self.seed, self.info = n, batch_size, seed, info
        self.drop_last, self.min_per_rank, self.shuffle = drop_last, min_per_rank, shuffle
        self.epoch = 0
        if batch_size < info.world * min_per_rank:
            raise CTVError("bad_option", f"--batch-size {batch_size} cannot give each of {info.world} ranks "
                           f"{min_per_rank} image(s) per step; raise --batch-size or use fewer processes")

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def _global_batches(self) -> list[list[int]]:
        if self.shuffle:
            g = torch.Generator().manual_seed(derive_seed(self.seed, "shuffle", self.epoch))
            order = torch.randperm(self.n, generator=g).tolist()
        else:
            order = list(range(self.n))
        batches = [order[i:i + self.batch_size] for i in range(0, self.n, self.batch_size)]
        if batches and len(batches[-1]) < self.batch_size:
            if self.drop_last:
                batches.pop()
            elif len(batches[-1]) < self.info.world * self.min_per_rank:
                if len(batches) == 1:
                    raise CTVError("bad_option", f"{self.n} train images cannot give each of {self.info.world} "
                                   f"ranks {self.min_per_rank} image(s); use fewer processes")
                tail = batches.pop()
                batches[-1] = batches[-1] + tail
        return batches

    def global_sizes(self) -> list[int]:
        return [len(b) for b in self._global_batches()]

    def __iter__(self):
        return iter([b[self.info.rank::self.info.world] for b in self._global_batches()])

    def __len__(self) -> int:
        return len(self._global_batches())


class Shard(Sampler[int]):
    """Rank's share of ``range(n)`` without padding (evaluation)."""

    def __init__(self, n: int, info: DistInfo = DistInfo()):
        self.n, self.info = n, info

    def __iter__(self):
        return iter(range(self.info.rank, self.n, self.info.world))

    def __len__(self) -> int:
        return len(range(self.info.rank, self.n, self.info.world))
