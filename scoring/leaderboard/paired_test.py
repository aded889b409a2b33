"""Paired bootstrap test of a submission against the leader.

On the same B resamples (same drawn units for every submission), with
delta_b = leader_b - submission_b and delta the observed gap:

* interval: percentile interval of delta_b;
* one-sided p-value for "the leader is better":
  p = (1 + #{b : delta_b <= 0}) / (B + 1),
  the share of resamples where the submission ties or beats the leader (the
  +1 keeps p > 0 with finite B). A gap is called real when p < alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agrieval.scoring.leaderboard._bootstrap import percentile_interval


@dataclass
class PairedResult:
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    significant: bool


def paired_vs_leader(leader_scores: np.ndarray, scores: np.ndarray, observed_delta: float, *,
                     confidence: float = 0.95, alpha: float = 0.05) -> PairedResult:
    """The leader's margin over one submission: ``observed_delta``, the percentile interval of the resampled
    margins, the one-sided bootstrap p-value that the margin is not positive, and whether it is below ``alpha``."""
    deltas = np.asarray(leader_scores, float) - np.asarray(scores, float)
    deltas = deltas[~np.isnan(deltas)]
    lo, hi = percentile_interval(deltas, confidence)
    p = float((1 + np.count_nonzero(deltas <= 0)) / (len(deltas) + 1))
    return PairedResult(float(observed_delta), lo, hi, p, p < alpha)
