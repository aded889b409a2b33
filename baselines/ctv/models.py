"""timm backbone + classification head.

The backbone is built with ``num_classes=0`` (pooled features); the head is
ours, so both presets share one code path and one state-dict layout:

* ``linear`` (paper):   Dropout(p) -> Linear(F, C)
* ``mlp`` (public script): Dropout(p) -> Linear(F, 512) -> ReLU -> BatchNorm1d(512) -> Dropout(p) -> Linear(512, C)

Pretrained weights come only from a local file, through timm's
``pretrained_cfg_overlay=dict(file=...)``; timm drops the 1000-class
classifier of the file because the backbone has none.
"""

from __future__ import annotations

import logging
from pathlib import Path

import torch
from torch import nn

from agrieval.baselines.ctv._archs import ArchSpec, resolve_arch
from agrieval.baselines.ctv.errors import CTVError

# Imported inside functions, so that importing this module loads only what it needs: timm (heavy or optional).


class _Classifier(nn.Module):
    def __init__(self, backbone: nn.Module, head: nn.Module):
        super().__init__()
        self.backbone = backbone
        self.head = head

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def _make_head(kind: str, in_features: int, num_classes: int, dropout: float, hidden: int = 512) -> nn.Module:
    if kind == "linear":
        return nn.Sequential(nn.Dropout(dropout), nn.Linear(in_features, num_classes))
    if kind == "mlp":
        return nn.Sequential(nn.Dropout(dropout), nn.Linear(in_features, hidden), nn.ReLU(inplace=True),
                             nn.BatchNorm1d(hidden), nn.Dropout(dropout), nn.Linear(hidden, num_classes))
    raise CTVError("bad_option", f"unknown head {kind!r}; choose linear or mlp")


def weights_hint(spec: ArchSpec) -> str:
    """Where to get the weights file of an arch, for the missing-weights message."""
    from timm.models import get_pretrained_cfg

    cfg = get_pretrained_cfg(spec.timm_name)
    if cfg is None:
        return f"timm has no pretrained weights registered for {spec.timm_name}"
    hub = cfg.hf_hub_id or ""
    url = f"https://huggingface.co/{hub}/resolve/main/model.safetensors" if hub else cfg.url
    return f"fetch {url} and save it as <weights-dir>/{spec.timm_name}.safetensors"


def find_weights(spec: ArchSpec, weights: str | None, weights_dir: str | None) -> str | None:
    if weights:
        return weights
    if weights_dir:
        for ext in (".safetensors", ".pth", ".bin"):
            for stem in (spec.timm_name, spec.key):
                p = Path(weights_dir) / f"{stem}{ext}"
                if p.is_file():
                    return str(p)
    return None


def build_model(arch: str, num_classes: int, *, head: str = "linear", head_dropout: float = 0.3,
                head_hidden: int = 512, pretrained: bool = False, weights: str | None = None,
                allow_download: bool = False, img_size: int | None = None, script_init: bool = False) -> _Classifier:
    """Build backbone + head. ``pretrained`` needs ``weights`` (a local file) or ``allow_download``.

    ``script_init``: draw the random init as the script does. Its densenet is torchvision's
    ``densenet121()``, which builds (and initialises) the 1000-class classifier before the head replaces
    it; timm's densenet121 with 1000 classes draws the same numbers (tested bit for bit), so the backbone
    is built with its classifier, which is then dropped. timm models other than densenet121 are built with
    ``num_classes=0`` by the script too (its swin).
    """
    import timm

    spec = resolve_arch(arch)
    with_classifier = script_init and spec.timm_name.split(".")[0] == "densenet121"
    kwargs: dict = {"num_classes": 1000 if with_classifier else 0}
    if img_size is not None and _fixed_input(spec) and img_size != 224:
        kwargs["img_size"] = img_size
    if pretrained:
        if weights:
            if not Path(weights).is_file():
                raise CTVError("weights_missing", f"{weights}: no such weights file; {weights_hint(spec)}")
            kwargs["pretrained_cfg_overlay"] = dict(file=str(weights))
        elif not allow_download:
            raise CTVError("weights_missing",
                           f"{spec.key} starts from ImageNet weights ({spec.timm_name}) but no local file was "
                           f"given: {weights_hint(spec)}, then pass --weights PATH or --weights-dir DIR; "
                           "or use --no-pretrained (random init) or --allow-download (hub)")
    try:
        with _LoadReport() as report:
            backbone = timm.create_model(spec.timm_name, pretrained=pretrained, **kwargs)
    except (RuntimeError, KeyError, ValueError, OSError) as exc:
        if pretrained and weights:
            raise CTVError("weights_invalid", f"{weights}: cannot be loaded into {spec.timm_name} ({exc})") from exc
        raise
    if pretrained and report.missing:
        # timm loads non-strictly once it drops the 1000-class classifier; a foreign file would
        # then leave the backbone silently at random init.
        raise CTVError("weights_invalid", f"{weights or spec.timm_name}: not weights of {spec.timm_name}; "
                       f"backbone tensors missing from the file: {report.missing[:200]}")
    if with_classifier:
        backbone.reset_classifier(0)
    return _Classifier(backbone, _make_head(head, backbone.num_features, num_classes, head_dropout, head_hidden))


class _LoadReport(logging.Handler):
    """Collect timm's 'Missing keys (...)' message while a model loads its weights."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.missing = ""
        self._logger = logging.getLogger("timm.models._builder")

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if msg.startswith("Missing keys"):
            self.missing = msg[len("Missing keys ("):].split(")")[0]

    def __enter__(self):
        self._level = self._logger.level
        self._logger.setLevel(logging.INFO)
        self._logger.addHandler(self)
        return self

    def __exit__(self, *exc):
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)


def _fixed_input(spec: ArchSpec) -> bool:
    from timm.models import get_pretrained_cfg

    cfg = get_pretrained_cfg(spec.timm_name)
    return bool(cfg and cfg.fixed_input_size)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
