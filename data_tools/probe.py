"""Everything the catalog records about one image file, read in one open.

pHash (exact mode) is ``str(imagehash.phash(Image.open(path)))``, bit for bit:
the image is converted to L and Lanczos-resized to 32x32 *as stored*, with no
EXIF transpose, because that is what the study grouped on.

Fast mode asks libjpeg for a reduced decode first (``Image.draft``, DCT
scaling by 1/2, 1/4 or 1/8, keeping at least ``FAST_MIN_SIDE`` pixels per
side), then hashes that: the 32x32 thumbnail is nearly the same, a few bits
may flip. Non-JPEG files are hashed exactly in both modes.

Decoded pixels are bounded per worker (``max_pixels``, default
``DEFAULT_MAX_PIXELS``), so ``--workers`` times the largest photo cannot
exceed memory: a larger JPEG is decoded reduced (``Image.draft``, the
smallest DCT scale 1/2, 1/4 or 1/8 that fits; its row says
``phash_mode=reduced``), any other format larger than the cap is an
unreadable row (``image_unreadable``) whose error names the file and the cap.
Every file is opened by the image rule (``untrusted_images.decode_image``: the
opening rule's checks, then Pillow on the file object it opened). A decoded pixel costs about 5.3
bytes at the peak of hashing (254 MB for 48 MP, RGB plus the L copy).
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass

import imagehash
from PIL import Image

from agrieval.data_tools import _pillow_warnings as pillow_warnings
from agrieval.data_tools._heif import HEIF_ERROR, HEIF_SUFFIXES
from agrieval.data_tools._untrusted_images import ImageUnreadable, TooManyPixels, decode_image

pillow_warnings.install()  # our own pixel cap reports large photos in their rows (resize imports this too)

_FAST_MIN_SIDE = 256
DEFAULT_MAX_PIXELS = 64_000_000  # a 64 MP photo: about 340 MB per worker while hashing
EXIF_MAKE, EXIF_MODEL = 0x010F, 0x0110


@dataclass
class ProbeResult:
    """What probing one image found: its format, size, perceptual hash, and whether it could be read (else the
    error)."""

    format: str
    width: int
    height: int
    device: str
    phash: str
    readable: bool
    error: str
    phash_mode: str = ""  # "reduced" when the pixel cap reduced the decode; "" otherwise


def _tag_text(value) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value).replace("\x00", " ").strip() if value is not None else ""


def _read_device(img: Image.Image) -> str:
    """``"{make} {model}"`` from EXIF, stripped; ``"unknown"`` when both are absent."""
    try:
        exif = img.getexif()
    except Exception:  # corrupt EXIF must not make the image unreadable
        return "unknown"
    device = f"{_tag_text(exif.get(EXIF_MAKE))} {_tag_text(exif.get(EXIF_MODEL))}".strip()
    return device or "unknown"


def bound_pixels(img: Image.Image, max_pixels: int) -> bool:
    """Make ``img`` decode to at most ``max_pixels`` (before ``load``); True when it was reduced.

    JPEG: ``draft`` at the smallest power-of-two scale that fits (libjpeg decodes
    it directly, the full image never exists in memory). Other formats cannot
    decode partially: ``TooManyPixels``.
    """
    w, h = img.size
    if w * h <= max_pixels:
        return False
    if img.format == "JPEG":
        for k in (2, 4, 8):
            if -(-w // k) * -(-h // k) <= max_pixels:
                img.draft(img.mode, (-(-w // k), -(-h // k)))
                if img.size[0] * img.size[1] <= max_pixels:
                    return True
                break
    raise TooManyPixels(f"{w}x{h} = {w * h} pixels is above the cap of {max_pixels} decoded pixels per "
                        "worker; raise --max-pixels (about 5.3 bytes per pixel per worker) or shrink the file")


def _bound_decode(img: Image.Image, *, fast: bool, max_pixels: int = DEFAULT_MAX_PIXELS) -> bool:
    """Set up the decode of ``img`` before anything loads it: ``fast`` draft for JPEGs, then the pixel cap.

    Returns whether the cap reduced it. Must come before ``read_device``: reading a PNG's EXIF decodes it.
    """
    if fast and img.format == "JPEG":
        img.draft(img.mode, (_FAST_MIN_SIDE, _FAST_MIN_SIDE))
    return bound_pixels(img, max_pixels)


def _hash_image(img: Image.Image, *, fast: bool, max_pixels: int = DEFAULT_MAX_PIXELS) -> tuple[str, bool]:
    """pHash as 16 hex digits, and whether the pixel cap reduced the decode (``bound_decode``)."""
    reduced = _bound_decode(img, fast=fast, max_pixels=max_pixels)
    return str(imagehash.phash(img)), reduced


def probe_file(path: str, fast: bool = False, max_pixels: int = DEFAULT_MAX_PIXELS) -> ProbeResult:
    """Open ``path`` once: format, size, device and pHash, or the error that stopped us.

    ``phash_mode`` of the row is the run's, or ``reduced`` when the pixel cap
    made us hash a reduced decode (``bound_pixels``).
    """
    fmt = os.path.splitext(path)[1].lstrip(".").upper()
    width = height = 0
    device = "unknown"
    try:
        info = os.stat(path)  # a FIFO or a device (size 0 too) goes on to the image rule, which names it
        if stat.S_ISREG(info.st_mode) and info.st_size == 0:
            return ProbeResult(fmt, 0, 0, device, "", False, "empty file (0 bytes)")
        if HEIF_ERROR and os.path.splitext(path)[1].lower() in HEIF_SUFFIXES:
            return ProbeResult(fmt, 0, 0, device, "", False, HEIF_ERROR)
        def probe(img: Image.Image) -> tuple:
            nonlocal fmt, width, height, device
            fmt = img.format or fmt
            width, height = img.size
            reduced = _bound_decode(img, fast=fast, max_pixels=max_pixels)
            device = _read_device(img)
            return str(imagehash.phash(img)), reduced

        digest, reduced = decode_image(path, probe, own_pixel_cap=True)  # the image rule: opened capped
        return ProbeResult(fmt, width, height, device, digest, True, "", "reduced" if reduced else "")
    except ImageUnreadable as exc:  # a bomb, a FIFO or device, a file past the cap: refused, named, never decoded
        return ProbeResult(fmt, width, height, device, "", False, f"{exc.code}: {exc.message}")
    except Exception as exc:  # noqa: BLE001 - any decoder failure becomes a row, never a crash
        message = str(exc) or "unreadable"
        return ProbeResult(fmt, width, height, device, "", False, f"{type(exc).__name__}: {message}")



def probe_task(task: tuple) -> dict:
    """Pool entry point: ``(path, fast[, max_pixels])`` -> the result as a dict."""
    return asdict(probe_file(*task))


def exact_hash_task(task) -> str:
    """Pool entry point for the fast-mode agreement check: ``path`` or ``(path, max_pixels)``."""
    path, max_pixels = (task, DEFAULT_MAX_PIXELS) if isinstance(task, str) else task
    return decode_image(path, lambda img: _hash_image(img, fast=False, max_pixels=max_pixels)[0], own_pixel_cap=True)
