"""DistributedDataParallel plumbing for ``torchrun --nproc_per_node=N``.

torchrun sets RANK, WORLD_SIZE and LOCAL_RANK; without them everything here is
a single-process no-op. Training data is split by ``ShardedShuffle`` (one
permutation per epoch, padded to a multiple of the world size as
DistributedSampler does, so every rank runs the same number of steps);
evaluation by ``Shard`` (no padding) and the per-rank predictions are
gathered, so reduced metrics equal a single-process run's exactly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
from torch.utils.data import Sampler

from baselines.ctv.seeding import derive_seed


@dataclass(frozen=True)
class DistInfo:
    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def enabled(self) -> bool:
        return self.world > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def init_distributed(device_type: str) -> DistInfo:
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return DistInfo()
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device_type == "cuda" else "gloo")
    return DistInfo(dist.get_rank(), dist.get_world_size(), int(os.environ.get("LOCAL_RANK", "0")))


def shutdown(info: DistInfo) -> None:
    if info.enabled:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()


def barrier(info: DistInfo) -> None:
    if info.enabled:
        import torch.distributed as dist

        dist.barrier()


def all_reduce_sum(values: list[float], info: DistInfo) -> list[float]:
    if not info.enabled:
        return values
    import torch.distributed as dist

    t = torch.tensor(values, dtype=torch.float64)
    if dist.get_backend() == "nccl":
        t = t.cuda()
    dist.all_reduce(t)
    return t.cpu().tolist()


def all_gather(obj, info: DistInfo) -> list:
    if not info.enabled:
        return [obj]
    import torch.distributed as dist

    out = [None] * info.world
    dist.all_gather_object(out, obj)
    return out


class ShardedShuffle(Sampler[int]):
    """Epoch-seeded permutation, padded to a multiple of ``world``, rank's share ``perm[rank::world]``."""

    def __init__(self, n: int, seed: int, info: DistInfo = DistInfo(), shuffle: bool = True):
        self.n, self.seed, self.info, self.shuffle = n, seed, info, shuffle
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self):
        if self.shuffle:
            g = torch.Generator().manual_seed(derive_seed(self.seed, "shuffle", self.epoch))
            order = torch.randperm(self.n, generator=g).tolist()
        else:
            order = list(range(self.n))
        pad = (-self.n) % self.info.world
        order = order + order[:pad]
        return iter(order[self.info.rank::self.info.world])

    def __len__(self) -> int:
        return -(-self.n // self.info.world)


class Shard(Sampler[int]):
    """Rank's share of ``range(n)`` without padding (evaluation)."""

    def __init__(self, n: int, info: DistInfo = DistInfo()):
        self.n, self.info = n, info

    def __iter__(self):
        return iter(range(self.info.rank, self.n, self.info.world))

    def __len__(self) -> int:
        return len(range(self.info.rank, self.n, self.info.world))
