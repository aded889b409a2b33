"""Single-label metrics (AgrI Challenge). Labels are arrays of class names.

- accuracy:            mean of [y_i == yhat_i], a fraction (0-1); from counts, n_correct / n
                       (``accuracy_from_counts``, also in percent: 100 n_correct / n)
- balanced accuracy:   mean over classes present in the truth of recall_c
                       (scikit-learn's ``balanced_accuracy_score``)
- per class:           precision_c = tp_c / predicted_c, recall_c = tp_c / true_c,
                       F1_c = 2 tp_c / (true_c + predicted_c); 0 where a denominator is 0
- macro F1:            mean of F1_c over the classes in truth or prediction
- group accuracy:      accuracy within each group (team); ``cross_group_accuracy``
                       leaves one group out (the study's cross-team test accuracy)
- validation-test gap: VTG = val_acc - test_acc, in the unit of the two accuracies (fractions: a
                       fraction; percents: percentage points)

Each formula is written once here: the scorer, the CTV tables and runs (``agrieval.scoring.ctv``) and the CTV
baselines (``agrieval.baselines.ctv``) call these functions.

The examples in the docstrings share these four rows of two teams (A, B)::

    row   team   true   predicted
    0     A      oak    oak
    1     A      oak    ash
    2     A      ash    ash
    3     B      tipu   oak

They run as doctests (``tests/scoring/runtime/test_metric_examples.py``), and
``tests/scoring/runtime/metrics/test_examples_against_sklearn.py`` checks every shown number against scikit-learn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["accuracy", "accuracy_from_counts", "balanced_accuracy", "confusion_matrix", "per_class", "macro_f1",
           "group_accuracy", "cross_group_accuracy", "validation_test_gap"]


def _arrays(y_true: Sequence[str], y_pred: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(y_true, dtype=object)
    p = np.asarray(y_pred, dtype=object)
    if t.shape != p.shape:
        raise ValueError(f"y_true has {len(t)} rows but y_pred has {len(p)}")
    return t, p


def accuracy(y_true: Sequence[str], y_pred: Sequence[str]) -> float:
    """The fraction (0-1) of rows predicted right, mean_i [y_i == yhat_i]; NaN without rows.

    Examples
    --------
    >>> y_true = ["oak", "oak", "ash", "tipu"]
    >>> y_pred = ["oak", "ash", "ash", "oak"]
    >>> accuracy(y_true, y_pred)  # rows 0 and 2 of 4
    0.5
    """
    t, p = _arrays(y_true, y_pred)
    return accuracy_from_counts(int(np.count_nonzero(t == p)), len(t))


def accuracy_from_counts(n_correct: int, n: int, unit: str = "fraction") -> float:
    """``n_correct / n`` (``unit="fraction"``, 0-1) or ``100 * n_correct / n`` (``unit="percent"``, 0-100,
    computed in this order: the public AgrI script's formula, so that equal counts give equal numbers);
    NaN when ``n`` is 0.

    Examples
    --------
    >>> accuracy_from_counts(3, 4)
    0.75
    >>> accuracy_from_counts(3, 4, unit="percent")
    75.0
    """
    if unit not in ("fraction", "percent"):
        raise ValueError(f"unit must be 'fraction' or 'percent', not {unit!r}")
    if not n:
        return float("nan")
    return 100.0 * n_correct / n if unit == "percent" else n_correct / n


def confusion_matrix(y_true: Sequence[str], y_pred: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """Counts C[i, j] of rows with true class labels[i] predicted as labels[j].

    Examples
    --------
    >>> y_true = ["oak", "oak", "ash", "tipu"]
    >>> y_pred = ["oak", "ash", "ash", "oak"]
    >>> confusion_matrix(y_true, y_pred, ["ash", "oak", "tipu"]).tolist()  # rows: true; columns: predicted
    [[1, 0, 0], [1, 1, 0], [0, 1, 0]]
    """
    t, p = _arrays(y_true, y_pred)
    index = {c: i for i, c in enumerate(labels)}
    missing = {c for c in set(t.tolist()) | set(p.tolist()) if c not in index}
    if missing:
        raise ValueError(f"labels {sorted(missing)} are not in the label list")
    ti = np.fromiter((index[c] for c in t), dtype=np.int64, count=len(t))
    pi = np.fromiter((index[c] for c in p), dtype=np.int64, count=len(p))
    k = len(labels)
    return np.bincount(ti * k + pi, minlength=k * k).reshape(k, k)


def per_class(y_true: Sequence[str], y_pred: Sequence[str], labels: Sequence[str]) -> dict[str, dict[str, float]]:
    """precision_c = tp_c / predicted_c, recall_c = tp_c / true_c, F1_c = 2 tp_c / (true_c + predicted_c) (0 where a
    denominator is 0), and support_c = true_c, for each class of ``labels``.

    Examples
    --------
    >>> y_true = ["oak", "oak", "ash", "tipu"]
    >>> y_pred = ["oak", "ash", "ash", "oak"]
    >>> per_class(y_true, y_pred, ["ash", "oak", "tipu"])["ash"]  # tp 1, true 1, predicted 2
    {'precision': 0.5, 'recall': 1.0, 'f1': 0.6666666666666666, 'support': 1}
    >>> per_class(y_true, y_pred, ["ash", "oak", "tipu"])["tipu"]  # never predicted: 0, not NaN
    {'precision': 0.0, 'recall': 0.0, 'f1': 0.0, 'support': 1}
    """
    cm = confusion_matrix(y_true, y_pred, labels)
    tp = np.diag(cm).astype(float)
    true_c = cm.sum(axis=1).astype(float)
    pred_c = cm.sum(axis=0).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(pred_c > 0, tp / pred_c, 0.0)
        rec = np.where(true_c > 0, tp / true_c, 0.0)
        f1 = np.where(true_c + pred_c > 0, 2 * tp / (true_c + pred_c), 0.0)
    return {c: {"precision": float(prec[i]), "recall": float(rec[i]), "f1": float(f1[i]), "support": int(true_c[i])}
            for i, c in enumerate(labels)}


def balanced_accuracy(y_true: Sequence[str], y_pred: Sequence[str]) -> float:
    """mean_c recall_c over the classes c present in the truth (scikit-learn's ``balanced_accuracy_score``);
    NaN without rows.

    Examples
    --------
    >>> y_true = ["oak", "oak", "ash", "tipu"]
    >>> y_pred = ["oak", "ash", "ash", "oak"]
    >>> balanced_accuracy(y_true, y_pred)  # recall: ash 1/1, oak 1/2, tipu 0/1
    0.5
    """
    t, p = _arrays(y_true, y_pred)
    if not len(t):
        return float("nan")
    classes = sorted(set(t.tolist()))
    return float(np.mean([np.mean(p[t == c] == c) for c in classes]))


def macro_f1(y_true: Sequence[str], y_pred: Sequence[str]) -> float:
    """mean_c F1_c over the classes in truth or prediction (see ``per_class``); NaN without rows.

    Examples
    --------
    >>> y_true = ["oak", "oak", "ash", "tipu"]
    >>> y_pred = ["oak", "ash", "ash", "oak"]
    >>> round(macro_f1(y_true, y_pred), 4)  # F1: ash 2/3, oak 1/2, tipu 0
    0.3889
    """
    t, p = _arrays(y_true, y_pred)
    labels = sorted(set(t.tolist()) | set(p.tolist()))
    stats = per_class(t, p, labels)
    return float(np.mean([s["f1"] for s in stats.values()])) if labels else float("nan")


def group_accuracy(y_true: Sequence[str], y_pred: Sequence[str], groups: Sequence[str]) -> dict[str, float]:
    """Accuracy (fraction) within each group, sorted by group name.

    Examples
    --------
    >>> y_true = ["oak", "oak", "ash", "tipu"]
    >>> y_pred = ["oak", "ash", "ash", "oak"]
    >>> group_accuracy(y_true, y_pred, ["A", "A", "A", "B"])
    {'A': 0.6666666666666666, 'B': 0.0}
    """
    t, p = _arrays(y_true, y_pred)
    g = np.asarray(groups, dtype=object)
    return {str(name): accuracy(t[g == name], p[g == name]) for name in sorted(set(g.tolist()))}


def cross_group_accuracy(y_true: Sequence[str], y_pred: Sequence[str], groups: Sequence[str], own_group: str) -> float:
    """Accuracy (fraction) on the rows of every group except ``own_group`` (TOTO's cross-team test accuracy).

    Examples
    --------
    >>> y_true = ["oak", "oak", "ash", "tipu"]
    >>> y_pred = ["oak", "ash", "ash", "oak"]
    >>> cross_group_accuracy(y_true, y_pred, ["A", "A", "B", "B"], own_group="A")  # rows 2 and 3
    0.5
    """
    t, p = _arrays(y_true, y_pred)
    g = np.asarray(groups, dtype=object)
    keep = g != own_group
    return accuracy(t[keep], p[keep])


def validation_test_gap(val_accuracy: float, test_accuracy: float) -> float:
    """VTG = val_acc - test_acc, in the unit of the two accuracies: fractions give a fraction (the scorer's
    report, a run's ``vtg``), percents give percentage points (the CTV tables). Positive: validation
    overestimates the test.

    Examples
    --------
    >>> validation_test_gap(0.875, 0.5)
    0.375
    >>> validation_test_gap(87.5, 50.0)  # percents: percentage points
    37.5
    """
    return float(val_accuracy) - float(test_accuracy)
