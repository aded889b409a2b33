"""The opening rule for images someone else made: a decompression bomb is an unreadable image, by name.

Pillow warns (``DecompressionBombWarning``) past ``Image.MAX_IMAGE_PIXELS`` pixels and raises
(``DecompressionBombError``, not an ``OSError``) past twice that; either used to escape the callers'
``except OSError`` and stop a CTV run as ``internal_error`` naming no file. ``open_image`` opens, checks
and decodes under one rule: the warning counts as the error, and every decoder failure is an
``ImageUnreadable`` (code ``image_unreadable``) that names the file. The data tools' catalog bounds what
it decodes itself (``probe.DEFAULT_MAX_PIXELS``) and reports such a photo in its row instead.
"""

from __future__ import annotations

import os
import warnings
from typing import Callable, TypeVar

from agrieval.scoring.runtime.coded_error import CodedError

__all__ = ["ImageUnreadable", "decode_image"]

T = TypeVar("T")


class ImageUnreadable(CodedError):
    """An image that cannot be decoded, or that would decode to more pixels than Pillow's bomb limit."""

    exit_code = 1

    def __init__(self, path, message: str):
        super().__init__("image_unreadable", message, file=path)


def decode_image(path, use: Callable[["object"], T]) -> T:
    """``use(image)`` on the image at ``path``, opened by Pillow with its decompression-bomb warning as an
    error; any failure to open or decode is ``ImageUnreadable`` naming ``path``."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                return use(im)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise ImageUnreadable(os.fspath(path), f"{os.fspath(path)}: refused as a decompression bomb ({exc})") \
            from None
    except (OSError, SyntaxError, ValueError) as exc:  # (Pillow raises SyntaxError for some broken headers)
        raise ImageUnreadable(os.fspath(path), f"{os.fspath(path)}: cannot decode ({exc})") from exc
