"""The PlantCLEF classifier: a timm DINOv2 ViT with a 7,806-way head.

Named presets (timm style: a preset is a name for a set of flags, not a fork):

================  ==============================  ========  =================================
preset            timm model                      img_size  extra kwargs
================  ==============================  ========  =================================
``plantclef2024``  vit_base_patch14_reg4_dinov2      518      (the organisers' checkpoint)
``tiny``           vit_base_patch14_reg4_dinov2       56      embed_dim=64, depth=2, num_heads=2
================  ==============================  ========  =================================

Weights come only from a local file (``model_best.pth.tar`` or ``.safetensors``),
read once through the opening rule (``read_checkpoint``: ``torch.load(weights_only=True)``
on the file ``open_regular`` opened) and loaded into ``timm.create_model(...)`` as timm's
``checkpoint_path`` would: ``state_dict_ema`` (or ``model_ema``) when the checkpoint has
one, else ``state_dict``, prefixes cleaned, strict. Nothing is fetched from a hub.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

import torch

from agrieval.baselines.plantclef.classes import DOWNLOAD_HINT
from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular

# Imported inside functions, so that importing this module loads only what it needs: safetensors, timm (heavy or optional).


@dataclass(frozen=True)
class ModelSpec:
    """Which model to build: its timm name, its input size and the keyword arguments it is built with."""

    name: str = "vit_base_patch14_reg4_dinov2"
    img_size: int = 518
    kwargs: dict = field(default_factory=dict)

    def describe(self) -> dict:
        return {"model": self.name, "img_size": self.img_size, "model_kwargs": dict(sorted(self.kwargs.items()))}


PRESETS: dict[str, ModelSpec] = {
    "plantclef2024": ModelSpec(),
    "tiny": ModelSpec(img_size=56, kwargs={"embed_dim": 64, "depth": 2, "num_heads": 2}),
}


class CheckpointError(RuntimeError):
    """The checkpoint is missing, unreadable or does not fit the model; the message says what to do."""


def parse_model_kwargs(items: tuple[str, ...] | list[str]) -> dict:
    """timm-style ``key=value`` pairs; values parsed as int, float, true/false, else kept as text."""
    out: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"model kwarg {item!r} is not key=value")
        v: object = value.strip()
        low = value.strip().lower()
        if low in ("true", "false"):
            v = low == "true"
        else:
            for cast in (int, float):
                try:
                    v = cast(value)
                    break
                except ValueError:
                    pass
        out[key.strip()] = v
    return out


def _weights_key(ckpt) -> str:
    """Which state dict of a loaded checkpoint holds the weights: 'state_dict_ema', 'model_ema', 'state_dict',
    'model' or '(flat)' (the EMA weights first, as timm's ``load_checkpoint`` takes them)."""
    if isinstance(ckpt, dict):
        for key in ("state_dict_ema", "model_ema", "state_dict", "model"):
            if ckpt.get(key) is not None:
                return key
    return "(flat)"


# The DINOv2 ViT-B checkpoint is 0.35 GB, a ViT-g one about 4.5 GB: this cap only stops a device or a runaway file.
MAX_CHECKPOINT_BYTES = 64 << 30


def _load_safetensors(data: bytes):
    """The tensors of a ``.safetensors`` file's bytes."""
    from safetensors.torch import load

    return load(data)


def _read_checkpoint(path: Path):
    """The checkpoint's contents, read once through the one opening rule (``scoring/runtime/untrusted.py``):
    a FIFO, a device or a folder is named as such, not waited on; torch and safetensors read the file that
    rule opened (``weights_only=True``: nothing in it runs), never the path again (timm is handed the weights,
    not the file)."""
    try:
        with open_regular(path, max_bytes=MAX_CHECKPOINT_BYTES, what="checkpoint") as fh:
            if path.suffix == ".safetensors":
                return _load_safetensors(fh.read())
            return _torch_load(fh)
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {path} not found: {DOWNLOAD_HINT}") from None
    except UntrustedFileError as exc:
        raise CheckpointError(f"checkpoint {path}: {exc.message}") from None


def _torch_load(fh):
    # timm's training script stores its argparse.Namespace next to the weights.
    with torch.serialization.safe_globals([argparse.Namespace]):
        return torch.load(fh, map_location="cpu", weights_only=True)


def build_model(spec: ModelSpec, num_classes: int, checkpoint: str | Path | None) -> tuple[torch.nn.Module, dict]:
    """Model in eval mode and a description (spec, checkpoint, which weights were used).

    ``checkpoint=None`` builds a random-init model (smoke checks, benchmarks, demo).
    """
    import timm
    from timm.models import clean_state_dict

    info = {**spec.describe(), "num_classes": num_classes, "checkpoint": None, "weights": "random-init"}
    kwargs = dict(spec.kwargs, img_size=spec.img_size, num_classes=num_classes)
    if checkpoint is None:
        model = timm.create_model(spec.name, pretrained=False, **kwargs)
        return model.eval(), info
    path = Path(checkpoint)
    if path.suffix not in (".safetensors",) and not path.name.endswith((".pth.tar", ".pth", ".pt", ".bin", ".tar")):
        raise CheckpointError(f"checkpoint {path}: expected a .pth.tar/.pth/.pt or .safetensors file")
    try:
        ckpt = _read_checkpoint(path)
        weights = _weights_key(ckpt)
        model = timm.create_model(spec.name, pretrained=False, **kwargs)
        # as timm's load_checkpoint does with the file: the chosen state dict, its DDP/compile prefixes removed
        model.load_state_dict(clean_state_dict(ckpt if weights == "(flat)" else ckpt[weights]), strict=True)
    except CheckpointError:
        raise
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        detail = "\n".join(str(exc).splitlines()[:6])
        raise CheckpointError(
            f"checkpoint {path} does not fit {spec.name} with {num_classes} classes at {spec.img_size} px "
            f"(kwargs {spec.kwargs or '{}'}): {first}\n{detail}\n"
            "check --model/--img-size/--model-kwargs and that the class mapping has one line per output") from None
    except Exception as exc:  # unpickling / safetensors header errors
        raise CheckpointError(f"checkpoint {path} cannot be read ({type(exc).__name__}: {exc})") from None
    info.update(checkpoint=str(path), weights=weights)
    return model.eval(), info


def normalisation(model: torch.nn.Module) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Mean and std the model was trained with (DINOv2: ImageNet's)."""
    cfg = getattr(model, "pretrained_cfg", None) or {}
    mean = tuple(cfg.get("mean", (0.485, 0.456, 0.406)))
    std = tuple(cfg.get("std", (0.229, 0.224, 0.225)))
    return mean, std
