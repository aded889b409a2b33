"""One colour per architecture in every figure of a CTV report, keyed by the architecture's name.

A colour follows the name, never the order in which a figure meets it: swin_tiny is the same orange in
the TOTO bars, the LOTO bars and the VTG box plot, whether or not swin_base is in the report. The study's
backbones have fixed colours; any other name takes one of the remaining colours by a stable hash of its
name (two unknown names may share one, the legend names both). The splits (train, val, test) have
colours of their own, none of an architecture's, so a colour never means both.
"""

from __future__ import annotations

import hashlib

FIXED: dict[str, str] = {
    "densenet121": "#1f77b4",  # blue
    "swin_tiny": "#ff7f0e",    # orange
    "swin_base": "#2ca02c",    # green
    "tiny_cnn": "#9467bd",     # purple
}
OTHERS: tuple[str, ...] = ("#8c564b", "#e377c2", "#d62728", "#393b79", "#637939")  # brown, pink, red, navy, moss
SPLIT_COLOURS: dict[str, str] = {"train": "#7f7f7f", "val": "#bcbd22", "test": "#17becf"}  # grey, olive, cyan


def arch_colour(arch: str) -> str:
    if arch in FIXED:
        return FIXED[arch]
    return OTHERS[int(hashlib.sha256(arch.encode()).hexdigest()[:8], 16) % len(OTHERS)]
