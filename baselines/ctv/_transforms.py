"""Train and eval transforms on uint8 CHW tensors, run per image in the loader workers.

``--transforms kit`` (presets paper and demo): the workers only decode and resize, with
``decode_transform``, to ``Resize((256, 256))``. With ``resize_square`` off they take the centred
``cache_size`` square instead, which is the whole image on the 336 px curated tree; either way every image of a
batch has one size. The random augmentation runs batched on the model's device
(``agrieval.baselines.ctv._augment``), applied to each training batch by the training loop.
Eval: ``Resize((256, 256))``, then a centre crop of 224; with ``resize_square`` off, the shorter side to 256.
Both stop at uint8, so a batch crosses the bus as bytes (4x less than float32): ``normalize_batch`` does
``(x / 255 - mean) / std`` on the device for eval batches, the augmentation for train batches.

``train_transform``: the same augmentation as torchvision v2 ops per image, in the order of the public
script's ``get_transforms``: ``RandomResizedCrop(224, scale=(0.8, 1.0))``, horizontal flip 0.5, vertical flip
0.3, rotation +-30 deg, ``ColorJitter(0.2, 0.2, 0.3, 0.1)``, ``RandomErasing(p=0.2, scale=(0.02, 0.15))``
filled with the ImageNet mean, which is what erasing with 0 after normalisation gives. Runs do not use it: it
is the per-sample definition that the batched parameters are tested against for the same distributions, and
the per-sample row of ``benchmarks/bench_train.py``. Every value is a ``TrainConfig`` field.
"""

from __future__ import annotations

import torch
from torchvision.transforms import v2

from agrieval.baselines.ctv.config import TrainConfig


def train_transform(cfg: TrainConfig) -> v2.Compose:
    ops = [v2.Resize((cfg.resize_size, cfg.resize_size), antialias=True)] if cfg.resize_square else []
    ops.append(v2.RandomResizedCrop(cfg.img_size, scale=tuple(cfg.rrc_scale), antialias=True))
    if cfg.hflip > 0:
        ops.append(v2.RandomHorizontalFlip(cfg.hflip))
    if cfg.vflip > 0:
        ops.append(v2.RandomVerticalFlip(cfg.vflip))
    if cfg.rotation > 0:
        ops.append(v2.RandomRotation(cfg.rotation))
    b, c, s, h = cfg.color_jitter
    if any((b, c, s, h)):
        ops.append(v2.ColorJitter(brightness=b or None, contrast=c or None, saturation=s or None, hue=h or None))
    if cfg.random_erasing > 0:
        fill = [round(255 * m) for m in cfg.mean]
        ops.append(v2.RandomErasing(cfg.random_erasing, scale=tuple(cfg.erasing_scale),
                                    ratio=tuple(cfg.erasing_ratio), value=fill))
    return v2.Compose(ops)


def decode_transform(cfg: TrainConfig) -> v2.Compose:
    """What a loader worker does to a decoded train image under ``--transforms kit``: resize, nothing random."""
    if cfg.resize_square:
        return v2.Compose([v2.Resize((cfg.resize_size, cfg.resize_size), antialias=True)])
    return v2.Compose([v2.Resize(cfg.cache_size, antialias=True), v2.CenterCrop(cfg.cache_size)])


def eval_transform(cfg: TrainConfig) -> v2.Compose:
    size = (cfg.resize_size, cfg.resize_size) if cfg.resize_square else cfg.resize_size
    return v2.Compose([v2.Resize(size, antialias=True), v2.CenterCrop(cfg.img_size)])


def normalize_batch(x: torch.Tensor, mean, std, *, dtype=torch.float32) -> torch.Tensor:
    """uint8 NCHW -> float, ``(x / 255 - mean) / std`` per channel."""
    m = torch.tensor(mean, device=x.device, dtype=dtype).view(1, -1, 1, 1) * 255
    s = torch.tensor(std, device=x.device, dtype=dtype).view(1, -1, 1, 1) * 255
    return (x.to(dtype) - m) / s
