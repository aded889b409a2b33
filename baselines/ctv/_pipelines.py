"""The transform pipeline of a run (``--transforms``), one object per pipeline.

``kit``: the loader workers only decode and resize to uint8 (``agrieval.baselines.ctv._transforms.decode_transform``);
the random augmentation runs batched on the model's device (``agrieval.baselines.ctv._augment.BatchAugment``, seeded per
epoch from the fold and the rank), loader workers started from a fork server (``agrieval.baselines.ctv._loader_workers``). ``script``: the public script's v1
ops on PIL images (``agrieval.baselines.ctv._script_transforms``), normalised on the CPU, the platform's default
worker start method (what the fidelity check pins). The runner builds its datasets and loaders from the
pipeline and never looks at the flag.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agrieval.baselines.ctv._augment import BatchAugment
from agrieval.baselines.ctv._loader_workers import worker_context
from agrieval.baselines.ctv._script_transforms import script_eval_transform, script_train_transform
from agrieval.baselines.ctv._transforms import decode_transform, eval_transform
from agrieval.baselines.ctv.config import TrainConfig


@dataclass(frozen=True)
class TransformPipeline:
    name: str
    train: Callable[[TrainConfig], object]  # cfg -> the per-image train transform
    eval: Callable[[TrainConfig], object]   # cfg -> the per-image eval transform
    decode: str                             # SplitDataset's decode: "tensor" (uint8 CHW) or "pil"
    fork_server: bool                       # loader workers from a fork server (else the default method)
    # (cfg, fold seed, rank) -> the augmentation applied to each training batch on the device, or None
    device_augment: Callable[[TrainConfig, int, int], object] | None = None

    def worker_context(self):
        return worker_context(self.fork_server)


PIPELINES: dict[str, TransformPipeline] = {
    "kit": TransformPipeline("kit", decode_transform, eval_transform, "tensor", fork_server=True,
                             device_augment=BatchAugment),
    "script": TransformPipeline("script", script_train_transform, script_eval_transform, "pil", fork_server=False),
}


def pipeline_for(cfg: TrainConfig) -> TransformPipeline:
    return PIPELINES[cfg.transforms]
