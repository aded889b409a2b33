"""The versions of the libraries an output depends on, for the output to record.

A stage names the libraries whose code shaped its numbers (the catalog: Pillow's decoders and imagehash's
pHash; the resize: Pillow's resampling and JPEG encoder; training: torch, torchvision, timm...), and
only those importable in that environment are listed: a version is read from the installed
distribution's metadata (no import, so asking costs nothing) or, for a module already imported, from its
``__version__`` (which keeps build tags such as torch's ``+cu130``), and a library that is not installed
is absent rather than recorded as a guess.
"""

from __future__ import annotations

import importlib.util
import json
import platform
import sys
from importlib import metadata
from pathlib import Path

from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_json

# Imported inside functions, so that importing this module loads only what it needs: torch (heavy or optional).

# import name -> distribution name, for the libraries whose names differ
_DISTRIBUTION = {"PIL": "pillow", "Pillow": "pillow", "sklearn": "scikit-learn", "pillow_heif": "pillow-heif"}
_MODULE = {"Pillow": "PIL", "scikit-learn": "sklearn", "pillow-heif": "pillow_heif"}


def library_versions(names) -> dict[str, str]:
    """``{name: version}`` for each of ``names`` that is installed, plus ``python``."""
    out = {"python": platform.python_version()}
    for name in names:
        module = _MODULE.get(name, name)
        loaded = getattr(sys.modules.get(module), "__version__", None)
        if isinstance(loaded, str):  # imported already: its own word, build tag included (torch 2.14.1+cu130)
            out[name] = loaded
            continue
        if importlib.util.find_spec(module) is None:
            continue
        try:
            out[name] = metadata.version(_DISTRIBUTION.get(name, name))
        except metadata.PackageNotFoundError:  # importable without metadata (a plain checkout): ask it
            out[name] = str(getattr(importlib.import_module(module), "__version__", "unknown"))
    return out


# the libraries whose code shapes each stage's output
STAGE_LIBRARIES = {
    "catalog": ("Pillow", "pillow-heif", "imagehash", "numpy", "pandas"),  # decoding, pHash, the table
    "dedup": ("pandas", "numpy"),                                             # grouping and the keep order
    "resize": ("Pillow", "numpy", "pandas"),                                  # resampling, JPEG encoder
    "splits": ("pandas", "numpy"),                                            # the shuffles
}


def _cpu_identity() -> str:
    """The processor as float results depend on it: architecture, vendor and torch's vector capability
    ("x86_64 AuthenticAMD AVX512"). Training losses recorded on one such processor may round otherwise on
    another after the first optimiser step (convolution kernels), so golden losses name it."""
    try:
        import torch
    except ImportError:
        torch = None
    vendor = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            vendor = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("vendor_id")), "")
    except OSError:
        pass
    try:
        capability = torch.backends.cpu.get_cpu_capability() if torch is not None else ""
    except AttributeError:
        capability = ""
    return " ".join(part for part in (platform.machine(), vendor, capability) if part)


def sidecar(output) -> Path:
    """``catalog.csv`` -> ``catalog.csv.versions.json``: the versions a table was made with (a CSV or
    Parquet table has no place for them that every reader keeps)."""
    output = Path(output)
    return output.with_name(output.name + ".versions.json")


def write_versions(output, stage: str) -> dict[str, str]:
    versions = library_versions(STAGE_LIBRARIES[stage])
    write_text(sidecar(output), json.dumps({"stage": stage, "output": Path(output).name, "versions": versions},
                                           indent=2, sort_keys=True) + "\n")
    return versions


def read_versions(output) -> dict[str, str] | None:
    path = sidecar(output)
    if not path.is_file():
        return None
    try:  # (the one opening rule; a sidecar that is not one is no record of versions)
        data = read_json(path, max_bytes=16 << 20, what="versions sidecar")
    except (UntrustedFileError, FileNotFoundError):
        return None
    versions = data.get("versions") if isinstance(data, dict) else None
    return versions if isinstance(versions, dict) else None
