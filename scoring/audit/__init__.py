"""The leaderboard audit: which teams' public scores selection among fixed submissions cannot explain.

``agrieval audit LOG --solution S --competition C``: ``submission_log`` reads the organizer's
export of every submission, ``scored_log`` scores them once, ``split_permutation`` tests each
team (Holm across teams), ``rank_movement`` bootstraps the private ranks, ``near_duplicates``
finds runs of submissions that differ in a few rows, ``audit_report`` puts them together.

Public (``__all__``, imported on first use): ``audit`` and its ``Audit`` (with ``to_text``), ``read_log`` and
``LoggedSubmission``, ``score_log`` and ``ScoredLog``.

Internal (may change without notice): ``near_duplicates``, ``rank_movement``, ``selection_cost``,
``split_permutation``.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["audit", "Audit", "to_text", "read_log", "LoggedSubmission", "score_log", "ScoredLog"]

_HOME = {"audit": "audit_report", "Audit": "audit_report", "to_text": "audit_report", "read_log": "submission_log",
         "LoggedSubmission": "submission_log", "score_log": "scored_log", "ScoredLog": "scored_log"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
