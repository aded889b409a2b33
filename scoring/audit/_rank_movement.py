"""How much each team's private rank could have moved: a bootstrap over the private split's units.

Each team is ranked by the private score of its selected (best public) submission. A resample
draws the private units (transects, teams or rows, as the metric averages over them) with
replacement and recomputes every team's score as the mean of the drawn units' values; ranks are
competition ranks (ties share the best). The interval is the central ``confidence`` share of a
team's resampled ranks, and ``p_moved`` the share of resamples in which its rank differs from the
observed one. The private split is the organizer's: this section is host-only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class RankMovement:
    team: str
    private_score: float
    private_rank: int
    rank_low: int
    rank_high: int
    p_moved: float


def competition_ranks(scores: np.ndarray) -> np.ndarray:
    """Rank of each entry along axis 0: 1 + the number of strictly higher scores."""
    return 1 + (scores[None, :] > scores[:, None]).sum(axis=1) if scores.ndim == 1 else \
        1 + (scores[None, :, :] > scores[:, None, :]).sum(axis=1)


def rank_movement(unit_values: np.ndarray, teams: list[str], *, n_resamples: int = 1000, seed: int = 0,
                  confidence: float = 0.95) -> list[RankMovement]:
    """``unit_values``: (T, U) private unit values of each team's selected submission."""
    observed = unit_values.mean(axis=1)
    ranks = competition_ranks(observed)
    draws = np.random.default_rng(seed).integers(0, unit_values.shape[1], size=(n_resamples, unit_values.shape[1]))
    resampled = np.stack([unit_values[:, d].mean(axis=1) for d in draws], axis=1)  # (T, R)
    boot_ranks = competition_ranks(resampled)
    low_q, high_q = (1 - confidence) / 2, (1 + confidence) / 2
    return [RankMovement(team, float(observed[t]), int(ranks[t]),
                         int(np.floor(np.quantile(boot_ranks[t], low_q))),
                         int(np.ceil(np.quantile(boot_ranks[t], high_q))),
                         float(np.mean(boot_ranks[t] != ranks[t])))
            for t, team in enumerate(teams)]
