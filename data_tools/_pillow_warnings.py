"""Pillow's ``DecompressionBombWarning`` kept off stderr.

Pillow warns (a raw ``warnings`` line with its source line, from every worker process) when an image has
more than ``Image.MAX_IMAGE_PIXELS`` pixels, and raises past twice that. The data tools bound what they
decode themselves (``agrieval.data_tools.probe.DEFAULT_MAX_PIXELS``, ``--max-pixels``) and report a photo over
the cap in its catalog row (``image_unreadable``, naming the file and the cap); Pillow's error past twice its
limit still becomes a row. The warning says nothing a row does not, so it is silenced where the data tools open images (``install`` runs
when ``probe`` is imported, which ``catalog``, ``dedup`` and ``resize`` do, in each worker too).
"""

from __future__ import annotations

import warnings

# Imported inside functions, so that importing this module loads only what it needs: PIL (heavy or optional).


def install() -> None:
    from PIL import Image

    warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
