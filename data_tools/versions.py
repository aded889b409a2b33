"""The versions of the libraries an output depends on, for the output to record.

A stage names the libraries whose code shaped its numbers (the catalog: Pillow's decoders and imagehash's
pHash; the resize: Pillow's resampling and JPEG encoder; training: torch, torchvision, timm...), and
only those importable in that environment are listed: a version is read from the installed
distribution's metadata (no import, so asking costs nothing), and a library that is not installed is
absent rather than recorded as a guess.
"""

from __future__ import annotations

import importlib.util
import platform
from importlib import metadata

# import name -> distribution name, for the libraries whose names differ
_DISTRIBUTION = {"PIL": "pillow", "Pillow": "pillow", "sklearn": "scikit-learn", "pillow_heif": "pillow-heif"}
_MODULE = {"Pillow": "PIL", "scikit-learn": "sklearn", "pillow-heif": "pillow_heif"}


def library_versions(names) -> dict[str, str]:
    """``{name: version}`` for each of ``names`` that is installed, plus ``python``."""
    out = {"python": platform.python_version()}
    for name in names:
        module = _MODULE.get(name, name)
        if importlib.util.find_spec(module) is None:
            continue
        try:
            out[name] = metadata.version(_DISTRIBUTION.get(name, name))
        except metadata.PackageNotFoundError:  # importable without metadata (a plain checkout): ask it
            out[name] = str(getattr(importlib.import_module(module), "__version__", "unknown"))
    return out
