"""Multi-label metrics on ``LabelSets`` (PlantCLEF).

Notation for row i: T_i true set, P_i predicted set, tp_i = |T_i & P_i|.

- sample F1:      F1_i = 2 tp_i / (|T_i| + |P_i|), and ``empty_both`` when T_i = P_i = {}
- sample precision: tp_i / |P_i|; recall: tp_i / |T_i|; a 0/0 is ``empty_both`` when both sets
  are empty and 0 otherwise (an empty prediction for a non-empty truth scores 0)
- transect F1:    mean over transects g of (mean of F1_i over the rows of g): a transect
  surveyed several times counts once
- micro F1:       2 sum tp_i / (sum |T_i| + sum |P_i|)
- macro F1:       mean over classes c in (union of true and predicted labels) of
                  2 tp_c / (|true rows of c| + |predicted rows of c|)

Each formula is written once, in ``metrics_by_split`` (what the scorer calls: every metric of each
split from one matching of all rows); the public functions ``transect_f1``, ``sample_f1`` ... are views
of it on all rows, so that the number a function returns is the number the report shows.

Nothing here builds a dense rows x classes matrix: rows and labels are combined
into one sorted int64 key per (row, label) pair, and the pairs of both sides
are matched by one stable sort of the two sorted runs (a linear merge).

The examples in the docstrings share these three rows (a ``LabelSets`` holds one label set per row)::

    row   true     predicted   tp   F1_i
    0     {1, 2}   {1}         1    2*1 / (2 + 1) = 2/3
    1     {3}      {3, 6}      1    2*1 / (1 + 2) = 2/3
    2     {4, 5}   {}          0    0

They run as doctests (``tests/scoring/runtime/test_metric_examples.py``), and
``tests/scoring/metrics/test_examples_against_sklearn.py`` checks every shown number against scikit-learn.
"""

from __future__ import annotations

import numpy as np

from ..labelsets import LabelSets

__all__ = ["transect_f1", "sample_f1", "sample_precision", "sample_recall", "micro_f1", "macro_f1", "all_metrics",
           "metrics_by_split", "sample_scores", "grouped_mean"]


def _check_aligned(y_true: LabelSets, y_pred: LabelSets) -> None:
    if y_true.n_rows != y_pred.n_rows:
        raise ValueError(f"y_true has {y_true.n_rows} rows but y_pred has {y_pred.n_rows}")


class _Matches:
    """The (row, label) pairs found in both y_true and y_pred, as keys ``row << bits | label``."""

    def __init__(self, y_true: LabelSets, y_pred: LabelSets):
        _check_aligned(y_true, y_pred)
        self.n_rows = y_pred.n_rows
        top = max(int(y_true.labels.max()) if len(y_true.labels) else 0,
                  int(y_pred.labels.max()) if len(y_pred.labels) else 0)
        self.bits = max(top.bit_length(), 1)
        if not len(y_pred.labels) or not len(y_true.labels):
            self._keys = np.zeros(0, dtype=np.int64)
        elif self.n_rows.bit_length() + self.bits <= 62:
            self._keys = self._merged_keys(y_true, y_pred)
        else:  # labels too large for one int64 key: a two-key sort of the pairs, same idea
            rows = np.concatenate([y_true.row_of_label, y_pred.row_of_label])
            labels = np.concatenate([y_true.labels, y_pred.labels])
            order = np.lexsort((labels, rows))
            rows, labels = rows[order], labels[order]
            same = (rows[1:] == rows[:-1]) & (labels[1:] == labels[:-1])
            self.bits = 0
            self._rows, self._labels = rows[1:][same], labels[1:][same]

    @property
    def keys(self) -> np.ndarray:
        return self._keys

    def _merged_keys(self, y_true: LabelSets, y_pred: LabelSets) -> np.ndarray:
        """The keys ``row << bits | label`` found on both sides, ascending."""
        # each side's keys are unique and increasing (rows ascending, labels sorted within a row): a
        # pair present on both sides shows up as two equal neighbours once the two runs are merged, and
        # a stable sort of two sorted runs is one linear merge (timsort). (A prediction in another row
        # order is moved into the solution's first, ``LabelSets.take``: a full sort of its keys in place
        # took 0.21 s for 3.6 million keys on the benchmark's AMD EPYC, where numpy's sort is scalar;
        # the move and the merge 0.06 s)
        n_true = len(y_true.labels)
        both = np.empty(n_true + len(y_pred.labels), dtype=np.int64)  # each side's keys written in place
        y_true.keys(self.bits, out=both[:n_true])
        y_pred.keys(self.bits, out=both[n_true:])
        both.sort(kind="stable")
        later = both[1:]
        return np.compress(later == both[:-1], later)  # (compress: faster than a boolean index)

    @property
    def rows(self) -> np.ndarray:
        return self._rows if self.bits == 0 else self.keys >> self.bits

    @property
    def labels(self) -> np.ndarray:
        return self._labels if self.bits == 0 else self.keys & ((1 << self.bits) - 1)


