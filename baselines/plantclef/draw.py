"""A picture of the tiles on a quadrat (``agrieval baselines plantclef tiles``), drawn with PIL.

Each tile's box is outlined in its level's colour and numbered in tile order;
what no tile shows the model is darkened (with ``crop`` a 3:2 tile loses its sides;
``square:N`` never sees the sides of a 3:2 quadrat);
zero padding past the image edge (``--border pad``) is drawn as black with a
dashed outline. A legend line under the image says the level, tile count,
tile size and scale to the model input.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from baselines.plantclef.preprocess import PreprocessConfig, policy_box, quadrat_boxes
from scoring.runtime.atomic import atomic_write

COLOURS = [(255, 214, 0), (0, 200, 255), (255, 64, 160), (120, 255, 80), (255, 140, 0), (180, 120, 255)]


def _scaled(box, s: float, ox: int, oy: int):
    return tuple(round(v * s) + o for v, o in zip(box, (ox, oy, ox, oy)))


def draw_tiles(image: Image.Image, cfg: PreprocessConfig, out: str | Path, max_side: int = 1200) -> str:
    """Write the drawing to ``out`` (JPEG for a .jpg/.jpeg name, else PNG); return a summary of the tiles."""
    tiles = quadrat_boxes(image.width, image.height, cfg)
    xmin, ymin = min([0] + [b[0] for _, b in tiles]), min([0] + [b[1] for _, b in tiles])
    x1 = max([image.width] + [b[2] for _, b in tiles])
    y1 = max([image.height] + [b[3] for _, b in tiles])
    s = min(1.0, max_side / max(x1 - xmin, y1 - ymin))
    ox, oy = round(-xmin * s), round(-ymin * s)
    legend_h = 22 * len(cfg.levels) + 10
    area_h = round((y1 - ymin) * s)
    canvas = Image.new("RGB", (round((x1 - xmin) * s), area_h + legend_h), (0, 0, 0))
    canvas.paste(image.resize((round(image.width * s), round(image.height * s)), Image.Resampling.LANCZOS), (ox, oy))
    unseen = Image.new("L", canvas.size, 0)  # darken what no tile shows the model (crop drops a 3:2 tile's sides)
    ud = ImageDraw.Draw(unseen)
    ud.rectangle(_scaled((0, 0, image.width, image.height), s, ox, oy), fill=120)
    for k, box in tiles:
        ud.rectangle(_scaled(policy_box(box, _policy(cfg, k)), s, ox, oy), fill=0)
    shade = Image.new("RGBA", canvas.size, (0, 0, 0, 0))
    shade.putalpha(unseen)
    canvas = Image.alpha_composite(canvas.convert("RGBA"), shade).convert("RGB")
    d = ImageDraw.Draw(canvas)
    width = max(2, round(3 * s * max(x1 - xmin, y1 - ymin) / 1000))
    counts: dict[int, list] = {}
    for t, (k, box) in enumerate(tiles):
        colour = COLOURS[k % len(COLOURS)]
        sb = _scaled(box, s, ox, oy)
        d.rectangle(sb, outline=colour, width=width)
        for pad in ((image.width, box[1], box[2], box[3]), (box[0], image.height, box[2], box[3]),
                    (box[0], box[1], 0, box[3]), (box[0], box[1], box[2], 0)):  # zero padding past an edge
            if pad[2] > pad[0] and pad[3] > pad[1]:
                _dashed(d, _scaled(pad, s, ox, oy), (255, 255, 255))
        d.text((sb[0] + 2 * width, sb[1] + 2 * width), str(t), fill=colour)
        counts.setdefault(k, []).append(box)
    lines = []
    for k, level in enumerate(cfg.levels):
        boxes = counts.get(k, [])
        w, h = boxes[0][2] - boxes[0][0], boxes[0][3] - boxes[0][1]
        seen = policy_box(boxes[0], _policy(cfg, k))
        side = max(seen[2] - seen[0], seen[3] - seen[1])
        lines.append(f"level {k} {level}: {len(boxes)} tiles of {w}x{h} px, {_policy(cfg, k)} -> "
                     f"{cfg.input_size} px (x{cfg.input_size / side:.2f})")
    for n, line in enumerate(lines):
        d.text((6, area_h + 6 + 22 * n), line, fill=COLOURS[n % len(COLOURS)])
    jpeg = Path(out).suffix.lower() in (".jpg", ".jpeg")
    with atomic_write(out, "wb", encoding=None) as fh:
        canvas.save(fh, format="JPEG", quality=85) if jpeg else canvas.save(fh, format="PNG")
    head = (f"{image.width}x{image.height} image, {len(tiles)} tiles, tile policy {cfg.tile_policy}, "
            f"border {cfg.border_mode}")
    return "\n".join([head, *lines])


def _policy(cfg, k: int) -> str:
    """What a level does with a box: scale:S:O stretches it (bilinear), resized:N shows it whole (the image was
    resized); the other levels follow --tile-policy."""
    kind = cfg.levels[k].kind
    return "stretch" if kind == "scale" else "whole-image resize" if kind == "resized" else cfg.tile_policy


def _dashed(d: ImageDraw.ImageDraw, box, colour, dash: int = 8) -> None:
    x0, y0, x1, y1 = box
    for x in range(x0, x1, 2 * dash):
        d.line([(x, y0), (min(x + dash, x1), y0)], fill=colour)
        d.line([(x, y1), (min(x + dash, x1), y1)], fill=colour)
    for y in range(y0, y1, 2 * dash):
        d.line([(x0, y), (x0, min(y + dash, y1))], fill=colour)
        d.line([(x1, y), (x1, min(y + dash, y1))], fill=colour)
