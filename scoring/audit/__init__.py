"""The leaderboard audit: which teams' public scores selection among fixed submissions cannot explain.

``agrieval audit LOG --solution S --competition C``: ``submission_log`` reads the organizer's
export of every submission, ``scored_log`` scores them once, ``split_permutation`` tests each
team (Holm across teams), ``rank_movement`` bootstraps the private ranks, ``near_duplicates``
finds runs of submissions that differ in a few rows, ``audit_report`` puts them together.
"""
