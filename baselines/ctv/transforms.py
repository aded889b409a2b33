"""Train and eval transforms on uint8 CHW tensors.

Train (the public script): RandomResizedCrop(img, scale=0.8-1.0), horizontal
and vertical flips, rotation +-30 deg, colour jitter, random erasing.
Eval: resize the shorter side to 256, centre crop 224.
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
    ops = [v2.RandomResizedCrop(cfg.img_size, scale=tuple(cfg.rrc_scale), antialias=True)]
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
        ops.append(v2.RandomErasing(cfg.random_erasing, value=fill))
    return v2.Compose(ops)


def eval_transform(cfg: TrainConfig) -> v2.Compose:
    return v2.Compose([v2.Resize(cfg.resize_size, antialias=True), v2.CenterCrop(cfg.img_size)])


def normalize_batch(x: torch.Tensor, mean, std, *, dtype=torch.float32) -> torch.Tensor:
    """uint8 NCHW -> float, ``(x / 255 - mean) / std`` per channel."""
    m = torch.tensor(mean, device=x.device, dtype=dtype).view(1, -1, 1, 1) * 255
    s = torch.tensor(std, device=x.device, dtype=dtype).view(1, -1, 1, 1) * 255
    return (x.to(dtype) - m) / s
