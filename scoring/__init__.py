"""agrieval's scoring core: competition definitions, strict submission reading,
metrics, score reports, leaderboards, ranking statistics and grading hooks.

This package imports only numpy, pandas, pydantic and click at module level so
that ``agrieval score`` starts fast; scipy and matplotlib are imported inside
the functions that need them. It never imports ``data_tools`` or ``baselines``.
"""

__version__ = "0.1.0"
