"""Leaderboards: score a folder of submissions, bootstrap intervals, paired tests against the leader,
public/private rank agreement, tables and charts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.scoring.leaderboard import rank_agreement
    from agrieval.scoring.leaderboard.build import Entry, Leaderboard, build_leaderboard, list_submissions
    from agrieval.scoring.leaderboard.outputs import write_outputs
    from agrieval.scoring.leaderboard.paired_test import paired_vs_leader
    from agrieval.scoring.leaderboard.plots import rank_chart, scores_chart
    from agrieval.scoring.leaderboard.rows import metric_from_rows, row_frame

__all__ = ["build_leaderboard", "list_submissions", "Leaderboard", "Entry", "write_outputs", "row_frame",
           "metric_from_rows", "paired_vs_leader", "scores_chart", "rank_chart", "rank_agreement"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
