"""Quadrats decoded and tiled in DataLoader workers, many images per batch.

A batch is the concatenation of the tiles of several images (uint8, NHWC, so
that only a quarter of the float bytes cross to the device); ``counts`` says
how many tiles belong to each image. An image that cannot be decoded (the one image rule,
``agrieval.data_tools._untrusted_images``: a broken file or a decompression bomb) travels as data, out of its
batch, in ``unreadable`` (id, message): the process that runs the model refuses it or, with
``--skip-unreadable``, records it, whatever the worker count (an exception raised in a worker would come
back wrapped in the worker's traceback).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from agrieval.baselines.plantclef.preprocess import PreprocessConfig, load_rgb, quadrat_tiles
from agrieval.data_tools._untrusted_images import ImageUnreadable

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp")


class ImageListError(ValueError):
    """The image folder is missing, empty, or two files map to the same quadrat id."""


def list_quadrats(folder: str | Path) -> list[tuple[str, Path]]:
    """``(quadrat_id, path)`` sorted by id; the id is the file name without its suffix."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ImageListError(f"image folder {folder} not found")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise ImageListError(f"{folder}: no images ({', '.join(IMAGE_SUFFIXES)})")
    seen: dict[str, Path] = {}
    for p in files:
        if p.stem in seen:
            raise ImageListError(f"{p} and {seen[p.stem]} give the same quadrat id {p.stem!r}")
        seen[p.stem] = p
    return sorted(seen.items())


@dataclass
class TileBatch:
    image_ids: list[str]
    counts: list[int]
    tiles: torch.Tensor  # uint8 (T, S, S, 3)
    boxes: np.ndarray  # int32 (T, 4)
    levels: np.ndarray  # int16 (T,)
    unreadable: list[tuple[str, str]] = None  # (image id, message) of the images that could not be decoded


class QuadratDataset(Dataset):
    def __init__(self, items: list[tuple[str, Path]], cfg: PreprocessConfig):
        self.items, self.cfg = items, cfg

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int):
        image_id, path = self.items[i]
        try:
            image = load_rgb(path)
        except ImageUnreadable as exc:
            return image_id, None, None, exc.message
        tiles, boxes, levels = quadrat_tiles(image, self.cfg)
        return image_id, tiles, boxes, levels


def collate(items) -> TileBatch:
    bad = [(it[0], it[3]) for it in items if it[1] is None]
    items = [it for it in items if it[1] is not None]
    if not items:
        return TileBatch([], [], torch.zeros((0, 0, 0, 3), dtype=torch.uint8), np.zeros((0, 4), np.int32),
                         np.zeros(0, np.int16), bad)
    ids = [it[0] for it in items]
    counts = [len(it[1]) for it in items]
    return TileBatch(ids, counts, torch.from_numpy(np.concatenate([it[1] for it in items])),
                     np.concatenate([it[2] for it in items]), np.concatenate([it[3] for it in items]), bad)


def make_loader(items: list[tuple[str, Path]], cfg: PreprocessConfig, images_per_batch: int, workers: int,
                pin_memory: bool) -> DataLoader:
    return DataLoader(QuadratDataset(items, cfg), batch_size=images_per_batch, shuffle=False,
                      num_workers=workers, collate_fn=collate, pin_memory=pin_memory,
                      persistent_workers=False, prefetch_factor=4 if workers else None)
