"""Everything the catalog records about one image file, read in one open.

pHash (exact mode) is ``str(imagehash.phash(Image.open(path)))``, bit for bit:
the image is converted to L and Lanczos-resized to 32x32 *as stored*, with no
EXIF transpose, because that is what the study grouped on.

Fast mode asks libjpeg for a reduced decode first (``Image.draft``, DCT
scaling by 1/2, 1/4 or 1/8, keeping at least ``FAST_MIN_SIDE`` pixels per
side), then hashes that: the 32x32 thumbnail is nearly the same, a few bits
may flip. Non-JPEG files are hashed exactly in both modes.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

import imagehash
from PIL import Image

from data_tools.heif import HEIF_ERROR, HEIF_SUFFIXES

FAST_MIN_SIDE = 256
EXIF_MAKE, EXIF_MODEL = 0x010F, 0x0110


@dataclass
class ProbeResult:
    format: str
    width: int
    height: int
    device: str
    phash: str
    readable: bool
    error: str


def _tag_text(value) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value).replace("\x00", " ").strip() if value is not None else ""


def read_device(img: Image.Image) -> str:
    """``"{make} {model}"`` from EXIF, stripped; ``"unknown"`` when both are absent."""
    try:
        exif = img.getexif()
    except Exception:  # corrupt EXIF must not make the image unreadable
        return "unknown"
    device = f"{_tag_text(exif.get(EXIF_MAKE))} {_tag_text(exif.get(EXIF_MODEL))}".strip()
    return device or "unknown"


def hash_image(img: Image.Image, *, fast: bool) -> str:
    """pHash as 16 hex digits; ``fast`` draft-decodes JPEGs (changes ``img``)."""
    if fast and img.format == "JPEG":
        img.draft(img.mode, (FAST_MIN_SIDE, FAST_MIN_SIDE))
    return str(imagehash.phash(img))


def probe_file(path: str, fast: bool = False) -> ProbeResult:
    """Open ``path`` once: format, size, device and pHash, or the error that stopped us."""
    fmt = os.path.splitext(path)[1].lstrip(".").upper()
    width = height = 0
    device = "unknown"
    try:
        if os.path.getsize(path) == 0:
            return ProbeResult(fmt, 0, 0, device, "", False, "empty file (0 bytes)")
        if HEIF_ERROR and os.path.splitext(path)[1].lower() in HEIF_SUFFIXES:
            return ProbeResult(fmt, 0, 0, device, "", False, HEIF_ERROR)
        with Image.open(path) as img:
            fmt = img.format or fmt
            width, height = img.size
            device = read_device(img)
            digest = hash_image(img, fast=fast)
        return ProbeResult(fmt, width, height, device, digest, True, "")
    except Exception as exc:  # noqa: BLE001 - any decoder failure becomes a row, never a crash
        message = str(exc) or "unreadable"
        return ProbeResult(fmt, width, height, device, "", False, f"{type(exc).__name__}: {message}")


def probe_task(task: tuple[str, bool]) -> dict:
    """Pool entry point: ``(path, fast)`` -> the result as a dict."""
    return asdict(probe_file(*task))


def exact_hash_task(path: str) -> str:
    """Pool entry point for the fast-mode agreement check."""
    with Image.open(path) as img:
        return str(imagehash.phash(img))
