"""A picture of the tiles on a quadrat (``agrieval baselines plantclef tiles``), drawn with PIL.

What the drawing shows, each explained by a key under the image:

* every tile's box, outlined in its level's colour and numbered in tile order; tiles alternate between
  two shades of that colour (and the second shade is drawn just inside its box), so that overlapping
  windows stay apart where their edges would fall on each other (``window:518:259``);
* how many tiles see each part of the image: the more tiles, the lighter;
* what no tile shows the model, darkened (with ``crop`` a 3:2 tile loses its sides; ``square:N`` never
  sees the sides of a 3:2 quadrat);
* zero padding past the image edge (``--border pad``): hatched, as the model gets black there.

``layout`` computes all of it (tests read it), ``draw_tiles`` paints and writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from agrieval.baselines.plantclef.preprocess import PreprocessConfig, policy_box, quadrat_boxes
from agrieval.scoring.runtime.atomic import atomic_write

COLOURS = [(255, 214, 0), (0, 200, 255), (255, 64, 160), (120, 255, 80), (255, 140, 0), (180, 120, 255)]
UNSEEN_DARKEN = 120  # alpha of the black laid over what no tile shows
PAD_FILL, PAD_HATCH = (70, 70, 70), (235, 235, 235)
_COVER_STEP, _COVER_MAX = 0.14, 0.42
_FIRST_FILL = 70  # alpha of the colour laid over the first tile when tiles overlap  # white laid over a part seen by n tiles: (n - 1) steps, at most the max


@dataclass
class TileLayout:
    """The drawing's geometry, in drawing pixels (the image scaled by ``scale`` and moved by ``offset``)."""
    scale: float
    offset: tuple[int, int]
    size: tuple[int, int]  # of the image area (the legend goes below)
    image_box: tuple[int, int, int, int]
    tiles: list[tuple[int, tuple[int, int, int, int]]]  # (level, box) as drawn
    classes: list[tuple[int, int]]  # per tile (column class, row class): how far in its edges are drawn
    padding: list[tuple[int, int, int, int]]  # boxes of zero padding past the image edge
    coverage: np.ndarray  # (height, width) int: how many tiles' seen parts cover each drawing pixel
    unseen: np.ndarray  # (height, width) bool: inside the image, seen by no tile


def _scaled(box, s: float, ox: int, oy: int):
    return tuple(round(v * s) + o for v, o in zip(box, (ox, oy, ox, oy)))


def layout(width: int, height: int, cfg: PreprocessConfig, max_side: int = 1200) -> TileLayout:
    tiles = quadrat_boxes(width, height, cfg)
    xmin, ymin = min([0] + [b[0] for _, b in tiles]), min([0] + [b[1] for _, b in tiles])
    x1 = max([width] + [b[2] for _, b in tiles])
    y1 = max([height] + [b[3] for _, b in tiles])
    s = min(1.0, max_side / max(x1 - xmin, y1 - ymin))
    ox, oy = round(-xmin * s), round(-ymin * s)
    size = (round((x1 - xmin) * s), round((y1 - ymin) * s))
    image_box = _scaled((0, 0, width, height), s, ox, oy)
    drawn = [(k, _scaled(box, s, ox, oy)) for k, box in tiles]
    # each tile's vertical edges are drawn in by its column class, its horizontal edges by its row class:
    # tiles that overlap or touch along an axis get different classes there, so no two tiles' edges fall
    # on one line (``window:518:259``: a window's edge is the next but one window's edge)
    classes = [(_axis_class(tiles, k, box, 0), _axis_class(tiles, k, box, 1)) for k, box in tiles]
    coverage = np.zeros((size[1], size[0]), dtype=np.int32)
    for k, box in tiles:
        x0, y0, x1_, y1_ = _scaled(_clip(policy_box(box, _policy(cfg, k)), width, height), s, ox, oy)
        coverage[y0:y1_, x0:x1_] += 1
    inside = np.zeros_like(coverage, dtype=bool)
    inside[image_box[1]:image_box[3], image_box[0]:image_box[2]] = True
    padding = []
    for _, box in tiles:
        for pad in ((width, box[1], box[2], box[3]), (box[0], height, box[2], box[3]),
                    (box[0], box[1], 0, box[3]), (box[0], box[1], box[2], 0)):  # past the right, bottom, left, top
            if pad[2] > pad[0] and pad[3] > pad[1]:
                padding.append(_scaled(pad, s, ox, oy))
    return TileLayout(s, (ox, oy), size, image_box, drawn, classes, sorted(set(padding)), coverage,
                      inside & (coverage == 0))


def _overlapping(lay: TileLayout) -> bool:
    """Whether two tiles of one level overlap (windows with a stride below their size)."""
    boxes = lay.tiles
    return any(k == kk and a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
               for i, (k, a) in enumerate(boxes) for kk, b in boxes[i + 1:])


