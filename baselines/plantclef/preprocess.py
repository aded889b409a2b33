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
   ``timm`` is timm's own eval transform on the cut tile (DS@GT, the
   organisers' starter notebook: ``resolve_model_data_config`` of the DINOv2
   model gives bicubic, crop_pct 1.0): torchvision ``Resize(input_size)`` of
   the whole tile (shorter side to ``input_size``, longer side
   ``int(size * long / short)``, PIL bicubic), then ``CenterCrop`` at
   ``round((long' - size) / 2)``: the crop offset is taken after the resize,
   so it may fall between the original pixels;
3. resize to ``input_size`` (``--resize-filter``, Lanczos by default) in one
   pass that reads the real neighbours of the box (PIL ``resize(box=...)``);
   pixels of a padded window outside the image are 0;
Two tiling levels bring their own pixels: ``resized:N`` (the winner) resizes
the whole image once per level (``--resize-filter``: PIL Lanczos, the nearest
of ImageMagick's Lanczos that PIL has; ImageMagick itself is not used) and
crops native tiles from it (``--resize-backend wand``: ImageMagick's Lanczos through Wand,
the winner's own resize, when ``pip install wand`` and the system MagickWand library are
there); ``scale:S:O`` (Chlorophyll Crew) stretches each
window as ``torch.nn.functional.interpolate(bilinear, align_corners=False)``
of the float tile in [0, 1] (zeros past the edge), rounded back to uint8
(a residual of at most half a grey level against their float input); the
same tiles whatever torch's thread count (``bilinear_stretch``).

4. JPEG recompression (``--jpeg-quality``, ``--subsampling``) at the chosen
   ``--jpeg-stage``: ``tile`` (default) encodes and decodes each tile after its
   resize, as the 2025 winner did to each 518 px tile; ``image`` recompresses
   the whole quadrat once, before step 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import PIL
from PIL import Image, ImageOps

from agrieval.baselines.plantclef._jpeg import SUBSAMPLINGS, recompress_jpeg
from agrieval.baselines.plantclef.geometry import (
    BORDERS,
    Box,
    Level,
    border_box,
    parse_level,
    resized_geometry,
    tile_boxes,
)
from agrieval.data_tools._untrusted_images import decode_image

# Imported inside functions, so that importing this module loads only what it needs: torch, wand (heavy or optional).

_RESIZE_FILTERS = {"lanczos": Image.Resampling.LANCZOS, "bicubic": Image.Resampling.BICUBIC,
                  "bilinear": Image.Resampling.BILINEAR}
TILE_POLICIES = ("crop", "pad", "stretch", "timm")
JPEG_STAGES = ("tile", "image")
_RESIZE_BACKENDS = ("pil", "wand")  # for the whole-image resize of resized:N levels


class _ResizeUnavailable(ValueError):
    """The Wand backend was asked for but Wand or the MagickWand library is missing."""


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
    resize_backend: str = "pil"
    centre_crop: float = 0.0  # Chlorophyll Crew's crop_side_percent (a fraction): see crop_box

    def __post_init__(self) -> None:
        if not 0.0 <= self.centre_crop < 1.0:
            raise ValueError(f"centre crop {self.centre_crop} is not a fraction in [0, 1)")
        if self.centre_crop and self.border:
            raise ValueError("give either a border crop or a centre crop, not both")
        if self.resize_backend not in _RESIZE_BACKENDS:
            raise ValueError(f"resize backend {self.resize_backend!r} is not one of {', '.join(_RESIZE_BACKENDS)}")
        if self.resize_filter not in _RESIZE_FILTERS:
            raise ValueError(f"resize filter {self.resize_filter!r} is not one of {', '.join(_RESIZE_FILTERS)}")
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

        object.__setattr__(self, "levels", tuple(replace(lv, size=self.input_size) if lv.kind == "resized" and
                                                 not lv.size else lv for lv in self.levels))
        for lv in self.levels:
            if lv.kind == "resized" and lv.size != self.input_size:
                raise ValueError(f"tiling level {lv} cuts native {lv.size} px tiles but the model input is "
                                 f"{self.input_size} px: use resized:{lv.n}:{self.input_size}")

    def describe(self) -> dict:
        jpeg = self.jpeg_quality is not None
        return {"levels": [str(lv) for lv in self.levels], "input_size": self.input_size,
                "resize_filter": self.resize_filter, "jpeg_quality": self.jpeg_quality,
                "subsampling": self.subsampling if jpeg else None, "jpeg_stage": self.jpeg_stage if jpeg else None,
                "tile_policy": self.tile_policy, "border_mode": self.border_mode,
                "border": f"{self.border:g}%" if self.border_percent else f"{int(self.border)}",
                **({"centre_crop": self.centre_crop} if self.centre_crop else {}),
                **({"resize_backend": _backend_name(self.resize_backend)}
                   if any(lv.kind == "resized" for lv in self.levels) else {})}


def _backend_name(backend: str) -> str:
    """What resized the whole image, said in the run's metadata (the pixels depend on it)."""
    if backend == "pil":
        return f"PIL {PIL.__version__} Lanczos"
    return f"Wand {_wand()[1]} Lanczos"


def _wand():
    try:
        import wand.image
        import wand.version
    except ImportError as exc:
        raise _ResizeUnavailable("--resize-backend wand needs Wand and the MagickWand library: pip install wand, and "
                                f"ImageMagick's library from the system (e.g. apt-get install libmagickwand-6.q16-6) "
                                f"({exc})") from None
    return wand.image.Image, wand.version.MAGICK_VERSION


_ROTATED = range(2, 9)  # EXIF orientations 2-8 move the pixels; 1 (or none) leaves them


def load_rgb(path: str | Path) -> Image.Image:
    """Decode, apply the EXIF orientation (phones store portrait quadrats rotated) and convert to RGB.

    Opened by the one rule for images someone else made (``agrieval.data_tools._untrusted_images``): Pillow's
    pixel cap is checked on the header, before anything is decoded, and a bomb or a file that does not
    decode is ``ImageUnreadable`` naming it. One full-size image in the common case:
    ``ImageOps.exif_transpose`` copies an image it does not rotate and ``convert("RGB")`` copies an RGB one
    (0.5 s of 1.7 s for 6 12 MP quadrats), so each is called only when it changes the pixels."""
    return decode_image(path, _upright_rgb)


def _upright_rgb(im: Image.Image) -> Image.Image:
    if im.getexif().get(0x0112, 1) in _ROTATED:
        im = ImageOps.exif_transpose(im)
    else:
        im.load()  # decoded here; the image outlives the with block (its file is closed, not its pixels)
    return im if im.mode == "RGB" else im.convert("RGB")


def upright_size(path: str | Path) -> tuple[int, int]:
    """Width and height after the EXIF orientation, from the header only (orientations 5-8 swap them)."""
    def size(im: Image.Image) -> tuple[int, int]:
        w, h = im.size
        return (h, w) if im.getexif().get(0x0112, 1) in (5, 6, 7, 8) else (w, h)

    return decode_image(path, size)


def policy_box(box: Box, policy: str) -> Box:
    """The part of ``box`` that reaches the model: its centred square for ``crop``, all of it otherwise."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if policy != "crop" or w == h:
        return box
    side = min(w, h)
    nx, ny = x0 + (w - side) // 2, y0 + (h - side) // 2
    return (nx, ny, nx + side, ny + side)


def _timm_eval(tile: Image.Image, size: int) -> Image.Image:
    """torchvision ``Resize(size, BICUBIC)`` + ``CenterCrop(size)`` on a PIL tile, as timm's eval transform
    (crop_pct 1.0) calls them: the shorter side to ``size``, the longer ``int(size * long / short)``."""
    w, h = tile.size
    if w <= h:
        nw, nh = size, int(size * h / w)
    else:
        nw, nh = int(size * w / h), size
    if (nw, nh) != (w, h):
        tile = tile.resize((nw, nh), Image.Resampling.BICUBIC)
    left, top = int(round((nw - size) / 2.0)), int(round((nh - size) / 2.0))
    return tile.crop((left, top, left + size, top + size))


def _bilinear_stretch(image: Image.Image, box: Box, size: int) -> np.ndarray:
    """Chlorophyll Crew's tile: the box of ``ToTensor(image)`` (zeros outside), interpolated to size x size."""
    import torch

    crop = np.asarray(image.crop(box), dtype=np.float32) / np.float32(255.0)  # crop pads with 0
    # The channels as a batch of three 1-channel images: the same floats as their (1, 3, H, W) call on two or
    # more threads, whatever torch's thread count (their 1-thread kernel rounds ~0.007% of values otherwise,
    # by one grey level; DataLoader workers run one thread).
    t = torch.from_numpy(np.ascontiguousarray(crop.transpose(2, 0, 1)))[:, None]
    out = torch.nn.functional.interpolate(t, size=(size, size), mode="bilinear", align_corners=False)
    return np.clip(np.rint(out[:, 0].permute(1, 2, 0).numpy() * 255.0), 0, 255).astype(np.uint8)


def _resized_tiles(image: Image.Image, level: Level, resample, backend: str = "pil") -> list[Image.Image]:
    """The winner's tiles: whole image resized (f32 rounding), centre crop offset, native tiles row-major."""
    w2, h2, ox, oy = resized_geometry(image.width, image.height, level.n, level.size)
    if backend == "wand":
        wand_image = _wand()[0]
        with wand_image.from_array(np.asarray(image)) as wi:
            wi.resize(w2, h2, filter="lanczos")
            big = Image.fromarray(np.array(wi)[..., :3])
    else:
        big = image.resize((w2, h2), resample)
    s = level.size
    return [big.crop((ox + j * s, oy + i * s, ox + (j + 1) * s, oy + (i + 1) * s))
            for i in range(level.n) for j in range(level.n)]


def _tile_input(image: Image.Image, box: Box, size: int, policy: str, resample) -> Image.Image:
    """One tile as the ``size x size`` RGB model input (steps 2-3 of the module docstring)."""
    if policy == "timm":
        return _timm_eval(image.crop(box), size)
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


def _crop_box(width: int, height: int, cfg: PreprocessConfig) -> Box:
    """The part of the image that is tiled: ``--crop-border``, or with ``centre_crop`` p Chlorophyll Crew's
    ``CenterCrop((int(h * (1 - p)), int(w * (1 - p))))`` (``src/data.py`` ~84-89; torchvision puts the crop at
    ``int(round((side - cropped) / 2))``)."""
    if not cfg.centre_crop:
        return border_box(width, height, cfg.border, cfg.border_percent)
    cw, ch = int(width * (1.0 - cfg.centre_crop)), int(height * (1.0 - cfg.centre_crop))
    if cw < 1 or ch < 1:
        raise ValueError(f"centre crop {cfg.centre_crop} leaves nothing of a {width}x{height} image")
    left, top = int(round((width - cw) / 2.0)), int(round((height - ch) / 2.0))
    return (left, top, left + cw, top + ch)


def quadrat_boxes(width: int, height: int, cfg: PreprocessConfig) -> list[tuple[int, Box]]:
    """``(level, box)`` of every tile in the coordinates of the (EXIF-rotated) image."""
    bx0, by0, bx1, by1 = _crop_box(width, height, cfg)
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
    resample = _RESIZE_FILTERS[cfg.resize_filter]
    bx0, by0, bx1, by1 = _crop_box(image.width, image.height, cfg)
    # The cropped region (resized and scale levels cut from it): no copy when the crop is the whole image.
    region = image if (bx0, by0, bx1, by1) == (0, 0, image.width, image.height) else image.crop((bx0, by0, bx1, by1))
    own = {k: iter(_resized_tiles(region, lv, resample, cfg.resize_backend)) for k, lv in enumerate(cfg.levels)
           if lv.kind == "resized"}
    for t, (k, box) in enumerate(tiles):
        kind = cfg.levels[k].kind
        if kind == "resized":
            tile = next(own[k])
        elif kind == "scale":
            x0, y0, x1, y1 = box  # zeros past the cropped region, as their padding of the cropped image
            tile = Image.fromarray(_bilinear_stretch(region, (x0 - bx0, y0 - by0, x1 - bx0, y1 - by0), size))
        else:
            tile = _tile_input(image, box, size, cfg.tile_policy, resample)
        if recompress and cfg.jpeg_stage == "tile":
            tile = recompress_jpeg(tile, cfg.jpeg_quality, cfg.subsampling)
        out[t] = np.asarray(tile)
        boxes[t] = box
        level_idx[t] = k
    return out, boxes, level_idx
