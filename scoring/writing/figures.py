"""Writing a matplotlib figure as a paper takes it: PNG, SVG or PDF at a chosen resolution.

Shared by the leaderboard charts and the CTV figures. The same data give the same bytes in every format
(no date, no software version in PNG, fixed SVG ids), and the file is written to a temporary name and
renamed (``atomic.write_bytes``). matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from agrieval.scoring.runtime.atomic import write_bytes

FORMATS = ("png", "svg", "pdf")
DEFAULT_DPI = 110  # screen and report size; a journal asks for 300 (--dpi 300) or a vector format

# what each backend would otherwise stamp into the file and change from run to run
_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
             "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None}}


@dataclass(frozen=True)
class FigureFormat:
    """The file format of the figures (``png``, ``svg``, ``pdf``) and the resolution of PNGs and of the
    raster parts of vector files (dots per inch)."""
    format: str = "png"
    dpi: int = DEFAULT_DPI

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"figure format {self.format!r} is not one of {', '.join(FORMATS)}")
        if not 20 <= self.dpi <= 2400:
            raise ValueError(f"--dpi {self.dpi} is outside 20-2400")

    def name(self, stem: str) -> str:
        """The file name of figure ``stem`` (``plots/vtg_distribution`` -> ``plots/vtg_distribution.svg``)."""
        return f"{stem}.{self.format}"


def pyplot():
    """pyplot on the Agg backend (no display needed)."""
    import matplotlib.pyplot as plt

    plt.switch_backend("Agg")  # no display needed
    return plt


def save(fig, path: Path, fmt: FigureFormat | None = None) -> Path:
    """Write ``fig`` to ``path`` in ``fmt`` (PNG at the default DPI when None) and close it."""
    import matplotlib

    fmt = fmt or FigureFormat()
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "agrieval", "svg.fonttype": "path", "pdf.fonttype": 42}):
        fig.savefig(buf, format=fmt.format, dpi=fmt.dpi, bbox_inches="tight", metadata=_METADATA[fmt.format])
    pyplot().close(fig)
    write_bytes(path, buf.getvalue())
    return path
