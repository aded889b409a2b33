"""Strict reading of the analysis commands' input files, below both ``ctv`` and ``leaderboard`` (and ``audit``):
per-team results, rankings, run folders' JSON and the submission log, each rejected with a coded
``InputError`` at ``file:line:column``.

Public (``__all__``, imported on first use): ``InputError`` (what every analysis reader raises on a bad input
file; its module ``input_error`` holds the code catalogue, ``CODES``).

Internal (may change without notice): ``csv_input`` (a small CSV table, one dict per data row with its line),
``json_input`` (a run tree's JSON, strictly and boundedly).
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["InputError"]

_HOME = {"InputError": "input_error"}

__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
