"""The mixed-precision policy of a run (``--amp``): off, bf16 autocast, or fp16 autocast with a GradScaler.

One small object per policy, chosen from ``--amp`` and the device; the training step asks it for the
autocast context and the scaler and never looks at the flag. ``script`` is the public script's
USE_MIXED_PRECISION (S:149): fp16 with a GradScaler on CUDA of compute capability >= 7, off elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from agrieval.baselines.ctv.errors import CTVError


@dataclass(frozen=True)
class Precision:
    name: str                    # "none", "bf16", "fp16"
    dtype: torch.dtype | None    # the autocast dtype; None: full precision
    grad_scaler: bool            # fp16 scales the loss (torch.amp.GradScaler), as the script does


OFF = Precision("none", None, False)
BF16 = Precision("bf16", torch.bfloat16, False)
FP16 = Precision("fp16", torch.float16, True)


def precision_for(amp: str, device: torch.device) -> Precision:
    on_cuda = device.type == "cuda"
    if amp == "script":
        return FP16 if on_cuda and torch.cuda.get_device_capability(device)[0] >= 7 else OFF
    if amp == "fp16":
        if not on_cuda:
            raise CTVError("bad_option", "--amp fp16 needs CUDA (the script's fp16 path); use --amp none on CPU")
        return FP16
    return {"auto": BF16 if on_cuda else OFF, "bf16": BF16, "none": OFF}[amp]


def amp_dtype(amp: str, device: torch.device) -> torch.dtype | None:
    """The autocast dtype of ``--amp`` on this device (None: no autocast)."""
    return precision_for(amp, device).dtype
