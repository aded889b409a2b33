"""HEIC/HEIF support through pillow-heif, registered with PIL on import.

Imported by every module that opens images (also inside worker processes).
Without pillow-heif, ``HEIF_ERROR`` says what to install and HEIC files become
unreadable rows instead of a crash.
"""

from __future__ import annotations

HEIF_SUFFIXES = frozenset({".heic", ".heif", ".hif"})

try:
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF_ERROR = ""
except ImportError:  # pragma: no cover - pillow-heif is in the 'data' extra
    HEIF_ERROR = "HEIC/HEIF needs the Python package pillow-heif (pip install pillow-heif)"
