"""A fold split as a torch Dataset of (image tensor, label, row index).

``decode="tensor"`` (the kit): uint8 CHW tensors for the v2 transforms. ``decode="pil"`` (the script's
``PlantDataset``): the PIL image, ``convert('RGB')``, for the v1 transforms. ``unreadable="black"`` is the
script's ``except Exception``: a file that does not open or decode becomes a black 224x224 RGB image, and
``unreadable_dir`` gets one marker file per such image (created exclusively, so with several loader
workers and epochs one warning per file is printed, and the run lists them).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import Dataset

from agrieval.baselines.ctv._cache import open_cache
from agrieval.baselines.ctv.errors import CTVError
from agrieval.data_tools._untrusted_images import ImageUnreadable, decode_image

# Imported inside functions, so that importing this module loads only what it needs: PIL, torchvision (heavy or optional).


def load_image(path: str) -> torch.Tensor:
    from torchvision.transforms.v2.functional import pil_to_tensor

    try:  # (a decompression bomb too: the one opening rule for images, data_tools/_untrusted_images.py)
        return decode_image(path, lambda im: pil_to_tensor(im.convert("RGB")))
    except ImageUnreadable as exc:
        raise CTVError("image_unreadable", exc.message) from exc


SCRIPT_BLACK_SIZE = (224, 224)  # S:256: Image.new('RGB', (224, 224), (0, 0, 0)), whatever the input size


def _pil_to_tensor(image):
    """A PIL image as a uint8 CHW tensor (torchvision is imported in the loader workers only for this path)."""
    from torchvision.transforms.v2.functional import pil_to_tensor

    return pil_to_tensor(image)


def load_pil(path: str, unreadable: str = "error", unreadable_dir: Path | None = None):
    from PIL import Image

    try:
        return decode_image(path, lambda im: im.convert("RGB"))
    except Exception as exc:  # the script catches everything here (S:254), so do we under "black"
        if unreadable != "black":
            message = exc.message if isinstance(exc, ImageUnreadable) else f"{path}: cannot decode ({exc})"
            raise CTVError("image_unreadable", message) from exc
        note_unreadable(path, exc, unreadable_dir)
        return Image.new("RGB", SCRIPT_BLACK_SIZE, (0, 0, 0))


def note_unreadable(path: str, exc: BaseException, folder: Path | None) -> None:
    """Warn once per file: the first process to create the file's marker prints the warning."""
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        marker = folder / hashlib.sha256(path.encode()).hexdigest()[:24]
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(path + "\n")
    print(f"warning: image_unreadable: {path}: cannot decode ({type(exc).__name__}: {exc}); "
          "using a black 224x224 image, as the script does", file=sys.stderr, flush=True)


def unreadable_paths(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(p.read_text(encoding="utf-8").rstrip("\n") for p in folder.iterdir() if p.is_file())


class SplitDataset(Dataset):
    """Images from disk, or rows of a ``--cache`` memmap when ``cache`` is given."""

    def __init__(self, paths: list[str], labels: list[int], transform, *,
                 cache: tuple[Path, dict[str, int], int] | None = None, decode: str = "tensor",
                 unreadable: str = "error", unreadable_dir: Path | None = None):
        self.decode, self.unreadable, self.unreadable_dir = decode, unreadable, unreadable_dir
        if decode == "pil" and cache:
            raise CTVError("bad_option", "the PIL (script) pipeline reads the files; it cannot use --cache")
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
        elif self.decode == "pil":
            img = load_pil(self.paths[i], self.unreadable, self.unreadable_dir)
        elif self.unreadable == "black":
            img = _pil_to_tensor(load_pil(self.paths[i], self.unreadable, self.unreadable_dir))
        else:
            img = load_image(self.paths[i])
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.labels[i]), i

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_mm"] = None
        return state
