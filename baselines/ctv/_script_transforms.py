"""The public script's transforms (``get_transforms``, S:331-360): torchvision v1 ops on PIL images.

Train: ``Resize((r, r))``, ``RandomResizedCrop``, flips, rotation, ``ColorJitter`` on the PIL image, then
``ToTensor`` (float in [0, 1]), ``Normalize`` and, last, ``RandomErasing``: it erases the *normalised*
tensor with its default value 0. Eval: ``Resize((r, r))``, ``CenterCrop``, ``ToTensor``, ``Normalize``.
The tensors come out normalised float32, so ``Runtime.to_input`` leaves them as they are. Every value is
a ``TrainConfig`` field (defaults: the script's); ``resize_square`` off drops the train resize and makes
the eval resize the shorter side, as the kit's own pipeline does.

Why not the kit's v2 pipeline: v2 resizes 8-bit tensors and rounds after every op, v1 resizes PIL images
(Pillow's own filter); the eval tensors differ by about one grey level on every image.
"""

from __future__ import annotations

from torchvision import transforms as T

from agrieval.baselines.ctv.config import TrainConfig


def script_train_transform(cfg: TrainConfig) -> T.Compose:
    ops = [T.Resize((cfg.resize_size, cfg.resize_size))] if cfg.resize_square else []
    ops.append(T.RandomResizedCrop(cfg.img_size, scale=tuple(cfg.rrc_scale)))
    if cfg.hflip > 0:
        ops.append(T.RandomHorizontalFlip(p=cfg.hflip))
    if cfg.vflip > 0:
        ops.append(T.RandomVerticalFlip(p=cfg.vflip))
    if cfg.rotation > 0:
        ops.append(T.RandomRotation(degrees=cfg.rotation))
    b, c, s, h = cfg.color_jitter
    if any((b, c, s, h)):
        ops.append(T.ColorJitter(brightness=b, contrast=c, saturation=s, hue=h))
    ops += [T.ToTensor(), T.Normalize(mean=list(cfg.mean), std=list(cfg.std))]
    if cfg.random_erasing > 0:
        ops.append(T.RandomErasing(p=cfg.random_erasing, scale=tuple(cfg.erasing_scale),
                                   ratio=tuple(cfg.erasing_ratio)))
    return T.Compose(ops)


def script_eval_transform(cfg: TrainConfig) -> T.Compose:
    size = (cfg.resize_size, cfg.resize_size) if cfg.resize_square else cfg.resize_size
    return T.Compose([T.Resize(size), T.CenterCrop(cfg.img_size), T.ToTensor(),
                      T.Normalize(mean=list(cfg.mean), std=list(cfg.std))])
