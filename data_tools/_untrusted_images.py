"""The opening rule for images someone else made: a decompression bomb is an unreadable image, by name.

Pillow warns with ``DecompressionBombWarning`` past ``Image.MAX_IMAGE_PIXELS`` pixels and raises
``DecompressionBombError`` past twice that. Neither is an ``OSError``, so a caller's ``except OSError`` would
let it through, and a CTV run would stop as ``internal_error`` naming no file. ``open_image`` opens, checks
and decodes under one rule: the warning counts as the error, and every decoder failure is an
``ImageUnreadable`` (code ``image_unreadable``) that names the file.

The file itself is opened by the one opening rule (``scoring/runtime/untrusted.open_regular``) and Pillow reads
the file object it returns, never the path: a FIFO cannot hang the open, a device or a folder is refused, and a
file larger than ``MAX_IMAGE_BYTES`` is refused unread, each as ``image_unreadable`` naming the file and the
rule's own code. The data tools bound what they decode themselves (``own_pixel_cap=True``: the catalog's and
the resize's ``--max-pixels``, a larger JPEG decoded reduced): Pillow's warning is then not the cap, the
caller's ``TooManyPixels`` raised from ``use`` before anything loads is, and becomes ``image_unreadable`` too.
"""

from __future__ import annotations

import os
import warnings
from typing import Callable, TypeVar

from agrieval.scoring.runtime.coded_error import CodedError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular

# Imported inside functions, so that importing this module loads only what it needs: PIL (heavy or optional).

__all__ = ["ImageUnreadable", "TooManyPixels", "decode_image", "MAX_IMAGE_BYTES"]

T = TypeVar("T")

# An uncompressed 8-bit RGB TIFF at Pillow's bomb limit (89 Mpixel) is 268 MB; a 200 Mpixel phone JPEG is under
# 100 MB. A larger file is not a photo the kit can decode anyway.
MAX_IMAGE_BYTES = 512 << 20


class ImageUnreadable(CodedError):
    """An image that cannot be decoded, or that would decode to more pixels than Pillow's bomb limit."""

    exit_code = 1

    def __init__(self, path, message: str):
        super().__init__("image_unreadable", message, file=path)


class TooManyPixels(Exception):
    """Raised by a caller's own pixel cap (``own_pixel_cap``) from ``use``, on the header, before anything is
    decoded: ``decode_image`` refuses the image as ``image_unreadable``."""


def decode_image(path, use: Callable[["object"], T], *, own_pixel_cap: bool = False,
                 max_bytes: int = MAX_IMAGE_BYTES) -> T:
    """``use(image)`` on the image at ``path``: the file opened by the opening rule (at most ``max_bytes``),
    then by Pillow with its decompression-bomb warning as an error (``own_pixel_cap``: the caller bounds the
    decode itself and raises ``TooManyPixels``; Pillow's error past twice its limit still refuses); any
    failure to open or decode is ``ImageUnreadable`` naming ``path``."""
    from PIL import Image

    name = os.fspath(path)
    try:
        fh = open_regular(name, max_bytes=max_bytes, what="image")
    except UntrustedFileError as exc:
        raise ImageUnreadable(name, f"{name}: {exc.message} ({exc.code})") from None
    except OSError as exc:  # missing, or a link loop
        raise ImageUnreadable(name, f"{name}: cannot open ({type(exc).__name__}: {exc})") from None
    try:
        with fh, warnings.catch_warnings():
            warnings.simplefilter("ignore" if own_pixel_cap else "error", Image.DecompressionBombWarning)
            with Image.open(fh) as im:
                return use(im)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise ImageUnreadable(name, f"{name}: refused as a decompression bomb ({exc})") from None
    except TooManyPixels as exc:
        raise ImageUnreadable(name, f"{name}: refused before decoding: {exc}") from None
    except (OSError, SyntaxError, ValueError) as exc:  # (Pillow raises SyntaxError for some broken headers)
        raise ImageUnreadable(name, f"{name}: cannot decode ({type(exc).__name__}: {exc})") from exc
