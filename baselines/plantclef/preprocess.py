"""Quadrat preprocessing before the model: decode, JPEG recompression, border
crop, tiling and per-tile resize. CPU-side, runs in loader workers.

The 2025 winner recompressed each quadrat JPEG with 4:2:2 chroma subsampling
and resized with Lanczos so that test images look like the training images
(which went through that pipeline); both are options here.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from baselines.plantclef.geometry import Box, Level, border_box, parse_level, tile_boxes

# PIL's ``subsampling`` codes (JpegImagePlugin.get_sampling reads them back).
SUBSAMPLING = {"4:4:4": 0, "4:2:2": 1, "4:2:0": 2}
RESIZE_FILTERS = {"lanczos": Image.Resampling.LANCZOS, "bicubic": Image.Resampling.BICUBIC,
                  "bilinear": Image.Resampling.BILINEAR}


@dataclass(frozen=True)
class PreprocessConfig:
    """Every knob of the CPU side; each is a ``predict`` flag."""

    levels: tuple[Level, ...] = field(default_factory=lambda: (parse_level("grid:4"),))
    input_size: int = 518
    resize_filter: str = "lanczos"
    jpeg_quality: int | None = None  # None: no recompression
    subsampling: str = "4:2:2"
    border: float = 0.0
    border_percent: bool = False

    def __post_init__(self) -> None:
        if self.resize_filter not in RESIZE_FILTERS:
            raise ValueError(f"resize filter {self.resize_filter!r} is not one of {', '.join(RESIZE_FILTERS)}")
        if self.subsampling not in SUBSAMPLING:
            raise ValueError(f"chroma subsampling {self.subsampling!r} is not one of {', '.join(SUBSAMPLING)}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"JPEG quality {self.jpeg_quality} is not in 1..100")
        if self.input_size < 1:
            raise ValueError("input size must be positive")

    def describe(self) -> dict:
        return {"levels": [str(lv) for lv in self.levels], "input_size": self.input_size,
                "resize_filter": self.resize_filter, "jpeg_quality": self.jpeg_quality,
                "subsampling": self.subsampling if self.jpeg_quality is not None else None,
                "border": f"{self.border:g}%" if self.border_percent else f"{int(self.border)}"}


def load_rgb(path: str | Path) -> Image.Image:
    """Decode, apply the EXIF orientation (phones store portrait quadrats rotated) and convert to RGB."""
    with Image.open(path) as im:
        im = ImageOps.exif_transpose(im)
        return im.convert("RGB")


def recompress_jpeg(image: Image.Image, quality: int, subsampling: str) -> Image.Image:
    """Encode to JPEG in memory with the given quality and chroma subsampling, decode back."""
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality, subsampling=SUBSAMPLING[subsampling])
    buf.seek(0)
    with Image.open(buf) as out:
        out.load()
        return out.convert("RGB")


def quadrat_tiles(image: Image.Image, cfg: PreprocessConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tiles of one quadrat as ``uint8 (T, S, S, 3)``, their boxes ``int32 (T, 4)`` in the
    coordinates of the (EXIF-rotated) image, and their level index ``int16 (T,)``."""
    if cfg.jpeg_quality is not None:
        image = recompress_jpeg(image, cfg.jpeg_quality, cfg.subsampling)
    bx0, by0, bx1, by1 = border_box(image.width, image.height, cfg.border, cfg.border_percent)
    tiles = tile_boxes(bx1 - bx0, by1 - by0, cfg.levels)
    size = cfg.input_size
    out = np.empty((len(tiles), size, size, 3), dtype=np.uint8)
    boxes = np.empty((len(tiles), 4), dtype=np.int32)
    level_idx = np.empty(len(tiles), dtype=np.int16)
    resample = RESIZE_FILTERS[cfg.resize_filter]
    for t, (k, (x0, y0, x1, y1)) in enumerate(tiles):
        box: Box = (x0 + bx0, y0 + by0, x1 + bx0, y1 + by0)
        # resize(box=...) crops and resizes in one pass, the filter reading the real neighbours.
        out[t] = np.asarray(image.resize((size, size), resample, box=box))
        boxes[t] = box
        level_idx[t] = k
    return out, boxes, level_idx
