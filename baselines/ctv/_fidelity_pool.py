"""A small pool of awkward images, generated deterministically, for the fidelity check against the script.

``scripts/fidelity/agri_script.py`` runs the public script's own code and the kit's ``official`` pipeline
on it; ``tests/baselines/ctv/test_agri_script_fidelity.py`` regenerates it and compares the kit against
the hashes the script gave. The images are smooth gradients with a little noise (a flat image would hide
resampling differences), in the sizes and formats that trip pipelines: 1-pixel and very thin images,
odd sizes on both sides of 256 (the script's resize), PNG with alpha, palette, grey and 16-bit PNGs,
BMP, TIFF, an upper-case ``.JPG``, a truncated JPEG and a file that is no image at all (the script
replaces both with black), and, outside the training pool, WebP, CMYK and EXIF-rotated JPEGs.

Every byte depends only on numpy's ``RandomState`` and Pillow's encoders, so a Pillow other than the one
that recorded the hashes may write other bytes; the test names the versions when it skips.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

# Imported inside functions, so that importing this module loads only what it needs: PIL (heavy or optional).

TEAMS = ("t1", "t2")
CLASSES = ("chene", "frene")
# (width, height, file name suffix, PIL mode it is saved in) per team and class, 5 files each
_SPECS = (
    (1, 1, ".png", "RGB"), (7, 300, ".jpg", "RGB"), (257, 255, ".png", "RGBA"), (333, 100, ".JPG", "RGB"),
    (64, 64, ".bmp", "RGB"), (255, 257, ".png", "P"), (500, 37, ".jpeg", "RGB"), (299, 300, ".png", "L"),
    (120, 91, ".tiff", "RGB"), (256, 256, ".png", "I;16"), (31, 17, ".jpg", "RGB"), (201, 199, ".png", "LA"),
    (3, 2, ".jpg", "RGB"), (400, 401, ".jpg", "RGB"), (90, 350, ".png", "RGBA"), (260, 33, ".bmp", "RGB"),
    (17, 411, ".jpg", "RGB"), (129, 127, ".tiff", "RGB"), (300, 200, ".jpg", "RGB"), (44, 45, ".png", "RGB"),
)
# files no decoder reads: the script (and --unreadable black) uses a black image instead
_BROKEN = {("t1", "chene", 1): "truncated", ("t2", "frene", 2): "not_an_image"}
EXTRA = ((150, 97, ".webp", "RGB"), (211, 140, ".jpg", "CMYK"), (160, 90, ".jpg", "EXIF6"))


def _pixels(rng: np.random.RandomState, w: int, h: int) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    base = [np.sin(x / max(w, 1) * rng.uniform(1, 6) + rng.uniform(0, 6))
            + np.cos(y / max(h, 1) * rng.uniform(1, 6) + rng.uniform(0, 6)) for _ in range(4)]
    img = np.stack(base, -1) * 60 + 128 + rng.normal(0, 12, (h, w, 4))
    return np.clip(img, 0, 255).astype(np.uint8)


def _save(arr: np.ndarray, path: Path, mode: str) -> None:
    from PIL import Image

    rgb, alpha = Image.fromarray(arr[..., :3]), Image.fromarray(arr[..., 3])
    fmt = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".bmp": "BMP", ".tiff": "TIFF",
           ".webp": "WEBP"}[path.suffix.lower()]
    if mode == "RGBA":
        im = rgb.copy()
        im.putalpha(alpha)
    elif mode == "LA":
        im = rgb.convert("L")
        im.putalpha(alpha)
    elif mode == "P":
        im = rgb.quantize(colors=37, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    elif mode == "L":
        im = rgb.convert("L")
    elif mode == "I;16":
        im = Image.frombytes("I;16", (arr.shape[1], arr.shape[0]), (arr[..., 0].astype("<u2") * 257).tobytes())
    elif mode == "CMYK":
        im = Image.frombytes("CMYK", (arr.shape[1], arr.shape[0]), np.ascontiguousarray(arr).tobytes())
    elif mode == "EXIF6":
        im = rgb
        exif = Image.Exif()
        exif[0x0112] = 6  # orientation: rotate 90 CW on display; the script (and the kit) ignore it
        im.save(path, fmt, quality=90, exif=exif.tobytes())
        return
    else:
        im = rgb
    kw = {"quality": 90} if fmt in ("JPEG", "WEBP") else {}
    if fmt == "WEBP":
        kw["method"] = 0
    im.save(path, fmt, **kw)


def make_pool(root: Path) -> dict[str, list[Path]]:
    """Write the pool under ``root``: ``root/pool/<team>/<class>/<file>`` (the script's data dir) and
    ``root/extra/<file>``; return ``{"pool": [...], "extra": [...]}`` in a fixed (sorted) order."""
    from PIL import Image

    rng = np.random.RandomState(2024)
    pool, extra = [], []
    k = 0
    for team in TEAMS:
        for cls in CLASSES:
            folder = root / "pool" / team / cls
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(5):
                w, h, suffix, mode = _SPECS[k % len(_SPECS)]
                k += 1
                path = folder / f"{team}_{cls}_{i}{suffix}"
                arr = _pixels(rng, w, h)
                broken = _BROKEN.get((team, cls, i))
                if broken == "truncated":
                    buf = io.BytesIO()
                    Image.fromarray(arr[..., :3]).save(buf, "JPEG", quality=90)
                    path = path.with_suffix(".jpg")
                    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
                elif broken == "not_an_image":
                    path = path.with_suffix(".png")
                    path.write_bytes(b"not an image\n" * 7)
                else:
                    _save(arr, path, mode)
                pool.append(path)
    (root / "extra").mkdir(parents=True, exist_ok=True)
    for j, (w, h, suffix, mode) in enumerate(EXTRA):
        path = root / "extra" / f"extra_{j}_{mode.lower()}{suffix}"
        _save(_pixels(rng, w, h), path, mode)
        extra.append(path)
    return {"pool": sorted(pool), "extra": extra}
