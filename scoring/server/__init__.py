"""The own grading server's bookkeeping: the submission log, submission limits, which submission counts.

``agrieval grade --team T --log LOG`` (``intake.grade_logged``) is the one writer of the log;
``agrieval leaderboard LOG --per-team RULE`` (``agrieval.scoring.leaderboard.team_board``) builds the board
from it; ``agrieval select`` records a team's final selection. See docs/own_server.md.
"""
