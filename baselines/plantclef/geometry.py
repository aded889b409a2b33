"""Tile geometry: which boxes of a quadrat image go through the model.

Boxes are half-open pixel rectangles ``(x0, y0, x1, y1)`` with
``0 <= x0 < x1 <= width`` and ``0 <= y0 < y1 <= height``.

A *level* is one tiling of the image; several levels (scales) may be used at
once and their tiles are simply concatenated, level by level, row-major.

``grid:N``
    N x N tiles with edges at ``round(i * W / N)``, ``i = 0..N``: the tiles
    partition the image exactly (no overlap, no gap).
``window:S[:T]``
    square windows of S px moved by stride T (default S, i.e. no overlap).
    Along an axis of length L > S the starts are ``min(i*T, L-S)`` for
    ``i = 0..n-1`` with ``n = ceil((L-S)/T) + 1``: the last window is snapped to
    the far edge so every pixel is covered and none is outside. When L <= S a
    single window spans the whole axis (the tile is then not square and is
    stretched to the model input).
``full``
    the whole image as one tile.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

Box = tuple[int, int, int, int]

_LEVEL = re.compile(r"^(?:grid:(?P<n>\d+)|window:(?P<s>\d+)(?::(?P<t>\d+))?|(?P<full>full))$")


@dataclass(frozen=True)
class Level:
    """One tiling level; build with :func:`parse_level`."""

    kind: str  # "grid" | "window" | "full"
    n: int = 1
    size: int = 0
    stride: int = 0

    def __str__(self) -> str:
        if self.kind == "grid":
            return f"grid:{self.n}"
        if self.kind == "window":
            return f"window:{self.size}:{self.stride}"
        return "full"


def parse_level(text: str) -> Level:
    """``'grid:4'``, ``'window:518:400'``, ``'window:518'`` or ``'full'``; ValueError otherwise."""
    m = _LEVEL.match(text.strip())
    if not m:
        raise ValueError(f"tiling level {text!r} is not one of grid:N, window:SIZE[:STRIDE], full")
    if m["full"]:
        return Level("full")
    if m["n"] is not None:
        n = int(m["n"])
        if n < 1:
            raise ValueError(f"tiling level {text!r}: N must be at least 1")
        return Level("grid", n=n)
    size = int(m["s"])
    stride = int(m["t"]) if m["t"] is not None else size
    if size < 1 or stride < 1:
        raise ValueError(f"tiling level {text!r}: SIZE and STRIDE must be at least 1")
    if stride > size:
        raise ValueError(f"tiling level {text!r}: STRIDE {stride} > SIZE {size} would leave gaps")
    return Level("window", size=size, stride=stride)


def _grid_edges(length: int, n: int) -> list[int]:
    return [round(i * length / n) for i in range(n + 1)]


def _window_starts(length: int, size: int, stride: int) -> list[int]:
    if length <= size:
        return [0]
    n = math.ceil((length - size) / stride) + 1
    return [min(i * stride, length - size) for i in range(n)]


def level_boxes(width: int, height: int, level: Level) -> list[Box]:
    """Boxes of one level, row-major (top row first, left to right)."""
    if width < 1 or height < 1:
        raise ValueError(f"image size {width}x{height} has no pixels")
    if level.kind == "full":
        return [(0, 0, width, height)]
    if level.kind == "grid":
        if level.n > min(width, height):
            raise ValueError(f"grid:{level.n} needs an image of at least {level.n}x{level.n} px, got {width}x{height}")
        xs, ys = _grid_edges(width, level.n), _grid_edges(height, level.n)
        return [(xs[i], ys[j], xs[i + 1], ys[j + 1]) for j in range(level.n) for i in range(level.n)]
    xs = _window_starts(width, level.size, level.stride)
    ys = _window_starts(height, level.size, level.stride)
    return [(x, y, min(x + level.size, width), min(y + level.size, height)) for y in ys for x in xs]


def tile_boxes(width: int, height: int, levels: list[Level] | tuple[Level, ...]) -> list[tuple[int, Box]]:
    """``(level_index, box)`` for every tile of every level, in level order."""
    if not levels:
        raise ValueError("at least one tiling level is needed")
    return [(k, box) for k, level in enumerate(levels) for box in level_boxes(width, height, level)]


def expected_count(width: int, height: int, level: Level) -> int:
    """Number of tiles of a level, from the formulas in the module docstring."""
    if level.kind == "full":
        return 1
    if level.kind == "grid":
        return level.n * level.n

    def axis(length: int) -> int:
        return 1 if length <= level.size else math.ceil((length - level.size) / level.stride) + 1

    return axis(width) * axis(height)


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
