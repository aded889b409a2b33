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
    return _weighted(per_class(y_true, y_pred, labels), labels)


def weighted_prf_of_counts(labels: Sequence[str], true: Sequence[int], right: Sequence[int],
                           predicted: Sequence[int]) -> dict[str, float]:
    """``weighted_prf`` of the predictions whose class ``labels[k]`` (the classes of truth and prediction, sorted)
    has ``true[k]`` true rows, ``right[k]`` of them right, and ``predicted[k]`` predicted rows (the per-class rows
    of the record table). ``per_class`` needs these counts alone, so it reads rows that have them: a miss pairs
    the class with a class outside ``labels``, whose numbers are left out.

    >>> t, p = ["oak", "oak", "ash", "tipu"], ["oak", "ash", "ash", "elm"]
    >>> weighted_prf_of_counts(["ash", "elm", "oak", "tipu"], [1, 0, 2, 1], [1, 0, 1, 0], [2, 1, 1, 0]) \\
    ...     == weighted_prf(t, p)
    True
    """
    other = object()
    t: list = []
    p: list = []
    for c, n, k, q in zip(labels, true, right, predicted):
        t += [c] * n + [other] * (q - k)
        p += [c] * k + [other] * (n - k) + [c] * (q - k)
    return _weighted(per_class(t, p, [*labels, other]), labels)


def _weighted(stats: dict, labels: Sequence[str]) -> dict[str, float]:
    support = np.array([stats[c]["support"] for c in labels], dtype=float)
    return {m: float(np.average([stats[c][m] for c in labels], weights=support)) for m in ("precision", "recall", "f1")}