def true_positives(y_true: LabelSets, y_pred: LabelSets, *, matches: _Matches | None = None) -> np.ndarray:
    """tp_i per row (``matches``: ``_Matches(y_true, y_pred)`` when already computed)."""
    matches = _Matches(y_true, y_pred) if matches is None else matches
    return np.bincount(matches.rows, minlength=matches.n_rows).astype(np.int64)


def sample_scores(y_true: LabelSets, y_pred: LabelSets, *, empty_both: float = 1.0,
                  tp: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-row precision, recall and F1 (see the module docstring for the 0/0 rules).

    precision_i = tp_i / |P_i|, recall_i = tp_i / |T_i|, F1_i = 2 tp_i / (|T_i| + |P_i|).

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> precision, recall, f1 = sample_scores(y_true, y_pred)
    >>> precision.tolist(), recall.tolist(), [round(v, 4) for v in f1.tolist()]
    ([1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.6667, 0.6667, 0.0])
    """
    tp = (true_positives(y_true, y_pred) if tp is None else tp).astype(float)
    n_true = y_true.sizes.astype(float)
    n_pred = y_pred.sizes.astype(float)
    both_empty = (n_true == 0) & (n_pred == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(n_pred > 0, tp / n_pred, 0.0)
        recall = np.where(n_true > 0, tp / n_true, 0.0)
        f1 = np.where(n_true + n_pred > 0, 2 * tp / (n_true + n_pred), 0.0)
    for arr in (precision, recall, f1):
        arr[both_empty] = empty_both
    return precision, recall, f1


def grouped_mean(values: np.ndarray, group_codes: np.ndarray) -> float:
    """Two-level mean: mean within each group, then mean of the group means, mean_g mean_{i in g} v_i.

    Examples
    --------
    >>> grouped_mean([1.0, 0.0, 0.5], [0, 0, 1])  # group 0: 0.5, group 1: 0.5
    0.5
    >>> grouped_mean([1.0, 0.0, 0.0], [0, 1, 1])  # a group of one row counts as much as a group of two
    0.5
    """
    values = np.asarray(values, dtype=float)
    group_codes = np.asarray(group_codes, dtype=np.int64)
    if len(values) != len(group_codes):
        raise ValueError("values and group_codes differ in length")
    if not len(values):
        return float("nan")
    if group_codes.min() >= 0 and group_codes.max() <= 4 * len(group_codes):
        codes = group_codes  # dense codes (``group_codes`` gives 0..G-1): absent groups just count 0
    else:
        _, codes = np.unique(group_codes, return_inverse=True)
    sums = np.bincount(codes, weights=values)
    counts = np.bincount(codes)
    present = counts > 0
    return float(np.mean(sums[present] / counts[present]))


def transect_f1(y_true: LabelSets, y_pred: LabelSets, group_codes: np.ndarray, *, empty_both: float = 1.0) -> float:
    """PlantCLEF's primary score: F1 per quadrat, averaged within transects, then across transects,
    mean_g mean_{i in g} F1_i (``group_codes``: the transect of each row).

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> import numpy as np
    >>> round(transect_f1(y_true, y_pred, np.array([0, 0, 1])), 4)  # mean(mean(2/3, 2/3), 0)
    0.3333
    >>> round(transect_f1(y_true, y_pred, np.array([0, 1, 2])), 4)  # one row per transect: sample F1
    0.4444
    """
    return all_metrics(y_true, y_pred, group_codes, empty_both=empty_both)["transect_f1"]


def sample_f1(y_true: LabelSets, y_pred: LabelSets, *, empty_both: float = 1.0) -> float:
    """mean_i F1_i (scikit-learn's ``f1_score(average='samples')``, ``zero_division=empty_both``).

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> round(sample_f1(y_true, y_pred), 4)  # (2/3 + 2/3 + 0) / 3
    0.4444
    >>> sample_f1(LabelSets.from_lists([[]]), LabelSets.from_lists([[]]))  # nothing to find, nothing found
    1.0
    """
    return _on_all_rows(y_true, y_pred, empty_both)["sample_f1"]


def sample_precision(y_true: LabelSets, y_pred: LabelSets, *, empty_both: float = 1.0) -> float:
    """mean_i tp_i / |P_i| (an empty prediction: 0, or ``empty_both`` when the truth is empty too).

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> sample_precision(y_true, y_pred)  # (1/1 + 1/2 + 0) / 3
    0.5
    """
    return _on_all_rows(y_true, y_pred, empty_both)["sample_precision"]


def sample_recall(y_true: LabelSets, y_pred: LabelSets, *, empty_both: float = 1.0) -> float:
    """mean_i tp_i / |T_i| (an empty truth: 0, or ``empty_both`` when the prediction is empty too).

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> sample_recall(y_true, y_pred)  # (1/2 + 1/1 + 0/2) / 3
    0.5
    """
    return _on_all_rows(y_true, y_pred, empty_both)["sample_recall"]


def micro_f1(y_true: LabelSets, y_pred: LabelSets, *, empty_both: float = 1.0) -> float:
    """2 sum tp_i / (sum |T_i| + sum |P_i|) over all rows (``empty_both`` when both sums are 0).

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> micro_f1(y_true, y_pred)  # 2 * 2 / (5 + 3)
    0.5
    """
    return _on_all_rows(y_true, y_pred, empty_both)["micro_f1"]


def macro_f1(y_true: LabelSets, y_pred: LabelSets, *, empty_both: float = 1.0) -> float:
    """mean_c 2 tp_c / (true_c + pred_c) over the classes present in truth or prediction (``empty_both``
    when there is none).

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> round(macro_f1(y_true, y_pred), 4)  # classes 1..6; F1_c = 1 for 1 and 3, 0 for 2, 4, 5, 6: 2 / 6
    0.3333
    """
    return _on_all_rows(y_true, y_pred, empty_both)["macro_f1"]


def _on_all_rows(y_true: LabelSets, y_pred: LabelSets, empty_both: float) -> dict[str, float]:
    """``all_metrics`` of the metrics that need no groups (every row its own group)."""
    return all_metrics(y_true, y_pred, np.arange(y_true.n_rows, dtype=np.int64), empty_both=empty_both)


def _macro(tp_c: np.ndarray, true_c: np.ndarray, pred_c: np.ndarray, *, empty_both: float) -> float:
    """2 tp_c / (|true rows of c| + |predicted rows of c|), averaged over the classes counted."""
    return float(np.mean(2 * tp_c / (true_c + pred_c))) if len(tp_c) else empty_both


def all_metrics(y_true: LabelSets, y_pred: LabelSets, group_codes: np.ndarray, *, empty_both: float = 1.0
                ) -> dict[str, float]:
    """Every metric of this module on all rows (at least one), matching (row, label) pairs once.

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> import numpy as np
    >>> {name: round(value, 4) for name, value in all_metrics(y_true, y_pred, np.array([0, 0, 1])).items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'transect_f1': 0.3333, 'sample_f1': 0.4444, 'micro_f1': 0.5, 'macro_f1': 0.3333, 'sample_precision': 0.5,
     'sample_recall': 0.5}
    """
    every_row = np.arange(y_true.n_rows, dtype=np.int64)
    return metrics_by_split(y_true, y_pred, group_codes, {"all": every_row}, empty_both=empty_both)["all"]


def metrics_by_split(y_true: LabelSets, y_pred: LabelSets, group_codes: np.ndarray,
                     split_rows: dict[str, np.ndarray],
                     *, empty_both: float = 1.0, class_codes: np.ndarray | None = None) -> dict[str, dict[str, float]]:
    """``all_metrics`` on the rows ``split_rows[name]`` (ascending, disjoint) of each split, from one
    matching of all rows: no copy of each split's label sets. The same numbers as ``all_metrics`` on
    each split's rows alone (the same values summed in the same order).

    ``class_codes``: optionally, a number 0..K-1 for each label (indexed by label, ascending with the
    label, -1 for none), e.g. the vocabulary's: then per-class counts take K counters per split.

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> y_pred = LabelSets.from_lists([[1], [3, 6], []])
    >>> import numpy as np
    >>> by_split = metrics_by_split(y_true, y_pred, np.array([0, 0, 1]), {"public": np.array([0, 1]),
    ...                                                                    "private": np.array([2])})
    >>> round(by_split["public"]["sample_f1"], 4), by_split["private"]["sample_f1"]
    (0.6667, 0.0)
    """
    _check_aligned(y_true, y_pred)
    matches = _Matches(y_true, y_pred)
    tp = true_positives(y_true, y_pred, matches=matches)
    p, r, f = sample_scores(y_true, y_pred, empty_both=empty_both, tp=tp)
    n_true, n_pred = y_true.sizes, y_pred.sizes
    names = list(split_rows)
    split_of_row = np.full(y_true.n_rows, len(names), dtype=np.int64)  # len(names): a row of no split
    for k, name in enumerate(names):
        split_of_row[split_rows[name]] = k
    per_class = _per_class_by_split(y_true, y_pred, matches, split_of_row, len(names), class_codes)
    out = {}
    for k, name in enumerate(names):
        rows = split_rows[name]
        if not len(rows):
            raise ValueError(f"split {name!r} has no rows")
        denom = int(n_true[rows].sum()) + int(n_pred[rows].sum())
        tp_c, true_c, pred_c = per_class[k]
        out[name] = {
            "transect_f1": grouped_mean(f[rows], group_codes[rows]),
            "sample_f1": float(f[rows].mean()),
            "micro_f1": empty_both if denom == 0 else 2 * int(tp[rows].sum()) / denom,
            "macro_f1": _macro(tp_c, true_c, pred_c, empty_both=empty_both),
            "sample_precision": float(p[rows].mean()),
            "sample_recall": float(r[rows].mean()),
        }
    return out


def _per_class_by_split(y_true: LabelSets, y_pred: LabelSets, matches: _Matches, split_of_row: np.ndarray,
                        n_splits: int, class_codes: np.ndarray | None
                        ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(tp, true count, predicted count) of each class present in the split's truth or prediction, by split
    and in ascending label order, counted for all splits at once (``split_of_row``: 0..n_splits - 1, or
    n_splits for a row of no split)."""
    if not len(y_true.labels) + len(y_pred.labels):
        return [(np.zeros(0, dtype=np.int64),) * 3 for _ in range(n_splits)]
    true_c, pred_c, tp_c = _counts(y_true, y_pred, matches, split_of_row, n_splits, class_codes)
    out = []
    for k in range(n_splits):
        present = np.flatnonzero(true_c[k] + pred_c[k])
        out.append((tp_c[k][present], true_c[k][present], pred_c[k][present]))
    return out


def _counts(y_true: LabelSets, y_pred: LabelSets, matches: _Matches, split_of_row: np.ndarray, n_splits: int,
            class_codes: np.ndarray | None) -> list[np.ndarray]:
    """[true, predicted, true positive] counts, each (n_splits + 1, classes): by split, then class code."""
    found = _table_codes(y_true, y_pred, matches, class_codes) if class_codes is not None else None
    codes, n_codes = found if found is not None else _label_codes(y_true, y_pred, matches, n_splits)
    size = (n_splits + 1) * n_codes
    # One side at a time, its rows made and dropped in turn, so that the three sides' codes and rows are never
    # held at once (that would be the peak of a large score). One buffer for the slots: fresh memory costs
    # more than the counting, in page faults.
    slot_type = np.int32 if size < 2**31 else np.int64
    split_of_row = split_of_row.astype(slot_type, copy=False)
    buffer = np.empty(max(map(len, codes)), dtype=slot_type)
    counted = []
    for side in range(3):
        row = y_true.row_of_label if side == 0 else y_pred.row_of_label if side == 1 else matches.rows
        slot = buffer[:len(row)]
        np.take(split_of_row, row, out=slot, mode="clip")  # (rows are in range; "raise" would copy via a buffer)
        del row
        slot *= n_codes
        slot += codes[side]
        codes[side] = None  # dropped once counted
        counted.append(np.bincount(slot, minlength=size).reshape(n_splits + 1, n_codes))
    true_c, pred_c, tp_c = counted
    return [true_c, pred_c, tp_c]


def _table_codes(y_true: LabelSets, y_pred: LabelSets, matches: _Matches, class_codes: np.ndarray
                 ) -> tuple[list[np.ndarray], int] | None:
    """``_label_codes`` from a table of codes by label; None when a label is past it or not numbered."""
    top = max(int(y_true.labels.max()) if len(y_true.labels) else 0,
              int(y_pred.labels.max()) if len(y_pred.labels) else 0)
    if top >= len(class_codes):
        return None
    codes = [class_codes[y_true.labels], class_codes[y_pred.labels], class_codes[matches.labels]]
    if any(len(c) and int(c.min()) < 0 for c in codes[:2]):
        return None
    # codes ascend with the label: the last entry, when numbered, is the largest (a max over the 1.7 million
    # entries of the PlantCLEF table was a tenth of a 2,105-row upload's scoring)
    last = int(class_codes[-1]) if len(class_codes) else -1
    return codes, (last if last >= 0 else int(class_codes.max())) + 1


def _label_codes(y_true: LabelSets, y_pred: LabelSets, matches: _Matches, n_splits: int
                 ) -> tuple[list[np.ndarray], int]:
    """Codes ascending with the labels, for the labels of truth, prediction and matches; and how many."""
    both = np.concatenate([y_true.labels, y_pred.labels])
    n_t = len(y_true.labels)
    low = int(both.min())
    span = int(both.max()) - low + 1
    if span < 50_000_000 and (n_splits + 1) * span <= 8 * len(both):
        # species ids span < 2e6: counting by id (from the smallest) is linear, no sort needed; worth it
        # only when the counters (one per id and split) are not many more than the labels counted
        # (int64: one side's int32 labels may lie far below the other's smallest, or be none at all)
        codes = [np.subtract(side, low, dtype=np.int64) for side in (y_true.labels, y_pred.labels, matches.labels)]
        return codes, span
    classes, inv = np.unique(both, return_inverse=True)
    return [inv[:n_t], inv[n_t:], np.searchsorted(classes, matches.labels)], len(classes)
