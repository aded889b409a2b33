"""Cluster bootstrap of a metric over sampling units.

A resample draws U units (transects for PlantCLEF, teams for AgrI, or single
rows with ``unit='row'``) with replacement from the U units of the split, and
recomputes the metric on the rows of the drawn units; a unit drawn twice
counts twice, as two distinct groups. Draws come from
``numpy.random.default_rng(seed)``, so a seed gives the same intervals.

The percentile interval at confidence c is the (1-c)/2 and (1+c)/2 quantiles
of the resampled scores.

Speed: for metrics that decompose over units the resampled score is computed
from per-unit sums in one vectorised step:

* mean of group means (``transect_f1``, ``group_accuracy``) with group units:
  mean_k m_{u_k}, m_u the unit's mean;
* row means (``sample_f1``, ``accuracy``...): sum_k S_{u_k} / sum_k N_{u_k};
* ``micro_f1``: 2 sum_k TP_{u_k} / (sum_k T_{u_k} + sum_k P_{u_k}).

Every other metric (balanced accuracy, macro F1) is recomputed by
``agrieval.scoring.leaderboard.rows.metric_from_rows`` on each resampled frame. The vectorised form
is checked against ``metric_from_rows`` on the unresampled frame before use.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from agrieval.scoring.leaderboard.rows import metric_from_rows

_GROUP_MEANS = {"transect_f1": "f1", "group_accuracy": "correct"}
_ROW_MEANS = {"sample_f1": "f1", "sample_precision": "precision", "sample_recall": "recall", "accuracy": "correct"}


def unit_codes(frame: pd.DataFrame, unit: str) -> np.ndarray:
    """Integer unit per row: the group (transect/team) or the row itself."""
    if unit == "row":
        return np.arange(len(frame))
    if unit == "group":
        return pd.factorize(frame["group"], sort=True)[0]
    raise ValueError(f"unit must be 'group' or 'row', got {unit!r}")


def draw_units(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n_resamples, n_units) unit indices drawn with replacement."""
    return np.random.default_rng(seed).integers(0, n_units, size=(n_resamples, n_units))


def _fast(frame: pd.DataFrame, units: np.ndarray, draws: np.ndarray, metric: str, unit: str,
          empty_both: float) -> np.ndarray | None:
    n_units = int(units.max()) + 1 if len(units) else 0
    counts = np.bincount(units, minlength=n_units).astype(float)
    if metric in _GROUP_MEANS and unit == "group":
        means = np.bincount(units, weights=frame[_GROUP_MEANS[metric]].to_numpy(float), minlength=n_units) / counts
        return means[draws].mean(axis=1)
    if metric in _ROW_MEANS:
        sums = np.bincount(units, weights=frame[_ROW_MEANS[metric]].to_numpy(float), minlength=n_units)
        return sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    if metric == "micro_f1":
        tp, nt, npred = (np.bincount(units, weights=frame[c].to_numpy(float), minlength=n_units)
                         for c in ("tp", "n_true", "n_pred"))
        denom = nt[draws].sum(axis=1) + npred[draws].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(denom == 0, empty_both, 2 * tp[draws].sum(axis=1) / denom)
    return None


def resample_scores(frame: pd.DataFrame, definition, metric: str, units: np.ndarray, draws: np.ndarray,
                    unit: str) -> np.ndarray:
    """The metric on each resample (one value per row of ``draws``)."""
    empty_both = getattr(definition, "empty_both_score", 0.0)
    fast = _fast(frame, units, draws, metric, unit, empty_both)
    if fast is not None:
        identity = _fast(frame, units, np.arange(int(units.max()) + 1)[None, :], metric, unit, empty_both)[0]
        if math.isclose(identity, metric_from_rows(frame, definition, metric), rel_tol=1e-9, abs_tol=1e-12):
            return fast
    return generic_resample_scores(frame, definition, metric, units, draws, unit)


def generic_resample_scores(frame: pd.DataFrame, definition, metric: str, units: np.ndarray, draws: np.ndarray,
                            unit: str) -> np.ndarray:
    """Any metric: ``metric_from_rows`` on each resampled frame (slow, general)."""
    order = np.argsort(units, kind="stable")
    starts = np.searchsorted(units[order], np.arange(int(units.max()) + 2))
    rows_of = [order[starts[u]:starts[u + 1]] for u in range(len(starts) - 1)]
    out = np.empty(len(draws))
    for b, draw in enumerate(draws):
        take = np.concatenate([rows_of[u] for u in draw])
        sample = frame.iloc[take].reset_index(drop=True)
        if unit == "group":
            # a unit drawn twice is two groups, not one group with doubled rows
            sample["group"] = np.repeat(np.arange(len(draw)), [len(rows_of[u]) for u in draw]).astype(str)
        out[b] = metric_from_rows(sample, definition, metric)
    return out


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    values = values[~np.isnan(values)]
    if not len(values):
        return math.nan, math.nan
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(values, [alpha, 1 - alpha])
    return float(lo), float(hi)
