"""matplotlib text from untrusted names: drawn as written, never parsed.

A name such as ``$^^^$`` is mathtext to matplotlib (and an error at draw time, after the tables were
written); ``drawing()`` turns mathtext and TeX off for every text created and drawn inside it, and
keeps matplotlib's own warnings (a glyph missing from the font for a CJK or emoji name) off stderr.
``label`` makes a name one printable line (``scoring.text.terminal``) of bounded length: a
100,000-character name would otherwise make a figure wider than Agg can draw.
"""

from __future__ import annotations

import contextlib
import warnings

from scoring.text.terminal import one_line

MAX_LABEL = 60  # characters of one name on a figure


def label(value: object, limit: int = MAX_LABEL) -> str:
    s = one_line(value)
    s = s if len(s) <= limit else s[:limit - 1] + "…"
    # matplotlib hides a legend entry whose label starts with "_": a space in front keeps the name shown
    return " " + s[:limit - 1] if s.startswith("_") else s


@contextlib.contextmanager
def drawing():
    """Mathtext and usetex off, matplotlib's warnings silenced, for the figures made and saved inside."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}), warnings.catch_warnings():
        # matplotlib attributes its warnings to the caller's module (warn_external): silence them by category
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
