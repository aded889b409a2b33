"""``agrieval baselines``: subgroups resolved lazily so that ``--help`` does not import torch."""

from __future__ import annotations

import click

from agrieval.scoring.cli.group import ContractGroup, epilog, lazy_import

_GROUPS = {
    "ctv": ("agrieval.baselines.ctv._cli:ctv", "DenseNet121 / Swin cross-team validation runs (TOTO, LOTO)."),
    "plantclef": ("agrieval.baselines.plantclef._cli:plantclef", "DINOv2 tiling predictor for PlantCLEF quadrats."),
}


class _Lazy(ContractGroup):
    def list_commands(self, ctx):
        return sorted(_GROUPS)

    def get_command(self, ctx, name):
        if name not in _GROUPS:
            return None
        return lazy_import(_GROUPS[name][0], f"agrieval baselines {name}")

    def summary(self, ctx, name):
        return _GROUPS[name][1]  # without importing torch


@click.group(cls=_Lazy, epilog=epilog("agrieval baselines plantclef demo --out plantclef-demo --quiet", "Exit codes: 0 done; 1 an input was rejected (a manifest, an image, a run folder made with other settings); 2 usage error (bad option, missing file or weights, a device that is not there); 3 host-side problem (missing 'baselines' extra, internal error)."))
def baselines() -> None:
    """Baselines for the AgrI Challenge (CTV) and PlantCLEF."""
