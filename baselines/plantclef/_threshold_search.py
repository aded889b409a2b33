"""Threshold by target: the threshold that gives a wanted mean number of species per quadrat.

The 2025 winner's ``calc_seuil`` (``lib_soumission.rs``), Chlorophyll Crew's
bisection to a mean list length of 4.2: with scores S_i(s) of every image i,

    n(x)  = (1/N) sum_i #{s : S_i(s) > x}          (strictly above, decreasing in x)
    f(x)  = target - n(x)

bisection on [lo, hi] = [min S, max S] over all scores: mid = (lo + hi)/2; if
f(mid) >= 0 (too few species or just right) hi = mid, else lo = mid; after
``n_iter`` (20) halvings the answer is the last mid. It fails, as the winner's
does, when the search never moved one of its ends (the target is outside what
thresholds in the range can give).
"""

from __future__ import annotations

import numpy as np


class TargetUnreachable(ValueError):
    pass


def mean_count_above(scores: list[np.ndarray], x: float) -> float:
    return float(sum(int((s > x).sum()) for s in scores)) / len(scores)


def threshold_for_mean_count(scores: list[np.ndarray], target: float, n_iter: int = 20) -> float:
    """The bisection of the module docstring; ``scores``: one array of S_i(s) per image."""
    flat = [s for s in scores if len(s)]
    if not flat:
        raise TargetUnreachable("no scores to search a threshold on")
    lo = float(min(np.min(s) for s in flat))
    hi = float(max(np.max(s) for s in flat))
    went_up = went_down = False
    for _ in range(n_iter):
        mid = 0.5 * (lo + hi)
        if target - mean_count_above(scores, mid) >= 0:
            hi, went_down = mid, True
        else:
            lo, went_up = mid, True
    if not went_up:
        raise TargetUnreachable(f"a mean of {target:g} species per quadrat needs a threshold below the lowest score")
    if not went_down:
        raise TargetUnreachable(f"a mean of {target:g} species per quadrat needs a threshold above the highest score")
    return 0.5 * (lo + hi)
