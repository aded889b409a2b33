"""Runs of consecutive submissions of a team that differ in a few rows: the footprint of probing.

A participant who flips a handful of predictions and resubmits, again and again, is reading the
public split one row at a time (hill climbing); honest revisions of a model change many rows at
once. Two consecutive submissions (in time order) are near duplicates when their predictions
differ in at most ``max_rows`` of the solution's rows; a run is a maximal chain of such pairs.
Predictions are compared row for row in the solution's order: a multi-label row by a 64-bit hash
of its label set, a single-label row by its class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_MIX = np.uint64(0x9E3779B97F4A7C15)


def label_set_keys(indptr: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """One 64-bit key per row of a label-set table (rows' labels sorted and unique): equal sets, equal keys."""
    with np.errstate(over="ignore"):
        x = labels.astype(np.uint64) * _MIX
        x ^= x >> np.uint64(29)
        x *= _MIX
        sums = np.concatenate([np.zeros(1, dtype=np.uint64), np.cumsum(x, dtype=np.uint64)])
        keys = sums[indptr[1:]] - sums[indptr[:-1]]
        keys ^= np.diff(indptr).astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9)
    return keys


@dataclass
class NearDuplicateRun:
    team: str
    first: str  # file of the run's first submission
    last: str
    n_submissions: int
    max_rows_changed: int  # the most rows any step of the run changed


def near_duplicate_runs(team: str, files: list[str], keys: list[np.ndarray], max_rows: int
                        ) -> list[NearDuplicateRun]:
    """The runs among one team's submissions (``files`` and their per-row ``keys``, in time order)."""
    runs, start, worst = [], None, 0
    for i in range(1, len(keys) + 1):
        changed = int(np.count_nonzero(keys[i] != keys[i - 1])) if i < len(keys) else None
        if changed is not None and changed <= max_rows:
            start = i - 1 if start is None else start
            worst = max(worst, changed)
            continue
        if start is not None:
            runs.append(NearDuplicateRun(team, files[start], files[i - 1], i - start, worst))
        start, worst = None, 0
    return runs
