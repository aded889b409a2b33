"""Strict reading of the analysis commands' input files, below ``ctv``, ``leaderboard`` and ``audit``:
per-team results, rankings, run folders' JSON and the submission log, each rejected with a coded
``InputError`` at ``file:line:column``.
"""

from __future__ import annotations

from agrieval.scoring.analysis_input.input_error import InputError

__all__ = ["InputError"]
