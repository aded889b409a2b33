"""The primary metric as a mean over units: what the Ladder compares and the audit re-splits.

A competition's primary metric is a plain mean over *units* when it decomposes:

==================  ============  =============================================
primary metric      unit          value of one unit
==================  ============  =============================================
``transect_f1``     transect      mean F1_i over the unit's rows in the split
``group_accuracy``  team          accuracy over the unit's rows in the split
``sample_f1``       row (quadrat) F1_i
``sample_precision`` row          precision_i
``sample_recall``   row           recall_i
``accuracy``        row (image)   1 if y_i == yhat_i else 0
==================  ============  =============================================

so that ``primary(split) == mean(unit_values(split))`` (checked by the tests against the scorer).
Micro F1, macro F1 and balanced accuracy are not means over units: the Ladder refuses them.

``row_values`` gives each solution row's part (F1_i, correct_i...), ``row_units`` each row's unit
code; the audit recomputes the metric of any re-drawn split from these two (``split_score``).
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np

from .definition import CompetitionDefinition
from .metrics import multilabel
from .problems import HostError
from .reading.solution import Solution
from .reading.submission import Submission

# primary metric -> (units are the solution's groups?, per-row part)
_DECOMPOSABLE = {
    "transect_f1": (True, "f1"),
    "group_accuracy": (True, "correct"),
    "sample_f1": (False, "f1"),
    "sample_precision": (False, "precision"),
    "sample_recall": (False, "recall"),
    "accuracy": (False, "correct"),
}


def check_decomposable(definition: CompetitionDefinition, metric: str = "") -> str:
    """The metric (default: the primary) if it is a mean over units; a ``HostError`` otherwise."""
    metric = metric or definition.primary_metric
    if metric not in _DECOMPOSABLE:
        raise HostError("ladder_metric_unsupported",
                        f"{definition.name}'s metric {metric!r} is not a mean over units (images, quadrats, "
                        f"transects or teams), which the Ladder and the audit compare; supported: "
                        f"{', '.join(sorted(_DECOMPOSABLE))}")
    return metric


def unit_name(definition: CompetitionDefinition, metric: str = "") -> str:
    """What one unit is called: the grouping's name (transect, team) or 'row'."""
    grouped, _ = _DECOMPOSABLE[check_decomposable(definition, metric)]
    if grouped:
        return definition.grouping.name if definition.grouping else "group"
    return "row"


def row_units(sol: Solution, definition: CompetitionDefinition, metric: str = "") -> Tuple[np.ndarray, List[str]]:
    """Each solution row's unit code (0..U-1) and the units' names."""
    grouped, _ = _DECOMPOSABLE[check_decomposable(definition, metric)]
    if grouped:
        codes, names = sol.group_codes
        return np.asarray(codes, dtype=np.int64), list(names)
    n = len(sol.split)
    return np.arange(n, dtype=np.int64), [str(i) for i in range(n)]


def row_values(sub: Submission, sol: Solution, definition: CompetitionDefinition, order: np.ndarray,
               metric: str = "") -> np.ndarray:
    """Each solution row's part of the metric (float, in the solution's row order)."""
    _, part = _DECOMPOSABLE[check_decomposable(definition, metric)]
    if definition.task == "multilabel":
        p, r, f = multilabel.sample_scores(sol.labels, sub.labels.take(order),
                                           empty_both=definition.empty_both_score)
        return {"f1": f, "precision": p, "recall": r}[part]
    truth = np.asarray(sol.classes, dtype=object)
    predicted = np.asarray(sub.classes, dtype=object)[np.asarray(order, dtype=np.int64)]
    return (truth == predicted).astype(float)


def split_score(values: np.ndarray, units: np.ndarray, rows: np.ndarray) -> float:
    """The metric on ``rows``: the mean over the units present of each unit's mean value."""
    return float(np.mean(unit_values(values, units, rows)))


def unit_values(values: np.ndarray, units: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The mean value of each unit over ``rows``, for the units that have rows there, by unit code."""
    codes = units[rows]
    sums = np.bincount(codes, weights=values[rows])
    counts = np.bincount(codes)
    present = counts > 0
    return sums[present] / counts[present]


def public_unit_values(sub: Submission, sol: Solution, definition: CompetitionDefinition,
                       order: np.ndarray) -> List[float]:
    """The public split's unit values of the primary metric (the Ladder's input), by unit code."""
    units, _ = row_units(sol, definition)
    values = row_values(sub, sol, definition, order)
    return unit_values(values, units, np.flatnonzero(sol.split == "public")).tolist()
