"""Quadrat preprocessing before the model: decode, border crop, tiling, tile-to-input
policy, resize and JPEG recompression. CPU-side, runs in loader workers.

Per tile, in this order:

1. the box (``geometry``; ``--border snap|pad`` for windows);
2. the **tile policy** turns a box that is not square into the model's square
   input: ``crop`` keeps its centred square of side ``min(w, h)`` (what timm's
   eval transform, resize-shorter-side then centre-crop, shows the model, up to
   the rounding of the crop offset: the organisers' starter notebook and DS@GT); ``pad`` resizes it keeping its
   ratio and centres it on black (letterbox); ``stretch`` resizes it to the
   square, changing its aspect ratio (x1.5 on the tiles of a 3:2 quadrat);
3. resize to ``input_size`` (``--resize-filter``, Lanczos by default) in one
   pass that reads the real neighbours of the box (PIL ``resize(box=...)``);
   pixels of a padded window outside the image are 0;
4. JPEG recompression (``--jpeg-quality``, ``--subsampling``) at the chosen
   ``--jpeg-stage``: ``tile`` (default) encodes and decodes each tile after its
   resize, as the 2025 winner did to each 518 px tile; ``image`` recompresses
   the whole quadrat once, before step 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from baselines.plantclef.geometry import BORDERS, Box, Level, border_box, parse_level, tile_boxes
from baselines.plantclef.jpeg import SUBSAMPLINGS, recompress_jpeg

RESIZE_FILTERS = {"lanczos": Image.Resampling.LANCZOS, "bicubic": Image.Resampling.BICUBIC,
                  "bilinear": Image.Resampling.BILINEAR}
TILE_POLICIES = ("crop", "pad", "stretch")
JPEG_STAGES = ("tile", "image")


@dataclass(frozen=True)
class PreprocessConfig:
    """Every knob of the CPU side; each is a ``predict`` flag."""

    levels: tuple[Level, ...] = field(default_factory=lambda: (parse_level("grid:4"),))
    input_size: int = 518
    resize_filter: str = "lanczos"
    jpeg_quality: int | None = None  # None: no recompression
    subsampling: str = "4:2:2"
    jpeg_stage: str = "tile"
    tile_policy: str = "crop"
    border_mode: str = "snap"
    border: float = 0.0
    border_percent: bool = False

    def __post_init__(self) -> None:
        if self.resize_filter not in RESIZE_FILTERS:
            raise ValueError(f"resize filter {self.resize_filter!r} is not one of {', '.join(RESIZE_FILTERS)}")
        if self.subsampling not in SUBSAMPLINGS:
            raise ValueError(f"chroma subsampling {self.subsampling!r} is not one of {', '.join(SUBSAMPLINGS)}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"JPEG quality {self.jpeg_quality} is not in 1..100")
        if self.jpeg_stage not in JPEG_STAGES:
            raise ValueError(f"JPEG stage {self.jpeg_stage!r} is not one of {', '.join(JPEG_STAGES)}")
        if self.tile_policy not in TILE_POLICIES:
            raise ValueError(f"tile policy {self.tile_policy!r} is not one of {', '.join(TILE_POLICIES)}")
        if self.border_mode not in BORDERS:
            raise ValueError(f"border mode {self.border_mode!r} is not one of {', '.join(BORDERS)}")
        if self.input_size < 1:
            raise ValueError("input size must be positive")

    def describe(self) -> dict:
        jpeg = self.jpeg_quality is not None
        return {"levels": [str(lv) for lv in self.levels], "input_size": self.input_size,
                "resize_filter": self.resize_filter, "jpeg_quality": self.jpeg_quality,
                "subsampling": self.subsampling if jpeg else None, "jpeg_stage": self.jpeg_stage if jpeg else None,
                "tile_policy": self.tile_policy, "border_mode": self.border_mode,
                "border": f"{self.border:g}%" if self.border_percent else f"{int(self.border)}"}


def load_rgb(path: str | Path) -> Image.Image:
    """Decode, apply the EXIF orientation (phones store portrait quadrats rotated) and convert to RGB."""
    with Image.open(path) as im:
        im = ImageOps.exif_transpose(im)
        return im.convert("RGB")


def policy_box(box: Box, policy: str) -> Box:
    """The part of ``box`` that reaches the model: its centred square for ``crop``, all of it otherwise."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if policy != "crop" or w == h:
        return box
    side = min(w, h)
    nx, ny = x0 + (w - side) // 2, y0 + (h - side) // 2
    return (nx, ny, nx + side, ny + side)


def tile_input(image: Image.Image, box: Box, size: int, policy: str, resample) -> Image.Image:
    """One tile as the ``size x size`` RGB model input (steps 2-3 of the module docstring)."""
    x0, y0, x1, y1 = policy_box(box, policy)
    source, src_box = image, (x0, y0, x1, y1)
    if x0 < 0 or y0 < 0 or x1 > image.width or y1 > image.height:
        source, src_box = image.crop((x0, y0, x1, y1)), (0, 0, x1 - x0, y1 - y0)  # crop pads with 0
    w, h = x1 - x0, y1 - y0
    if policy == "pad" and w != h:
        scale = size / max(w, h)
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        canvas = Image.new("RGB", (size, size), (0, 0, 0))
        canvas.paste(source.resize((nw, nh), resample, box=src_box), ((size - nw) // 2, (size - nh) // 2))
        return canvas
    return source.resize((size, size), resample, box=src_box)


def quadrat_boxes(width: int, height: int, cfg: PreprocessConfig) -> list[tuple[int, Box]]:
    """``(level, box)`` of every tile in the coordinates of the (EXIF-rotated) image."""
    bx0, by0, bx1, by1 = border_box(width, height, cfg.border, cfg.border_percent)
    return [(k, (x0 + bx0, y0 + by0, x1 + bx0, y1 + by0))
            for k, (x0, y0, x1, y1) in tile_boxes(bx1 - bx0, by1 - by0, cfg.levels, cfg.border_mode)]


def quadrat_tiles(image: Image.Image, cfg: PreprocessConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tiles of one quadrat as ``uint8 (T, S, S, 3)``, their boxes ``int32 (T, 4)`` in the
    coordinates of the (EXIF-rotated) image, and their level index ``int16 (T,)``."""
    recompress = cfg.jpeg_quality is not None
    if recompress and cfg.jpeg_stage == "image":
        image = recompress_jpeg(image, cfg.jpeg_quality, cfg.subsampling)
    tiles = quadrat_boxes(image.width, image.height, cfg)
    size = cfg.input_size
    out = np.empty((len(tiles), size, size, 3), dtype=np.uint8)
    boxes = np.empty((len(tiles), 4), dtype=np.int32)
    level_idx = np.empty(len(tiles), dtype=np.int16)
    resample = RESIZE_FILTERS[cfg.resize_filter]
    for t, (k, box) in enumerate(tiles):
        tile = tile_input(image, box, size, cfg.tile_policy, resample)
        if recompress and cfg.jpeg_stage == "tile":
            tile = recompress_jpeg(tile, cfg.jpeg_quality, cfg.subsampling)
        out[t] = np.asarray(tile)
        boxes[t] = box
        level_idx[t] = k
    return out, boxes, level_idx
