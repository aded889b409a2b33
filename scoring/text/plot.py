"""matplotlib text from untrusted names: drawn as written, never parsed.

A name such as ``$^^^$`` is mathtext to matplotlib (and an error at draw time, after the tables were
written); ``drawing()`` turns mathtext and TeX off for every text created and drawn inside it, and
keeps matplotlib's own warnings (a glyph missing from the font for a CJK or emoji name) off stderr.
``label`` makes a name one printable line (``agrieval.scoring.text.terminal``) of bounded length: a
100,000-character name would otherwise make a figure wider than Agg can draw. For the same reason a
figure that grows with the number of names (teams, submissions) is bounded (``inches``), and past
``MAX_TICK_LABELS`` names the ticks are left out (``set_ticks``): 1,500 teams in one predictions file
made a 121,000-pixel heatmap and a MemoryError.
"""

from __future__ import annotations

import contextlib
import warnings

from agrieval.scoring.text.terminal import one_line

# Imported inside functions, so that importing this module loads only what it needs: matplotlib (heavy or optional).

MAX_LABEL = 60  # characters of one name on a figure
MAX_INCHES = 24.0  # 2,640 px at 110 dpi: any figure stays a few tens of MB and draws in seconds
MAX_TICK_LABELS = 120


def label(value: object, limit: int = MAX_LABEL) -> str:
    s = one_line(value)
    s = s if len(s) <= limit else s[:limit - 1] + "…"
    # matplotlib hides a legend entry whose label starts with "_": a space in front keeps the name shown
    return " " + s[:limit - 1] if s.startswith("_") else s


def inches(size: float) -> float:
    return min(float(size), MAX_INCHES)


def set_ticks(set_axis_ticks, positions, names, **kwargs) -> None:
    """``ax.set_xticks``/``set_yticks`` with each name as a label; no ticks at all past ``MAX_TICK_LABELS``
    names (a thousand unlabelled ticks cost matplotlib seconds)."""
    names = list(names)
    if len(names) <= MAX_TICK_LABELS:
        set_axis_ticks(list(positions), [label(n) for n in names], **kwargs)
    else:
        set_axis_ticks([])


@contextlib.contextmanager
def drawing():
    """Mathtext and usetex off, matplotlib's warnings silenced, for the figures made and saved inside."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}), warnings.catch_warnings():
        # matplotlib attributes its warnings to the caller's module (warn_external): silence them by category
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
