"""The leaderboard audit: which teams' public scores selection among fixed submissions cannot explain.

``agrieval audit LOG --solution S --competition C`` reads the organizer's export of every submission, scores
each once, tests each team (Holm across teams), bootstraps the private ranks and finds runs of submissions
that differ in a few rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.scoring.audit.audit_report import Audit, audit, to_text
    from agrieval.scoring.audit.scored_log import ScoredLog, score_log
    from agrieval.scoring.audit.submission_log import LoggedSubmission, read_log

__all__ = ["audit", "Audit", "to_text", "read_log", "LoggedSubmission", "score_log", "ScoredLog"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
