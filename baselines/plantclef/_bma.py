"""Bayesian model averaging over the tiles of an image (NEUON 2024, Figure 8; Chlorophyll Crew
2025 ``bma_prediction``), computed on the device where every class of every tile is at hand.

For the T tiles of a group, each with softmax p_t over d classes:

    ss_t   = 1/(d-1) * sum_c (p_t(c) - mean_c p_t)^2        (the tile's class variance)
    v_t    = |log10(ss_t)|
    conf_t = sqrt((max_t v_t + 0.5 - v_t) / (max_t v_t + 0.5))
    w_t    = conf_t / sum_t conf_t
    B(c)   = sum_t w_t p_t(c)

A confident tile (one peaked class: large variance, small v_t) weighs more. The
image keeps the species whose z-score over classes, (B(c) - mean B) / std B
(std with ddof 1, as ``torch.std``), is above a threshold (``aggregate``,
strategy ``bma``).
"""

from __future__ import annotations

import torch


def bma_weights(p: torch.Tensor, group: torch.Tensor, n_groups: int) -> torch.Tensor:
    """w_t of the formula above for ``p`` ``(T, d)`` whose row t belongs to group ``group[t]``."""
    d = p.shape[1]
    ss = (p - p.mean(dim=1, keepdim=True)).pow(2).sum(dim=1) / (d - 1)
    v = torch.log10(ss).abs()
    vmax = torch.full((n_groups,), float("-inf"), device=p.device, dtype=v.dtype)
    vmax = vmax.scatter_reduce(0, group, v, reduce="amax", include_self=True)[group]
    conf = torch.sqrt((vmax + 0.5 - v) / (vmax + 0.5))
    total = torch.zeros(n_groups, device=p.device, dtype=conf.dtype).index_add_(0, group, conf)[group]
    return conf / total


def bma_vectors(p: torch.Tensor, group: torch.Tensor, n_groups: int) -> torch.Tensor:
    """B_g ``(n_groups, d)`` for every group."""
    w = bma_weights(p, group, n_groups)
    return torch.zeros((n_groups, p.shape[1]), device=p.device, dtype=p.dtype).index_add_(0, group, p * w[:, None])
