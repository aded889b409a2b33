"""Synthetic quadrats with planted species, for the demo, smoke check and benchmark.

A quadrat is a g x g grid of regions; region (row, col) is painted in the
colour of the species planted there (``PALETTE[class_index]``) with seeded
texture noise, and saved as JPEG (quality 95). The planted species of a
quadrat are the distinct classes of its regions.
"""

from __future__ import annotations

import argparse
import colorsys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from agrieval.scoring.runtime.atomic import atomic_write


def palette(n: int) -> np.ndarray:
    """``n`` well-separated RGB colours (evenly spaced hues, alternating brightness), uint8 ``(n, 3)``."""
    cols = [colorsys.hsv_to_rgb(i / n, 0.85, 0.95 if i % 2 == 0 else 0.6) for i in range(n)]
    return (np.asarray(cols) * 255).round().astype(np.uint8)


def planted_image(regions: np.ndarray, width: int, height: int, n_classes: int, seed: int,
                  noise: float = 12.0) -> Image.Image:
    """RGB image whose grid cell (r, c) carries the colour of class ``regions[r, c]``."""
    g_rows, g_cols = regions.shape
    pal = palette(n_classes).astype(np.float32)
    ys = (np.arange(height) * g_rows) // height
    xs = (np.arange(width) * g_cols) // width
    img = pal[regions[ys[:, None], xs[None, :]]]
    img += np.random.default_rng(seed).normal(0.0, noise, img.shape).astype(np.float32)
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))


def make_quadrats(folder: str | Path, ids: list[str], n_classes: int, *, grid: int = 2, width: int = 224,
                  height: int = 224, seed: int = 0, quality: int = 95) -> dict[str, list[int]]:
    """Write ``<id>.jpg`` for each id; return the planted class indices of each (sorted)."""
    folder = Path(folder)
    rng = np.random.default_rng(seed)
    planted: dict[str, list[int]] = {}
    for k, image_id in enumerate(ids):
        regions = rng.integers(0, n_classes, size=(grid, grid))
        image = planted_image(regions, width, height, n_classes, seed=seed * 100_003 + k)
        with atomic_write(folder / f"{image_id}.jpg", "wb", encoding=None) as fh:
            image.save(fh, format="JPEG", quality=quality)
        planted[image_id] = sorted({int(c) for c in regions.ravel()})
    return planted


def demo_ids(n: int) -> list[str]:
    """PlantCLEF-looking ids: transects of two quadrats, each surveyed on two dates."""
    out = []
    for i in range(n):
        transect, survey = divmod(i, 2)
        out.append(f"DEMO-T{transect // 2 + 1}-Q{transect % 2 + 1}-2024{6 + survey:02d}15")
    return sorted(out)


def field_quadrat(width: int = 1536, height: int = 1024, seed: int = 0) -> Image.Image:
    """A real-looking 3:2 quadrat photo, drawn: soil, grass blades, rosettes of leaves of a few
    "species" (shape and green differ), flower heads and the white frame of the quadrat at the edges.
    For pictures of the tiling (README), not for accuracy."""
    rng = np.random.default_rng(seed)
    soil = np.asarray([112, 86, 60], np.float32) + rng.normal(0, 18, (height, width, 3)).astype(np.float32)
    coarse = Image.fromarray(np.clip(128 + rng.normal(0, 40, (height // 48 + 2, width // 48 + 2)), 0, 255)
                             .astype(np.uint8)).resize((width, height), Image.Resampling.BICUBIC)
    soil += (np.asarray(coarse, np.float32)[:, :, None] - 128) * 0.45
    img = Image.fromarray(np.clip(soil, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(1.2))
    d = ImageDraw.Draw(img)
    s = min(width, height) / 1000
    for _ in range(6000):  # grass
        x, y = rng.uniform(0, width), rng.uniform(0, height)
        a, n = rng.uniform(-0.6, 0.6) - np.pi / 2, rng.uniform(20, 70) * s
        g = tuple(int(v) for v in rng.normal([92, 128, 52], [12, 18, 10]).clip(0, 255))
        d.line([(x, y), (x + n * np.cos(a), y + n * np.sin(a))], fill=g, width=max(1, round(2 * s)))
    species = [((58, 120, 40), 55, 18, 7), ((96, 150, 60), 34, 14, 9), ((40, 92, 48), 80, 30, 5),
               ((130, 160, 70), 26, 20, 12), ((70, 110, 90), 60, 12, 14)]
    for colour, length, wide, leaves in species:
        for _ in range(int(rng.integers(8, 18))):
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            for k in range(leaves):
                a = 2 * np.pi * k / leaves + rng.uniform(-0.2, 0.2)
                n, w = length * s * rng.uniform(0.7, 1.3), wide * s * rng.uniform(0.7, 1.2)
                tip = (cx + n * np.cos(a), cy + n * np.sin(a))
                side = (np.cos(a + np.pi / 2) * w / 2, np.sin(a + np.pi / 2) * w / 2)
                mid = (cx + 0.5 * n * np.cos(a), cy + 0.5 * n * np.sin(a))
                c = tuple(int(v) for v in (np.asarray(colour) * rng.uniform(0.85, 1.15)).clip(0, 255))
                d.polygon([(cx, cy), (mid[0] + side[0], mid[1] + side[1]), tip, (mid[0] - side[0], mid[1] - side[1])],
                          fill=c, outline=tuple(max(0, v - 30) for v in c))
    for colour in ((240, 210, 40), (245, 245, 235), (150, 90, 180)):  # flower heads
        for _ in range(int(rng.integers(6, 16))):
            x, y, r = rng.uniform(0, width), rng.uniform(0, height), rng.uniform(5, 11) * s
            d.ellipse([x - r, y - r, x + r, y + r], fill=colour, outline=(90, 80, 40))
    frame = max(4, round(14 * s))  # the quadrat frame, only partly in the picture
    d.rectangle([frame, frame, width - frame, height - frame], outline=(235, 235, 230), width=frame)
    return img.filter(ImageFilter.GaussianBlur(0.6))


def main(argv: list[str] | None = None) -> int:
    """``python -m agrieval.baselines.plantclef._synthetic OUT.jpg [--size 1536x1024] [--seed 0]``: write a field quadrat."""
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("out")
    ap.add_argument("--size", default="1536x1024")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    with atomic_write(args.out, "wb", encoding=None) as fh:
        field_quadrat(w, h, args.seed).save(fh, format="JPEG", quality=92)
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
