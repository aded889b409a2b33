"""Fixtures: a colour-prototype stub classifier (planted-species tests) and a tiny
random-init ViT of the DINOv2 family with a checkpoint written by the test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agrieval.baselines.plantclef._synthetic import palette

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


class ColourStub(torch.nn.Module):
    """Logit of class c = -scale * ||mean colour of the tile - PALETTE[c]||^2 (normalised space):
    a tile painted in one planted species' colour gets that species with p ~ 1."""

    def __init__(self, n_classes: int, scale: float = 20.0):
        super().__init__()
        proto = (palette(n_classes).astype(np.float32) / 255.0 - np.asarray(MEAN)) / np.asarray(STD)
        self.register_buffer("proto", torch.tensor(proto, dtype=torch.float32))
        self.scale = scale
        self.num_classes = n_classes
        self.pretrained_cfg = {"mean": MEAN, "std": STD}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        colour = x.float().mean(dim=(2, 3))
        return -self.scale * torch.cdist(colour, self.proto).pow(2)


@pytest.fixture(scope="session")
def colour_stub():
    return ColourStub


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> tuple[Path, dict]:
    """A tiny-preset checkpoint in timm's training layout: state_dict, an EMA copy that differs, args."""
    import argparse

    from agrieval.baselines.plantclef.model import PRESETS, build_model

    torch.manual_seed(0)
    model, _ = build_model(PRESETS["tiny"], 5, None)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    ema = {k: (v + 0.5 if v.is_floating_point() else v.clone()) for k, v in state.items()}
    path = tmp_path_factory.mktemp("ckpt") / "model_best.pth.tar"
    torch.save({"epoch": 3, "arch": "vit_base_patch14_reg4_dinov2", "state_dict": state, "state_dict_ema": ema,
                "args": argparse.Namespace(lr=1e-4)}, path)
    return path, {"state_dict": state, "state_dict_ema": ema}