def _axis_class(tiles, level: int, box, axis: int) -> int:
    """The class of ``box``'s extent along ``axis`` (0: x, 1: y) among its level's extents, given greedily in
    order of their start: the smallest one that no earlier extent overlapping or touching it has."""
    extents = sorted({(b[axis], b[axis + 2]) for k, b in tiles if k == level})
    given: dict[tuple[int, int], int] = {}
    for lo, hi in extents:
        taken = {c for (a, b), c in given.items() if a <= hi and lo <= b}  # overlap, or touch (a == hi, b == lo)
        given[(lo, hi)] = next(c for c in range(len(extents) + 1) if c not in taken)
    return given[(box[axis], box[axis + 2])]


def _clip(box, width: int, height: int):
    x0, y0, x1, y1 = box
    return max(0, x0), max(0, y0), min(width, x1), min(height, y1)


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)  # scalable (Pillow >= 10.1)
    except TypeError:
        return ImageFont.load_default()


def _wrap(text: str, font, room: float) -> list[str]:
    """``text`` in lines no wider than ``room`` pixels (words kept whole)."""
    lines, line = [], ""
    for word in text.split():
        if line and font.getlength(f"{line} {word}") > room:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + [line]


def _darker(colour, f: float = 0.55):
    return tuple(round(c * f) for c in colour)


def draw_tiles(image: Image.Image, cfg: PreprocessConfig, out: str | Path, max_side: int = 1200) -> str:
    """Write the drawing to ``out`` (JPEG for a .jpg/.jpeg name, else PNG); return a summary of the tiles."""
    canvas, summary = render(image, cfg, max_side)
    jpeg = Path(out).suffix.lower() in (".jpg", ".jpeg")
    with atomic_write(out, "wb", encoding=None) as fh:
        canvas.save(fh, format="JPEG", quality=85) if jpeg else canvas.save(fh, format="PNG")
    return summary


def render(image: Image.Image, cfg: PreprocessConfig, max_side: int = 1200) -> tuple[Image.Image, str]:
    """The drawing and the summary of the tiles (``draw_tiles`` without the file)."""
    lay = layout(image.width, image.height, cfg, max_side)
    s, (ox, oy) = lay.scale, lay.offset
    width = max(3, round(3 * max(lay.size) / 1000))
    font = _font(max(11, round(max(lay.size) / 55)))
    line_h = font.size + 8 if hasattr(font, "size") else 22
    lines = _level_lines(image, cfg)
    keys = []
    for swatches, text in _keys(lay):  # each key's text wrapped to the drawing's width, right of its swatches
        x = 6 + len(swatches) * (line_h - 2)
        keys.append((swatches, _wrap(text, font, lay.size[0] - x - 10), x))
    legend_h = line_h * (len(lines) + sum(len(t) for _, t, _ in keys)) + 12
    area = Image.new("RGB", lay.size, (0, 0, 0))
    area.paste(image.resize((round(image.width * s), round(image.height * s)), Image.Resampling.LANCZOS), (ox, oy))
    # lighter where more tiles look, darker where none does: one alpha layer of white, one of black
    light = np.clip((lay.coverage - 1) * _COVER_STEP, 0, _COVER_MAX) * 255
    area = Image.composite(Image.new("RGB", lay.size, (255, 255, 255)), area,
                           Image.fromarray(light.astype(np.uint8), "L"))
    area = Image.composite(Image.new("RGB", lay.size, (0, 0, 0)), area,
                           Image.fromarray((lay.unseen * UNSEEN_DARKEN).astype(np.uint8), "L"))
    if _overlapping(lay):  # one window filled: its extent, and so the overlap with the next, shows at once
        k, box = lay.tiles[0]
        fill = Image.new("RGB", lay.size, COLOURS[k % len(COLOURS)])
        mask = Image.new("L", lay.size, 0)
        ImageDraw.Draw(mask).rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=_FIRST_FILL)
        area = Image.composite(fill, area, mask)
    d = ImageDraw.Draw(area)
    for pad in lay.padding:
        _hatched(d, pad)
    for t, (k, box) in enumerate(lay.tiles):
        cx, cy = lay.classes[t]
        colour = _darker(COLOURS[k % len(COLOURS)]) if (cx + cy) % 2 else COLOURS[k % len(COLOURS)]
        drawn = (box[0] + cx * width, box[1] + cy * width, box[2] - 1 - cx * width, box[3] - 1 - cy * width)
        d.rectangle(drawn, outline=colour, width=width)
        label = str(t)
        tx, ty = drawn[0] + width + 2, drawn[1] + width + 2 + k * (line_h - 2)  # levels' numbers one under another
        bbox = d.textbbox((tx, ty), label, font=font)
        d.rectangle((bbox[0] - 2, bbox[1] - 2, bbox[2] + 2, bbox[3] + 2), fill=(0, 0, 0))
        d.text((tx, ty), label, fill=colour, font=font)
    canvas = Image.new("RGB", (lay.size[0], lay.size[1] + legend_h), (0, 0, 0))
    canvas.paste(area, (0, 0))
    d = ImageDraw.Draw(canvas)
    y = lay.size[1] + 6
    for n, line in enumerate(lines):
        d.text((6, y), line, fill=COLOURS[n % len(COLOURS)], font=font)
        y += line_h
    for swatches, text, x in keys:
        for k, paint in enumerate(swatches):
            left = 6 + k * (line_h - 2)
            paint(d, (left, y + 2, left + line_h - 6, y + line_h - 6))
        for part in text:
            d.text((x + 4, y), part, fill=(230, 230, 230), font=font)
            y += line_h
    head = (f"{image.width}x{image.height} image, {len(lay.tiles)} tiles, tile policy {cfg.tile_policy}, "
            f"border {cfg.border_mode}")
    return canvas, "\n".join([head, *lines])


