"""A fold split as a torch Dataset of (uint8 CHW image, label, row index)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch.utils.data import Dataset

from baselines.ctv.cache import open_cache
from baselines.ctv.errors import CTVError


def load_image(path: str) -> torch.Tensor:
    from PIL import Image
    from torchvision.transforms.v2.functional import pil_to_tensor

    try:
        with Image.open(path) as im:
            return pil_to_tensor(im.convert("RGB"))
    except OSError as exc:
        raise CTVError("image_unreadable", f"{path}: cannot decode ({exc})") from exc


class SplitDataset(Dataset):
    """Images from disk, or rows of a ``--cache`` memmap when ``cache`` is given."""

    def __init__(self, paths: list[str], labels: list[int], transform, *,
                 cache: tuple[Path, dict[str, int], int] | None = None):
        self.paths = list(paths)
        self.labels = np.asarray(labels, dtype=np.int64)
        self.transform = transform
        self._cache_file, rows, self._cache_size = cache if cache else (None, None, 0)
        self._rows = np.asarray([rows[p] for p in self.paths], dtype=np.int64) if rows else None
        self._n_cache = len(rows) if rows else 0
        self._mm = None  # opened lazily, once per worker process

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, i: int):
        if self._cache_file is not None:
            if self._mm is None:
                self._mm = open_cache(self._cache_file, self._n_cache, self._cache_size)
            img = torch.from_numpy(np.array(self._mm[self._rows[i]])).permute(2, 0, 1)
        else:
            img = load_image(self.paths[i])
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.labels[i]), i

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_mm"] = None
        return state
