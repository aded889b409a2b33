"""One vocabulary for architecture names, so that runs of the public AgrI
script and of agrieval's baselines of the same backbone land in one group.

The script's ``--architecture`` is ``densenet`` (torchvision densenet121) or
``swin`` (timm ``swin_base_patch4_window7_224``); agrieval's keys are
``densenet121``, ``swin_tiny``, ``swin_base`` (``agrieval.baselines.ctv._archs``), or a
timm model name. A timm name is mapped to its key with the weight tag dropped;
a name not listed here is kept as written.
"""

from __future__ import annotations

ALIASES: dict[str, str] = {
    "densenet": "densenet121",
    "densenet121": "densenet121",
    "swin": "swin_base",
    "swin_base": "swin_base",
    "swin_base_patch4_window7_224": "swin_base",
    "swin_tiny": "swin_tiny",
    "swin_tiny_patch4_window7_224": "swin_tiny",
}


def canonical_arch(name: str) -> str:
    """``densenet`` -> ``densenet121``, ``swin`` -> ``swin_base``, ``swin_tiny_patch4_window7_224.ms_in1k`` ->
    ``swin_tiny``; any other name as written."""
    text = name.strip()
    return ALIASES.get(text.lower(), ALIASES.get(text.lower().split(".")[0], text))
