"""Support-weighted precision, recall and F1, as the public AgrI script stores them.

The script calls scikit-learn's ``precision_recall_fscore_support(y_true,
y_pred, average='weighted', zero_division=0)``. Over the classes in the truth
or the prediction, with per-class precision_c, recall_c and F1_c
(``agrieval.scoring.runtime.metrics.multiclass.per_class``: 0 where a denominator is 0) and
support s_c = number of true rows of class c:

    weighted_m = sum_c s_c * m_c / sum_c s_c,   m in {precision, recall, F1}.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agrieval.scoring.runtime.metrics.multiclass import per_class


def weighted_prf(y_true: Sequence[str], y_pred: Sequence[str]) -> dict[str, float]:
    """``{"precision", "recall", "f1"}`` as fractions (formula in the module docstring)."""
    labels = sorted(set(np.asarray(y_true, dtype=object).tolist()) | set(np.asarray(y_pred, dtype=object).tolist()))
    if not labels:
        raise ValueError("no rows")
    stats = per_class(y_true, y_pred, labels)
    support = np.array([stats[c]["support"] for c in labels], dtype=float)
    return {m: float(np.average([stats[c][m] for c in labels], weights=support)) for m in ("precision", "recall", "f1")}
