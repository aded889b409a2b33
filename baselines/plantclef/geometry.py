"""Tile geometry: which boxes of a quadrat image go through the model.

Boxes are half-open pixel rectangles ``(x0, y0, x1, y1)``. With ``border="snap"``
(the default) every box lies inside the image, ``0 <= x0 < x1 <= width``; with
``border="pad"`` a window may run past the right or bottom edge and with
``border="centre"`` past any edge, the part outside the image being zero
(black) pixels: ``pad`` is the organisers' tiling notebook (last row and column
zero-padded), ``centre`` is kornia's ``compute_padding`` as Chlorophyll Crew
call it (the padding split between both sides, the odd pixel at the far side).

A *level* is one tiling of the image; several levels (scales) may be used at
once and their tiles are simply concatenated, level by level.

``grid:N`` / ``grid:CxR``
    N x N (or C columns x R rows) tiles with edges at ``round(i * W / C)``:
    the tiles partition the image exactly (no overlap, no gap), row-major.
    On a 3:2 image ``grid:4`` gives 3:2 tiles; the tile policy (``crop``,
    ``pad``, ``stretch``, see ``preprocess``) decides what the model sees.
``window:S[:T]``
    square windows of S px moved by stride T (default S). Along an axis of
    length L the count is ``n = ceil((L-S)/T) + 1`` (1 when L <= S) and the
    starts are ``i*T``. ``snap``: the last start becomes ``L-S`` so the window
    stays inside (and a single window spans an axis shorter than S); ``pad``:
    the starts stay ``i*T`` and the last window is zero-padded past the edge;
    ``centre``: with ``P = (T - (L-S) mod T) mod T`` the starts are
    ``i*T - P//2`` (the windows shifted to centre the padding; an axis that
    ``P`` leaves shorter than S is padded to one window instead).
``cover:S``
    ``ceil(W/S) x ceil(H/S)`` windows of S px spread evenly from edge to edge
    (start ``round(i*(L-S)/(n-1))``), so neighbours overlap by the slack:
    the rectangular, overlapping grid Chlorophyll Crew describe.
``square:N``
    the 2025 winner's geometry: the centred square of side ``m = min(W, H)``
    (offsets ``(W-m)//2``, ``(H-m)//2``) cut into an N x N grid; with several
    N at once this is the winner's multi-scale tiling.
``floor:N``
    DS@GT's ``_split_into_grid``: tiles of ``W//N x H//N`` px from the top-left
    corner (the right and bottom remainder is dropped), **column-major**
    (tile 1 is below tile 0).
``resized:N``
    the 2025 winner's own pixels (``src/lib_dataset.rs`` ~486-532, ``src/lib.rs``
    ~212-222): the **whole image** is resized so its shorter side is
    ``R = N * input_size`` and its longer side ``round(R * long / short)``
    computed in float32 (Rust ``f32``, half away from zero), then cropped at
    ``(long' - R) // 2`` and cut into N x N native ``input_size`` tiles,
    row-major. The boxes written are the original pixels under each tile
    (its corners mapped back, floor and ceil); the pixels come from the
    resized image (``preprocess``).
``scale:S:O``
    Chlorophyll Crew's multi-scale tiling (``src/data.py`` ~94-119): windows
    ``ceil(H/S) x ceil(W/S)`` (rectangular), strides ``ceil(window * (1-O))``,
    kornia's ``compute_padding`` (centred, the odd pixel at the far side), row-major;
    each window is stretched to the square input by bilinear interpolation
    of the float tile (``preprocess``). S >= 1, 0 <= O < 1.
``full``
    the whole image as one tile.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

Box = tuple[int, int, int, int]
BORDERS = ("snap", "pad", "centre")

_LEVEL = re.compile(r"^(?:grid:(?P<gc>\d+)(?:x(?P<gr>\d+))?|window:(?P<s>\d+)(?::(?P<t>\d+))?|cover:(?P<cs>\d+)"
                    r"|square:(?P<sq>\d+)|floor:(?P<fl>\d+)|resized:(?P<rz>\d+)(?::(?P<rs>\d+))?"
                    r"|scale:(?P<sc>[0-9.]+):(?P<ov>[0-9.]+)|(?P<full>full))$")


@dataclass(frozen=True)
class Level:
    """One tiling level; build with :func:`parse_level`."""

    kind: str  # "grid" | "window" | "cover" | "square" | "floor" | "full"
    n: int = 1  # columns (grid), N (square, floor)
    size: int = 0
    stride: int = 0
    rows: int = 0  # grid rows; 0 = same as n
    scale: float = 0.0  # scale:S:O
    overlap: float = 0.0

    @property
    def n_rows(self) -> int:
        return self.rows or self.n

    def __str__(self) -> str:
        if self.kind == "grid":
            return f"grid:{self.n}" if self.n_rows == self.n else f"grid:{self.n}x{self.n_rows}"
        if self.kind == "window":
            return f"window:{self.size}:{self.stride}"
        if self.kind == "cover":
            return f"cover:{self.size}"
        if self.kind in ("square", "floor"):
            return f"{self.kind}:{self.n}"
        if self.kind == "resized":
            return f"resized:{self.n}:{self.size}" if self.size else f"resized:{self.n}"
        if self.kind == "scale":
            return f"scale:{self.scale:g}:{self.overlap:g}"
        return "full"


def parse_level(text: str) -> Level:
    """``'grid:4'``, ``'grid:3x2'``, ``'window:518:259'``, ``'cover:518'``, ``'square:3'``, ``'floor:3'`` or
    ``'full'``; ValueError otherwise."""
    m = _LEVEL.match(text.strip())
    if not m:
        raise ValueError(f"tiling level {text!r} is not one of grid:N, grid:COLSxROWS, window:SIZE[:STRIDE], "
                         "cover:SIZE, square:N, floor:N, resized:N[:SIZE], scale:S:OVERLAP, full")
    if m["full"]:
        return Level("full")
    if m["rz"] is not None:
        n, size = int(m["rz"]), int(m["rs"] or 0)  # 0: the model's input size (PreprocessConfig fills it in)
        if n < 1 or (m["rs"] is not None and size < 1):
            raise ValueError(f"tiling level {text!r}: N and the tile size must be at least 1")
        return Level("resized", n=n, size=size)
    if m["sc"] is not None:
        try:
            scale, overlap = float(m["sc"]), float(m["ov"])
        except ValueError:
            raise ValueError(f"tiling level {text!r}: scale:S:O needs two numbers") from None
        if not (scale >= 1 and 0 <= overlap < 1):
            raise ValueError(f"tiling level {text!r}: needs S >= 1 and 0 <= O < 1")
        return Level("scale", scale=scale, overlap=overlap)
    for key, kind in (("gc", "grid"), ("sq", "square"), ("fl", "floor")):
        if m[key] is not None:
            n = int(m[key])
            rows = int(m["gr"]) if kind == "grid" and m["gr"] is not None else 0
            if n < 1 or (m["gr"] is not None and kind == "grid" and rows < 1):
                raise ValueError(f"tiling level {text!r}: the tile counts must be at least 1")
            return Level(kind, n=n, rows=rows if rows != n else 0)
    if m["cs"] is not None:
        size = int(m["cs"])
        if size < 1:
            raise ValueError(f"tiling level {text!r}: SIZE must be at least 1")
        return Level("cover", size=size)
    size = int(m["s"])
    stride = int(m["t"]) if m["t"] is not None else size
    if size < 1 or stride < 1:
        raise ValueError(f"tiling level {text!r}: SIZE and STRIDE must be at least 1")
    if stride > size:
        raise ValueError(f"tiling level {text!r}: STRIDE {stride} > SIZE {size} would leave gaps")
    return Level("window", size=size, stride=stride)


def _edges(length: int, n: int) -> list[int]:
    return [round(i * length / n) for i in range(n + 1)]


def _window_count(length: int, size: int, stride: int) -> int:
    return 1 if length <= size else math.ceil((length - size) / stride) + 1


def _window_starts(length: int, size: int, stride: int, border: str) -> list[int]:
    n = _window_count(length, size, stride)
    if border == "pad":
        return [i * stride for i in range(n)]
    if border == "centre":
        pad = (stride - (length - size) % stride) % stride
        if length + pad < size:  # kornia would give no window at all; the kit pads the axis to one window
            pad = size - length
        return [i * stride - pad // 2 for i in range((length + pad - size) // stride + 1)]
    return [min(i * stride, max(length - size, 0)) for i in range(n)]


def _kornia_starts(length: int, window: int, stride: int) -> list[int]:
    """Starts of the windows ``extract_tensor_patches`` takes after kornia 0.8.0's ``compute_padding``:
    padding ``P = stride - (L - window) % stride`` (0 when the remainder is 0), ``P // 2`` before."""
    rem = (length - window) % stride
    pad = stride - rem if rem else 0
    return [i * stride - pad // 2 for i in range((length + pad - window) // stride + 1)]


def _rust_round_f32(x: np.float32) -> int:
    """Rust ``f32::round``: half away from zero (positive here)."""
    return int(math.floor(float(x) + 0.5))


def resized_geometry(width: int, height: int, n: int, size: int) -> tuple[int, int, int, int]:
    """``(W', H', x offset, y offset)`` of the winner's whole-image resize (module docstring)."""
    res = n * size
    if height < width:
        w2 = _rust_round_f32(np.float32(res) * np.float32(width) / np.float32(height))
        return w2, res, (w2 - res) // 2, 0
    h2 = _rust_round_f32(np.float32(res) * np.float32(height) / np.float32(width))
    return res, h2, 0, (h2 - res) // 2


def _scale_windows(width: int, height: int, scale: float, overlap: float) -> list[Box]:
    """Chlorophyll Crew's windows of one scale, as ``src/data.py`` computes them."""
    win_h, win_w = math.ceil(height / scale), math.ceil(width / scale)
    st_h, st_w = math.ceil(win_h * (1.0 - overlap)), math.ceil(win_w * (1.0 - overlap))
    ys, xs = _kornia_starts(height, win_h, st_h), _kornia_starts(width, win_w, st_w)
    return [(x, y, x + win_w, y + win_h) for y in ys for x in xs]


def _cover_starts(length: int, size: int) -> list[int]:
    n = math.ceil(length / size)
    if n <= 1:
        return [0]
    return [round(i * (length - size) / (n - 1)) for i in range(n)]


def _check_counts(width: int, height: int, cols: int, rows: int, what: str) -> None:
    if cols > width or rows > height:
        raise ValueError(f"{what} needs an image of at least {cols}x{rows} px, got {width}x{height}")


def _level_boxes(width: int, height: int, level: Level, border: str = "snap") -> list[Box]:
    """Boxes of one level in the order of the module docstring."""
    if width < 1 or height < 1:
        raise ValueError(f"image size {width}x{height} has no pixels")
    if border not in BORDERS:
        raise ValueError(f"border {border!r} is not one of {', '.join(BORDERS)}")
    if level.kind == "full":
        return [(0, 0, width, height)]
    if level.kind == "grid":
        _check_counts(width, height, level.n, level.n_rows, str(level))
        xs, ys = _edges(width, level.n), _edges(height, level.n_rows)
        return [(xs[i], ys[j], xs[i + 1], ys[j + 1]) for j in range(level.n_rows) for i in range(level.n)]
    if level.kind == "square":
        side = min(width, height)
        _check_counts(side, side, level.n, level.n, str(level))
        ox, oy = (width - side) // 2, (height - side) // 2
        e = _edges(side, level.n)
        return [(ox + e[i], oy + e[j], ox + e[i + 1], oy + e[j + 1]) for j in range(level.n) for i in range(level.n)]
    if level.kind == "floor":
        _check_counts(width, height, level.n, level.n, str(level))
        gw, gh = width // level.n, height // level.n
        return [(i * gw, j * gh, (i + 1) * gw, (j + 1) * gh) for i in range(level.n) for j in range(level.n)]
    if level.kind == "resized":
        if not level.size:
            raise ValueError(f"tiling level {level} needs the model's input size (resized:{level.n}:SIZE)")
        w2, h2, ox, oy = resized_geometry(width, height, level.n, level.size)
        fx, fy = width / w2, height / h2
        return [(math.floor((ox + j * level.size) * fx), math.floor((oy + i * level.size) * fy),
                 min(width, math.ceil((ox + (j + 1) * level.size) * fx)),
                 min(height, math.ceil((oy + (i + 1) * level.size) * fy)))
                for i in range(level.n) for j in range(level.n)]
    if level.kind == "scale":
        return _scale_windows(width, height, level.scale, level.overlap)
    if level.kind == "cover":
        xs, ys = _cover_starts(width, level.size), _cover_starts(height, level.size)
        return [(x, y, min(x + level.size, width), min(y + level.size, height)) for y in ys for x in xs]
    xs = _window_starts(width, level.size, level.stride, border)
    ys = _window_starts(height, level.size, level.stride, border)
    if border in ("pad", "centre"):
        return [(x, y, x + level.size, y + level.size) for y in ys for x in xs]
    return [(x, y, min(x + level.size, width), min(y + level.size, height)) for y in ys for x in xs]


def tile_boxes(width: int, height: int, levels: list[Level] | tuple[Level, ...],
               border: str = "snap") -> list[tuple[int, Box]]:
    """``(level_index, box)`` for every tile of every level, in level order."""
    if not levels:
        raise ValueError("at least one tiling level is needed")
    return [(k, box) for k, level in enumerate(levels) for box in _level_boxes(width, height, level, border)]


def _expected_count(width: int, height: int, level: Level) -> int:
    """Number of tiles of a level, from the formulas in the module docstring (either border)."""
    if level.kind == "full":
        return 1
    if level.kind == "grid":
        return level.n * level.n_rows
    if level.kind in ("square", "floor", "resized"):
        return level.n * level.n
    if level.kind == "scale":
        return len(_scale_windows(width, height, level.scale, level.overlap))
    if level.kind == "cover":
        return max(1, math.ceil(width / level.size)) * max(1, math.ceil(height / level.size))
    return _window_count(width, level.size, level.stride) * _window_count(height, level.size, level.stride)


def parse_border(text: str) -> tuple[float, bool]:
    """``'40'`` (pixels) or ``'5%'`` (percent of each side) -> ``(value, is_percent)``."""
    t = text.strip()
    percent = t.endswith("%")
    try:
        value = float(t[:-1] if percent else t)
    except ValueError:
        raise ValueError(f"border crop {text!r} is not a number of pixels (e.g. 40) or a percentage (e.g. 5%)") from None
    if value < 0 or (percent and value >= 50):
        raise ValueError(f"border crop {text!r} must be >= 0 (and < 50%)")
    if not percent and value != int(value):
        raise ValueError(f"border crop {text!r}: pixels must be a whole number")
    return value, percent


def border_box(width: int, height: int, border: float, percent: bool) -> Box:
    """Box left after removing ``border`` from each side (pixels, or percent of that side's length)."""
    bx = round(width * border / 100) if percent else int(border)
    by = round(height * border / 100) if percent else int(border)
    if 2 * bx >= width or 2 * by >= height:
        raise ValueError(f"border crop of {bx}x{by} px leaves nothing of a {width}x{height} image")
    return (bx, by, width - bx, height - by)
