"""The split-permutation test: is a team's public-private gap larger than selection explains?

A team that never looked at the public split (its submissions fixed before the split was
drawn) and keeps its best public submission still shows a positive gap, public minus private
score of that submission: the winner's curse of picking among noisy estimates. How large it
gets depends on the team's number of submissions and on how they differ, so the reference
distribution is drawn from the team's own submissions: the public/private assignment is
re-drawn B times, keeping the number of public blocks (the metric's units when each lies in
one split, as a split made by transect or team; single rows otherwise), each team's best
public submission is picked again on the re-drawn split and its gap recomputed.

Under the null (the team's submissions do not depend on the real split) the real split is one
more exchangeable draw, so

    p = (1 + #{b : gap_b >= gap_real}) / (1 + B)

is an exact p-value (Phipson & Smyth 2010, "Permutation p-values should never be zero"). A team
that fitted the public split, by probing it, has a gap that is extreme only on the real split.
Teams are flagged by Holm's step-down procedure at level alpha (Holm 1979): it controls the
chance of flagging any honest team at alpha, whatever the dependence between the teams' tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def split_blocks(units: np.ndarray, in_public: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """The block of each scored row that the re-drawn splits move as one: its unit when every unit's
    scored rows lie in one split, the row itself otherwise."""
    rows = np.flatnonzero(scored)
    public_share = np.bincount(units[rows], weights=in_public[rows].astype(float), minlength=int(units.max()) + 1)
    count = np.bincount(units[rows], minlength=int(units.max()) + 1)
    whole = (public_share == 0) | (public_share == count)
    return units.copy() if whole.all() else np.arange(len(units))


def redrawn_publics(blocks: np.ndarray, in_public: np.ndarray, scored: np.ndarray, n_draws: int,
                    rng: np.random.Generator) -> np.ndarray:
    """(N, n_draws) 0/1 matrix: the public rows of each re-drawn split, as many public blocks as the real one."""
    rows = np.flatnonzero(scored)
    block_ids, row_block = np.unique(blocks[rows], return_inverse=True)
    n_public = len(np.unique(blocks[rows][in_public[rows]]))
    keys = rng.random((len(block_ids), n_draws))
    # the n_public blocks with the smallest keys are public: a uniform draw of a subset of that size
    chosen = np.argsort(keys, axis=0)[:n_public]
    public_blocks = np.zeros((len(block_ids), n_draws), dtype=bool)
    np.put_along_axis(public_blocks, chosen, True, axis=0)
    out = np.zeros((len(blocks), n_draws), dtype=bool)
    out[rows] = public_blocks[row_block]
    return out


def split_scores(values: np.ndarray, units: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(S, K) metric of each submission (rows of ``values``, S x N) on each split (columns of ``masks``,
    N x K 0/1): the mean over the units present of each unit's mean value (``unit_scores.split_score``)."""
    masks = masks.astype(float)
    if len(np.unique(units)) == len(units):  # units are rows: a plain mean
        return values @ masks / masks.sum(axis=0)
    order = np.argsort(units, kind="stable")
    bounds = np.flatnonzero(np.diff(units[order])) + 1
    total = np.zeros((values.shape[0], masks.shape[1]))
    present = np.zeros(masks.shape[1])
    for rows in np.split(order, bounds):
        counts = masks[rows].sum(axis=0)
        sums = values[:, rows] @ masks[rows]
        has = counts > 0
        total[:, has] += sums[:, has] / counts[has]
        present += has
    return total / present


@dataclass
class TeamTest:
    team: str
    n_submissions: int
    best: int  # index (into the team's submissions) of its best public submission on the real split
    public: float
    private: float
    gap: float  # public - private of ``best``
    p_value: float
    p_holm: float = 1.0
    flagged: bool = False


def selected_gaps(public: np.ndarray, private: np.ndarray, team_of: np.ndarray, n_teams: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Per team and split (columns): the index of its best public submission (ties: the earliest) and the
    gap of that submission."""
    best = np.zeros((n_teams, public.shape[1]), dtype=np.int64)
    for t in range(n_teams):
        mine = np.flatnonzero(team_of == t)
        best[t] = mine[np.argmax(public[mine], axis=0)]  # argmax: the first maximum
    cols = np.arange(public.shape[1])
    return best, public[best, cols] - private[best, cols]


def permutation_test(values: np.ndarray, units: np.ndarray, split: np.ndarray, team_of: np.ndarray,
                     teams: list[str], *, n_permutations: int = 2000, seed: int = 0, alpha: float = 0.01
                     ) -> list[TeamTest]:
    """Each team's gap, p-value and Holm verdict. ``values``: (S, N) per-row parts of the metric for the S
    scored submissions (``unit_scores.row_values``); ``split``: "public"/"private"/"ignored" per row;
    ``team_of``: each submission's team (index into ``teams``)."""
    in_public = split == "public"
    scored = in_public | (split == "private")
    blocks = split_blocks(units, in_public, scored)
    rng = np.random.default_rng(seed)
    real = np.stack([in_public, split == "private"], axis=1)
    publics = redrawn_publics(blocks, in_public, scored, n_permutations, rng)
    privates = scored[:, None] & ~publics
    pub = split_scores(values, units, np.concatenate([real[:, :1], publics], axis=1))
    priv = split_scores(values, units, np.concatenate([real[:, 1:], privates], axis=1))
    best, gaps = selected_gaps(pub, priv, team_of, len(teams))
    out = []
    for t, team in enumerate(teams):
        exceed = int(np.count_nonzero(gaps[t, 1:] >= gaps[t, 0] - 1e-12))  # ties count against the team
        b = int(best[t, 0])
        out.append(TeamTest(team, int(np.count_nonzero(team_of == t)), b - int(np.flatnonzero(team_of == t)[0]),
                            float(pub[b, 0]), float(priv[b, 0]), float(gaps[t, 0]),
                            (1 + exceed) / (1 + n_permutations)))
    for test, (adjusted, flagged) in zip(out, zip(*holm([t.p_value for t in out], alpha))):
        test.p_holm, test.flagged = adjusted, flagged
    return out


def holm(p_values: list[float], alpha: float) -> tuple[list[float], list[bool]]:
    """Holm's step-down adjusted p-values, and which hypotheses are rejected at ``alpha``.

    Sorted ascending, p_(i) is adjusted to max_{j <= i} min(1, (m - j + 1) p_(j)); a hypothesis is
    rejected when its adjusted p-value is at most alpha."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted, [a <= alpha for a in adjusted]
