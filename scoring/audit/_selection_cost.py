"""What a rule for "which submission counts" costs each team: the private score it lost against its best private.

For each team, with its submissions' public and private scores (``split_scores``), each rule picks the
submissions that count, and the team's final score is the best private among them:

``best_public``   its best public submission (EvalAI's default, Codabench when a team re-submits its best);
``top2_public``   its ``k`` best public submissions (Kaggle and Hugging Face when a team selects none; k = 2);
``last``          its last submission (EvalAI ranked "by latest", Codabench's ``Force_Last`` migration).

``lost = best_private - counted_private`` (>= 0): what choosing on the public split, or by time, cost the
team. Ties on the public score keep the earlier submission.

Example: one team, three submissions in time order, four test rows (two public, two private), each row its
own unit. The first scores 1.0 public and 0.5 private, the second 0.5 and 1.0, the third 0.0 and 0.5; so its
best private is the second, its best public the first:

>>> values = np.array([[1, 1, 1, 0], [1, 0, 1, 1], [0, 0, 0, 1]], dtype=float)
>>> split = np.array(["public", "public", "private", "private"])
>>> cost, = selection_costs(values, np.arange(4), split, ["team-a"] * 3, ["s1.csv", "s2.csv", "s3.csv"])
>>> cost.best_private, cost.best_private_file
(1.0, 's2.csv')
>>> {rule: (c["file"], c["lost"]) for rule, c in cost.counted.items()}
{'best_public': ('s1.csv', 0.5), 'top2_public': ('s2.csv', 0.0), 'last': ('s3.csv', 0.5)}
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from agrieval.scoring.audit._split_permutation import split_scores

__all__ = ["SelectionCost", "selection_costs", "RULES"]

RULES = ("best_public", "top2_public", "last")


@dataclass
class SelectionCost:
    team: str
    n_submissions: int
    best_private: float
    best_private_file: str
    counted: dict = field(default_factory=dict)  # rule -> {"private", "file", "lost"}

    def to_dict(self) -> dict:
        return {"team": self.team, "n_submissions": self.n_submissions, "best_private": self.best_private,
                "best_private_file": self.best_private_file, "rules": self.counted}


def _picks(public: np.ndarray, rule: str, k: int = 2) -> list:
    """Indices (into the team's submissions, in time order) that ``rule`` lets count."""
    order = sorted(range(len(public)), key=lambda i: (-public[i], i))  # best public first; ties: the earlier
    if rule == "best_public":
        return order[:1]
    if rule == "top2_public":
        return order[:k]
    if rule == "last":
        return [len(public) - 1]
    raise ValueError(f"unknown rule {rule!r}")


def selection_costs(values: np.ndarray, units: np.ndarray, split: np.ndarray, team_names: list, files: list,
                    k: int = 2) -> list:
    """One ``SelectionCost`` per team (in order of first appearance); ``values`` (S, N) per-row parts of the
    primary metric of the S scored submissions, grouped by team in time order, as ``audit`` takes them."""
    masks = np.stack([split == "public", split == "private"], axis=1)
    if not masks[:, 1].any():
        return []
    scores = split_scores(values, units, masks)
    teams = list(dict.fromkeys(team_names))
    out = []
    for team in teams:
        mine = [s for s, t in enumerate(team_names) if t == team]
        public, private = scores[mine, 0], scores[mine, 1]
        best = int(np.argmax(private))  # the first of the best
        cost = SelectionCost(team, len(mine), float(private[best]), files[mine[best]])
        for rule in RULES:
            picks = _picks(public, rule, k)
            top = max(picks, key=lambda i: (private[i], -i))
            cost.counted[rule] = {"private": float(private[top]), "file": files[mine[top]],
                                  "lost": float(private[best] - private[top])}
        out.append(cost)
    return out
