"""Which of a team's submissions counts: ``best``, ``last`` or ``selected``, as the big platforms decide it.

``best``      the team's best raw public submission counts (ties: the earlier); EvalAI's default ranking
              ("best score over all public submissions", with the private score of that submission here).
``last``      the team's last scored submission counts (EvalAI's "latest" ranking; Codabench's migration
              at the reveal takes each participant's last finished submission, ``Force_Last``).
``selected``  the team's selected submissions (its latest ``selected`` row, at most ``k``), or, when it
              selected none, its ``k`` best raw public ones; its private score is the best private among
              them (Kaggle's and Hugging Face's rule: up to 2 selected, the best public ones when none is).

The public board shows, for every rule, what participants were shown: the best ``shown`` value of the
team (with the Ladder: its released value, which only ever rises; else the public score, rounded where
the competition rounds it), except ``last``, which shows the last submission's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from agrieval.scoring._server.submission_log import GRADED, LogRow, utc_text

__all__ = ["RULES", "TeamChoice", "choose", "choose_all"]

RULES = ("best", "last", "selected")


@dataclass
class TeamChoice:
    team: str
    n_submissions: int  # graded uploads (scored, rejected or failed)
    n_scored: int
    n_refused: int
    public: float = math.nan  # the value on the public board (what the team was shown)
    public_submission: Optional[int] = None  # the submission whose value it is
    counted: Tuple[int, ...] = ()  # the submissions the rule lets count on the private board
    private: float = math.nan  # the private value that counts (the best of ``counted``)
    private_submission: Optional[int] = None
    best_private: float = math.nan  # the team's best private over all its scored submissions (the audit's yardstick)
    selected_by_team: bool = False
    last_at: Optional[str] = None
    files: Dict[int, str] = field(default_factory=dict)


def _first_max(rows: List[LogRow], key) -> Optional[LogRow]:
    best = None
    for r in rows:  # in time order: a tie keeps the earlier
        if not math.isnan(key(r)) and (best is None or key(r) > key(best)):
            best = r
    return best


def choose(team: str, rows: List[LogRow], rule: str, k: int = 2) -> TeamChoice:
    """The ``TeamChoice`` of one team from its rows in log order."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; choose one of {', '.join(RULES)}")
    mine = [r for r in rows if r.team == team]
    scored = [r for r in mine if r.status == "scored"]
    graded = [r for r in mine if r.status in GRADED]
    choice = TeamChoice(team, len(graded), len(scored), sum(r.status == "refused" for r in mine),
                        last_at=utc_text(graded[-1].submitted_at) if graded else None,
                        files={r.submission: r.file for r in scored})
    if not scored:
        return choice
    if rule == "last":
        shown = scored[-1]
        counted = [scored[-1]]
    else:
        shown = _first_max(scored, lambda r: r.shown)
        if rule == "best":
            counted = [_first_max(scored, lambda r: r.public)]
        else:
            selections = [r for r in mine if r.status == "selected"]
            picked = set(selections[-1].selected) if selections else set()
            counted = [r for r in scored if r.submission in picked][:k]
            choice.selected_by_team = bool(counted)
            if not counted:  # none selected: the k best public ones (ties: the earlier)
                order = sorted(range(len(scored)), key=lambda i: (-_or_low(scored[i].public), i))
                counted = [scored[i] for i in sorted(order[:k])]
    choice.public, choice.public_submission = shown.shown, shown.submission
    choice.counted = tuple(r.submission for r in counted)
    top = _first_max(counted, lambda r: r.private)
    if top is not None:
        choice.private, choice.private_submission = top.private, top.submission
    best = _first_max(scored, lambda r: r.private)
    choice.best_private = best.private if best is not None else math.nan
    return choice


def _or_low(x: float) -> float:
    return -math.inf if math.isnan(x) else x


def choose_all(rows: List[LogRow], rule: str, k: int = 2) -> List[TeamChoice]:
    """One ``TeamChoice`` per team of the log, sorted by team name."""
    return [choose(team, rows, rule, k) for team in sorted({r.team for r in rows})]