def _level_lines(image: Image.Image, cfg: PreprocessConfig) -> list[str]:
    counts: dict[int, list] = {}
    for k, box in quadrat_boxes(image.width, image.height, cfg):
        counts.setdefault(k, []).append(box)
    lines = []
    for k, level in enumerate(cfg.levels):
        boxes = counts.get(k, [])
        w, h = boxes[0][2] - boxes[0][0], boxes[0][3] - boxes[0][1]
        seen = policy_box(boxes[0], _policy(cfg, k))
        side = max(seen[2] - seen[0], seen[3] - seen[1])
        lines.append(f"level {k} {level}: {len(boxes)} tiles of {w}x{h} px, {_policy(cfg, k)} -> "
                     f"{cfg.input_size} px (x{cfg.input_size / side:.2f})")
    return lines


def _policy(cfg, k: int) -> str:
    """What a level does with a box: scale:S:O stretches it (bilinear), resized:N shows it whole (the image was
    resized); the other levels follow --tile-policy."""
    kind = cfg.levels[k].kind
    return "stretch" if kind == "scale" else "whole-image resize" if kind == "resized" else cfg.tile_policy


def _keys(lay: TileLayout) -> list[tuple[list, str]]:
    """The key lines under the image: (swatch painters, text), only for what the drawing shows."""
    def outline(colour, inset=0):
        return lambda d, b: d.rectangle((b[0] + inset, b[1] + inset, b[2] - inset, b[3] - inset), outline=colour,
                                        width=2)

    keys = []
    first = COLOURS[0]
    apart = any(c != (0, 0) for c in lay.classes)
    keys.append(([outline(first)] + ([outline(_darker(first), 2)] if apart else []),
                 "tile outline, number = tile order" + ("; overlapping or touching tiles have their edges "
                                                        "drawn apart (and in two shades), so each box can be "
                                                        "followed" if apart else "")))
    if _overlapping(lay):
        keys.append(([lambda d, b: d.rectangle(b, fill=_darker(first, 0.75))],
                     "tile 0 filled: the extent of one window (the windows overlap)"))
    most = int(lay.coverage.max()) if lay.coverage.size else 0
    if most >= 2:
        def tint(n):
            v = round(min((n - 1) * _COVER_STEP, _COVER_MAX) * 255)
            return lambda d, b: d.rectangle(b, fill=(90 + v * 165 // 255,) * 3)

        keys.append(([tint(n) for n in range(1, min(most, 4) + 1)],
                     f"seen by 1 to {most} overlapping tiles: lighter where more tiles see it"))
    if lay.unseen.any():
        keys.append(([lambda d, b: d.rectangle(b, fill=(40, 40, 40), outline=(120, 120, 120))],
                     "darkened: seen by no tile"))
    if lay.padding:
        keys.append(([lambda d, b: _hatched(d, b)], "hatched: zero padding past the image edge (the model sees black)"))
    return keys


def _hatched(d: ImageDraw.ImageDraw, box, step: int = 7) -> None:
    """Fill ``box`` with the padding's grey crossed by white diagonal lines (x - y = c), outlined."""
    x0, y0, x1, y1 = box
    d.rectangle(box, fill=PAD_FILL)
    for c in range(x0 - y1, x1 - y0 + 1, step):
        start = (c + y0, y0) if c + y0 >= x0 else (x0, x0 - c)  # the top edge, else the left one
        end = (c + y1, y1) if c + y1 <= x1 else (x1, x1 - c)  # the bottom edge, else the right one
        d.line([start, end], fill=PAD_HATCH, width=1)
    d.rectangle(box, outline=PAD_HATCH, width=1)
