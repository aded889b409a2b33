"""Synthetic quadrats with planted species, for the demo, smoke check and benchmark.

A quadrat is a g x g grid of regions; region (row, col) is painted in the
colour of the species planted there (``PALETTE[class_index]``) with seeded
texture noise, and saved as JPEG (quality 95). The planted species of a
quadrat are the distinct classes of its regions.
"""

from __future__ import annotations

import colorsys
from pathlib import Path

import numpy as np
from PIL import Image

from scoring.runtime.atomic import atomic_write


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
