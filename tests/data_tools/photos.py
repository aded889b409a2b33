"""Helpers of the data_tools tests: real photographs shipped inside scikit-image and
scikit-learn, made small, and small pool writers."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from PIL import Image


def _photos() -> dict[str, Image.Image]:
    from skimage import data as skdata
    from sklearn.datasets import load_sample_images

    arrays = {"astronaut": skdata.astronaut(), "coffee": skdata.coffee(), "chelsea": skdata.chelsea()}
    china, flower = load_sample_images().images
    arrays.update({"china": china, "flower": flower})
    out = {}
    for name, arr in arrays.items():
        img = Image.fromarray(arr).convert("RGB")
        img.thumbnail((200, 200), Image.Resampling.LANCZOS)  # small: the suite must stay fast
        out[name] = img
    return out


PHOTOS = _photos()


def jpeg_bytes(img: Image.Image, quality: int = 92, device: tuple[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    kw = {}
    if device is not None:
        exif = Image.Exif()
        exif[0x010F], exif[0x0110] = device
        kw["exif"] = exif.tobytes()
    img.save(buf, "JPEG", quality=quality, **kw)
    return buf.getvalue()


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def tree_digest(root: Path) -> str:
    """sha256 over every relative path, its bytes and its mtime: any change shows."""
    h = hashlib.sha256()
    for p in sorted(Path(root).rglob("*")):
        h.update(p.relative_to(root).as_posix().encode())
        if p.is_file():
            h.update(p.read_bytes())
            h.update(str(p.stat().st_mtime_ns).encode())
    return h.hexdigest()


def photo_variant(img: Image.Image, k: int) -> Image.Image:
    """A different-looking picture from one photo: crop offset and flip by ``k``."""
    w, h = img.size
    dx, dy = (k * 7) % (w // 4), (k * 5) % (h // 4)
    out = img.crop((dx, dy, dx + w * 3 // 4, dy + h * 3 // 4))
    if k % 2:
        out = out.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    if k % 3 == 2:
        out = out.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    return out


