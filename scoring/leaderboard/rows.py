"""Per-row outcomes of a scored submission, and metrics recomputed from them.

The leaderboard's bootstrap resamples rows or groups of this frame and calls
``metric_from_rows`` on each resample; it never re-reads files.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.metrics import multiclass, multilabel
from agrieval.scoring.runtime.reading.solution import Solution
from agrieval.scoring.runtime.reading.submission import Submission


def row_frame(sub: Submission, sol: Solution, definition: CompetitionDefinition, order: np.ndarray) -> pd.DataFrame:
    """One row per solution id (``order`` from ``matching.align``); Ignored rows dropped."""
    keep = sol.split != "ignored"
    base = pd.DataFrame({"id": sol.ids, "split": sol.split, "group": sol.groups})
    if definition.task == "multilabel":
        y_pred = sub.labels.take(order)
        p, r, f = multilabel.sample_scores(sol.labels, y_pred, empty_both=definition.empty_both_score)
        base["f1"], base["precision"], base["recall"] = f, p, r
        base["tp"] = multilabel.true_positives(sol.labels, y_pred)
        base["n_pred"] = y_pred.sizes
        base["n_true"] = sol.labels.sizes
    else:
        base["y_true"] = sol.classes
        base["y_pred"] = [sub.classes[i] for i in order]
        base["correct"] = (base["y_true"] == base["y_pred"]).astype(float)
    return base[keep].reset_index(drop=True)


def metric_from_rows(frame: pd.DataFrame, definition: CompetitionDefinition, metric: str) -> float:
    """Recompute ``metric`` on any subset or resample of a ``row_frame``."""
    if definition.task == "multilabel":
        if metric == "transect_f1":
            return multilabel.grouped_mean(frame["f1"].to_numpy(), pd.factorize(frame["group"])[0])
        if metric in ("sample_f1", "sample_precision", "sample_recall"):
            return float(frame[metric.removeprefix("sample_")].mean())
        if metric == "micro_f1":
            denom = frame["n_true"].sum() + frame["n_pred"].sum()
            return definition.empty_both_score if denom == 0 else float(2 * frame["tp"].sum() / denom)
        raise ValueError(f"metric {metric!r} cannot be recomputed from per-row outcomes")
    if metric == "accuracy":
        return float(frame["correct"].mean())
    if metric == "balanced_accuracy":
        return multiclass.balanced_accuracy(frame["y_true"], frame["y_pred"])
    if metric == "macro_f1":
        return multiclass.macro_f1(frame["y_true"], frame["y_pred"])
    if metric == "group_accuracy":
        return float(np.mean(list(multiclass.group_accuracy(frame["y_true"], frame["y_pred"], frame["group"]).values())))
    raise ValueError(f"unknown metric {metric!r}")
