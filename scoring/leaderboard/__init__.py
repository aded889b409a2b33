"""Leaderboards: score a folder of submissions, bootstrap intervals, paired
tests against the leader, public/private rank agreement, tables and charts.

``bootstrap`` resamples sampling units (transects, teams or rows),
``paired_test`` compares each submission with the leader on the same
resamples, ``build`` scores the folder, ``outputs`` writes CSV/JSON/Markdown
and ``plots`` draws the charts.

Public (``__all__``, imported on first use): ``build_leaderboard``, ``list_submissions``, ``Leaderboard`` and
``Entry``, ``write_outputs``, ``row_frame`` and ``metric_from_rows`` (a metric recomputed on any subset or
resample of rows), ``paired_vs_leader``, the charts ``scores_chart`` and ``rank_chart``, and the module
``rank_agreement`` (``rank_agreement.rank_agreement``, ``RankAgreement``, ``read_scores``).

Internal (may change without notice): ``bootstrap``, ``marks``, ``permutation_pvalues`` (exact p-values of
the rank correlations for few items), ``team_board`` (one row per team from the
own server's log: ``leaderboard --per-team``).
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["build_leaderboard", "list_submissions", "Leaderboard", "Entry", "write_outputs", "row_frame",
           "metric_from_rows", "paired_vs_leader", "scores_chart", "rank_chart", "rank_agreement"]

_HOME = {"build_leaderboard": "build", "list_submissions": "build", "Leaderboard": "build", "Entry": "build",
         "write_outputs": "outputs", "row_frame": "rows", "metric_from_rows": "rows",
         "paired_vs_leader": "paired_test", "scores_chart": "plots", "rank_chart": "plots",
         "rank_agreement": "rank_agreement"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
