"""Registered architectures: short key -> timm model name.

The short key names the run folder (``RUNS_DIR/<protocol>/<arch>/<fold>``);
the timm name (with its weight tag) says which file the pretrained weights
come from. Any other timm model name is accepted as its own key.
"""

from __future__ import annotations

from dataclasses import dataclass

from agrieval.baselines.ctv.errors import CTVError

# Imported inside functions, so that importing this module loads only what it needs: timm (heavy or optional).


@dataclass(frozen=True)
class ArchSpec:
    key: str
    timm_name: str
    note: str = ""


ARCHS: dict[str, ArchSpec] = {
    spec.key: spec
    for spec in (
        ArchSpec("densenet121", "densenet121.tv_in1k", "paper; torchvision ImageNet-1k weights"),
        ArchSpec("swin_tiny", "swin_tiny_patch4_window7_224.ms_in1k", "paper"),
        ArchSpec("swin_base", "swin_base_patch4_window7_224.ms_in22k_ft_in1k", "public training script"),
        # Tiny models for the demo, tests and CPU benchmarks (random init only).
        ArchSpec("tiny_cnn", "test_resnet", "demo/tests: timm's test ResNet (0.47M parameters)"),
        ArchSpec("tiny_vit", "test_vit", "demo/tests: timm's test ViT"),
    )
}


def _is_timm_model(name: str) -> bool:
    """Does timm know ``name``? (timm is imported only for a name the registry does not hold.)"""
    import timm

    return timm.is_model(name)


def resolve_arch(key: str) -> ArchSpec:
    """Return the spec of a registered key, or of a plain timm model name."""
    if key in ARCHS:
        return ARCHS[key]
    if _is_timm_model(key.split(".")[0]):
        safe = key.replace("/", "_")
        return ArchSpec(safe, key, "timm model name")
    raise CTVError("unknown_arch", f"unknown architecture {key!r}; registered: {', '.join(sorted(ARCHS))} "
                   "(any timm model name is accepted too, see timm.list_models())")
