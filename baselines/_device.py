"""``--device`` of both baselines: one resolution and one message for every way a device can be missing."""

from __future__ import annotations

import sys

import torch

CHOICES = "auto, cpu, cuda, cuda:N"


class DeviceError(ValueError):
    """The asked-for device does not exist here (a usage error: exit 2)."""


def resolve_device(name: str, local_rank: int | None = None) -> torch.device:
    """``auto`` (CUDA when torch sees it, else CPU), ``cpu``, ``cuda`` or ``cuda:N``; anything else fails.

    ``local_rank`` (torchrun) picks the process's own GPU for ``auto`` and ``cuda``.
    """
    text = (name or "auto").strip().lower()
    if text == "auto":
        text = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        dev = torch.device(text)
    except (RuntimeError, ValueError):
        raise DeviceError(f"--device {name!r} is not a device name; choose {CHOICES}") from None
    if dev.type == "cpu":
        return dev
    if dev.type != "cuda":
        raise DeviceError(f"--device {name!r}: this baseline runs on {CHOICES}")
    if not torch.cuda.is_available():
        built = "torch was built without CUDA" if torch.version.cuda is None else "torch sees no CUDA device"
        raise DeviceError(f"--device {name!r} asked for a GPU but {built}; use --device cpu (or auto)")
    index = dev.index if dev.index is not None else (local_rank or 0)
    count = torch.cuda.device_count()
    if index >= count:
        raise DeviceError(f"--device {name!r}: there is no GPU {index} (torch sees {count}: "
                          f"{', '.join(f'cuda:{i}' for i in range(count))})")
    return torch.device("cuda", index)


def device_or_exit(name: str) -> torch.device:
    """``resolve_device`` for the scripts outside the ``agrieval`` command (smoke checks, benchmarks): a missing
    device is the same one line and exit 2 as in the commands, never a traceback."""
    try:
        return resolve_device(name)
    except DeviceError as exc:
        print(f"error [device_unavailable] {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
