"""``agrieval baselines``: subgroups resolved lazily so that ``--help`` does not import torch."""

from __future__ import annotations

import importlib

import click

_GROUPS = {
    "ctv": ("baselines.ctv.cli:ctv", "DenseNet121 / Swin cross-team validation runs (TOTO, LOTO)."),
    "plantclef": ("baselines.plantclef.cli:plantclef", "DINOv2 tiling predictor for PlantCLEF quadrats."),
}


class _Lazy(click.Group):
    def list_commands(self, ctx):
        return sorted(_GROUPS)

    def get_command(self, ctx, name):
        if name not in _GROUPS:
            return None
        module, attr = _GROUPS[name][0].split(":")
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx, formatter):
        with formatter.section("Commands"):
            formatter.write_dl([(n, _GROUPS[n][1]) for n in self.list_commands(ctx)])


@click.group(cls=_Lazy)
def baselines() -> None:
    """Baselines for the AgrI Challenge (CTV) and PlantCLEF."""
