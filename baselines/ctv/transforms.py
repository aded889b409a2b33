"""Train and eval transforms on uint8 CHW tensors.

Train (the public script's get_transforms, in its order): Resize((256, 256)),
RandomResizedCrop(224, scale=(0.8, 1.0)), horizontal flip 0.5, vertical flip
0.3, rotation +-30 deg, ColorJitter(0.2, 0.2, 0.3, 0.1), RandomErasing(p=0.2,
scale=(0.02, 0.15)); every value a ``TrainConfig`` field.
Eval: Resize((256, 256)), centre crop 224 (``resize_square`` off: the shorter
side to 256).
Both stop at uint8: ``normalize_batch`` does ``(x / 255 - mean) / std`` on the
device, so a batch crosses the bus as bytes (4x less than float32). Random
erasing fills with the ImageNet mean (255 * mean), which is what erasing after
normalisation with value 0 gives.
"""

from __future__ import annotations

import torch
from torchvision.transforms import v2

from baselines.ctv.config import TrainConfig


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


def eval_transform(cfg: TrainConfig) -> v2.Compose:
    size = (cfg.resize_size, cfg.resize_size) if cfg.resize_square else cfg.resize_size
    return v2.Compose([v2.Resize(size, antialias=True), v2.CenterCrop(cfg.img_size)])


def normalize_batch(x: torch.Tensor, mean, std, *, dtype=torch.float32) -> torch.Tensor:
    """uint8 NCHW -> float, ``(x / 255 - mean) / std`` per channel."""
    m = torch.tensor(mean, device=x.device, dtype=dtype).view(1, -1, 1, 1) * 255
    s = torch.tensor(std, device=x.device, dtype=dtype).view(1, -1, 1, 1) * 255
    return (x.to(dtype) - m) / s
