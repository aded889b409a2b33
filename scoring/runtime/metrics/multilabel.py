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
``tests/scoring/runtime/metrics/test_examples_against_sklearn.py`` checks every shown number against scikit-learn.
"""

from __future__ import annotations

import numpy as np

from ..labelsets import LabelSets

__all__ = ["transect_f1", "sample_f1", "sample_precision", "sample_recall", "micro_f1", "macro_f1", "all_metrics",
           "metrics_by_split", "sample_scores", "grouped_mean", "Groups", "TrueSide"]


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
        # A block of rows at a time (issue 54): the two sides' keys of all rows at once were 29 MB of fresh
        # memory for 200,000 rows, the peak of a fresh score, for the same merges.
        found = []
        for lo in range(0, self.n_rows, _MATCH_ROWS):
            rows = (lo, min(lo + _MATCH_ROWS, self.n_rows))
            n_true = int(y_true.indptr[rows[1]] - y_true.indptr[lo])
            both = np.empty(n_true + int(y_pred.indptr[rows[1]] - y_pred.indptr[lo]), dtype=np.int64)
            y_true.keys(self.bits, out=both[:n_true], rows=rows)  # each side's keys written in place
            y_pred.keys(self.bits, out=both[n_true:], rows=rows)
            both.sort(kind="stable")
            later = both[1:]
            found.append(np.compress(later == both[:-1], later))  # (compress: faster than a boolean index)
        return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)

    @property
    def rows(self) -> np.ndarray:
        return self._rows if self.bits == 0 else self.keys >> self.bits

    @property
    def labels(self) -> np.ndarray:
        return self._labels if self.bits == 0 else self.keys & ((1 << self.bits) - 1)


# Rows per step of _Matches._merged_keys and of the counting (about 20,000 keys of PlantCLEF rows). Small, as the reader's
# blocks (``LabelSets._ROW_BLOCK``, ``digit_lists._CELL_BLOCK``): a step's arrays stay under malloc's 128 KiB mmap
# threshold, so a warm process scoring upload after upload reuses them without page faults (with 16,384 rows a
# step a real 2,105-row upload cost 8-10% more CPU than before the steps).
_MATCH_ROWS = 1 << 10


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
    return Groups(group_codes).mean(values)


class Groups:
    """The groups of ``grouped_mean``, found once (a solution's transects), then ``mean`` of any values.

    Examples
    --------
    >>> groups = Groups([0, 0, 1])
    >>> groups.n_groups, groups.mean([1.0, 0.0, 0.5]), groups.mean([0.0, 0.0, 1.0])
    (2, 0.5, 0.5)
    """

    def __init__(self, group_codes: np.ndarray):
        group_codes = np.asarray(group_codes, dtype=np.int64)
        self.n_rows = len(group_codes)
        if not self.n_rows:
            codes = group_codes
        elif group_codes.min() >= 0 and group_codes.max() <= 4 * len(group_codes):
            codes = group_codes  # dense codes (``group_codes`` gives 0..G-1): absent groups just count 0
        else:
            _, codes = np.unique(group_codes, return_inverse=True)
        counts = np.bincount(codes)
        self._codes = codes
        self._present = counts > 0
        self._counts = counts[self._present]

    @property
    def n_groups(self) -> int:
        return len(self._counts)

    def mean(self, values: np.ndarray) -> float:
        """mean_g mean_{i in g} v_i (NaN for no row)."""
        values = np.asarray(values, dtype=float)
        if len(values) != self.n_rows:
            raise ValueError("values and group_codes differ in length")
        if not len(values):
            return float("nan")
        sums = np.bincount(self._codes, weights=values)
        return float(np.mean(sums[self._present] / self._counts))


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
                     *, empty_both: float = 1.0, class_codes: np.ndarray | None = None,
                     truth: TrueSide | None = None) -> dict[str, dict[str, float]]:
    """``all_metrics`` on the rows ``split_rows[name]`` (ascending, disjoint) of each split, from one
    matching of all rows: no copy of each split's label sets. The same numbers as ``all_metrics`` on
    each split's rows alone (the same values summed in the same order).

    ``class_codes``: optionally, a number 0..K-1 for each label (indexed by label, ascending with the
    label, -1 for none), e.g. the vocabulary's: then per-class counts take K counters per split.
    ``truth``: ``TrueSide(y_true, group_codes, split_rows, class_codes=class_codes)`` when already made (a
    warm grader's solution: what depends on the truth alone is then not done again for each prediction).

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
    if truth is None:
        truth = TrueSide(y_true, group_codes, split_rows, class_codes=class_codes)
    elif not truth.made_from(y_true, group_codes, split_rows, class_codes):
        raise ValueError("truth was made from other label sets, groups, splits or class codes")
    matches = _Matches(y_true, y_pred)
    tp = true_positives(y_true, y_pred, matches=matches)
    p, r, f = sample_scores(y_true, y_pred, empty_both=empty_both, tp=tp)
    n_pred = y_pred.sizes
    macro = _macro_by_split(y_pred, matches, truth, empty_both)
    out = {}
    for k, name in enumerate(truth.names):
        rows = split_rows[name]
        f_rows = f[rows]
        denom = truth.n_true_by_split[k] + int(n_pred[rows].sum())
        out[name] = {
            "transect_f1": truth.groups[k].mean(f_rows),
            "sample_f1": float(f_rows.mean()),
            "micro_f1": empty_both if denom == 0 else 2 * int(tp[rows].sum()) / denom,
            "macro_f1": macro[k],
            "sample_precision": float(p[rows].mean()),
            "sample_recall": float(r[rows].mean()),
        }
    return out


class TrueSide:
    """What ``metrics_by_split`` finds from the truth, its groups, its splits and the class codes alone: made
    once for a solution, it is reused by every prediction scored against it (a warm grader, ``scorer``), which
    then pays for its own side only. The numbers are those of a fresh one
    (``tests/scoring/runtime/metrics/test_metrics_once.py``).

    Examples
    --------
    >>> from agrieval.scoring.runtime import LabelSets
    >>> import numpy as np
    >>> y_true = LabelSets.from_lists([[1, 2], [3], [4, 5]])
    >>> groups, splits = np.array([0, 0, 1]), {"public": np.array([0, 1]), "private": np.array([2])}
    >>> truth = TrueSide(y_true, groups, splits)
    >>> for y_pred in (LabelSets.from_lists([[1], [3, 6], []]), LabelSets.from_lists([[], [], []])):
    ...     print(round(metrics_by_split(y_true, y_pred, groups, splits, truth=truth)["public"]["sample_f1"], 4))
    0.6667
    0.0
    """

    def __init__(self, y_true: LabelSets, group_codes: np.ndarray, split_rows: dict[str, np.ndarray], *,
                 class_codes: np.ndarray | None = None):
        self._made_from = (y_true, group_codes, split_rows, class_codes)
        self.names = list(split_rows)
        n_true = y_true.sizes
        split_of_row = np.full(y_true.n_rows, len(self.names), dtype=np.int64)  # len(names): a row of no split
        for k, name in enumerate(self.names):
            rows = split_rows[name]
            if not len(rows):
                raise ValueError(f"split {name!r} has no rows")
            split_of_row[rows] = k
        self.split_of_row = split_of_row
        self._split_of_row: dict[np.dtype, np.ndarray] = {}
        self.n_true_by_split = [int(n_true[split_rows[name]].sum()) for name in self.names]
        self.groups = [Groups(np.asarray(group_codes)[split_rows[name]]) for name in self.names]
        self._table: tuple[np.ndarray, int] | None | bool = False  # (made on first use: ``table_counts``)

    def made_from(self, y_true: LabelSets, group_codes: np.ndarray, split_rows: dict[str, np.ndarray],
                  class_codes: np.ndarray | None) -> bool:
        """Whether this was made from these very objects."""
        return all(a is b for a, b in zip(self._made_from, (y_true, group_codes, split_rows, class_codes)))

    @property
    def y_true(self) -> LabelSets:
        return self._made_from[0]

    @property
    def class_codes(self) -> np.ndarray | None:
        return self._made_from[3]

    def table_counts(self) -> tuple[np.ndarray, int] | None:
        """The true labels' counts by split, then class code from ``class_codes`` ((splits + 1, classes)), and
        the number of classes; None without class codes or when a true label is past them or not numbered."""
        if self._table is False:
            self._table = None
            if self.class_codes is not None:
                n_codes = _n_table_codes(self.class_codes)
                counted = _table_side(self.y_true, self, n_codes)
                self._table = None if counted is None else (counted, n_codes)
        return self._table

    def split_of_row_as(self, dtype: np.dtype) -> np.ndarray:
        """The split of each row (0..n_splits - 1, n_splits for a row of no split) as ``dtype``."""
        kept = self._split_of_row.get(np.dtype(dtype))
        if kept is None:
            kept = self._split_of_row[np.dtype(dtype)] = self.split_of_row.astype(dtype)
        return kept


def _macro_by_split(y_pred: LabelSets, matches: _Matches, truth: TrueSide, empty_both: float) -> list[float]:
    """The macro F1 of each split: 2 tp_c / (|true rows of c| + |predicted rows of c|), averaged over the
    classes present in the split's truth or prediction in ascending label order (``empty_both`` when there is
    none), with the classes counted for all splits at once."""
    if not len(truth.y_true.labels) + len(y_pred.labels):
        return [empty_both] * len(truth.names)
    true_c, pred_c, tp_c = _counts(truth.y_true, y_pred, matches, truth)
    counted = true_c + pred_c  # (splits + 1, classes)
    n_codes = counted.shape[1]
    present = np.flatnonzero(counted)  # by split, then class: each split's classes one after the other
    f1_c = 2 * tp_c.take(present) / counted.take(present)
    bounds = np.searchsorted(present, np.arange(0, (len(truth.names) + 1) * n_codes, n_codes)).tolist()
    return [float(np.mean(f1_c[lo:hi])) if hi > lo else empty_both for lo, hi in zip(bounds, bounds[1:])]


def _counts(y_true: LabelSets, y_pred: LabelSets, matches: _Matches, truth: TrueSide) -> list[np.ndarray]:
    """[true, predicted, true positive] counts, each (n_splits + 1, classes): by split, then class code.

    One side at a time, so that the three sides' codes and rows are never held at once (they would be the peak
    of a large score); the true side's from ``truth`` when its class codes number every label, and then each
    side a block of entries at a time (``_table_side``)."""
    table = truth.table_counts()
    pred_c = _table_side(y_pred, truth, table[1]) if table is not None else None
    if pred_c is not None:
        true_c, n_codes = table
        return [true_c, pred_c, _table_side(matches, truth, n_codes)]
    codes, n_codes = _label_codes(y_true, y_pred, matches, len(truth.names))
    buffer = _slots(truth, n_codes, max(map(len, codes)))
    counted = []
    for side in range(3):
        row = y_true.row_of_label if side == 0 else y_pred.row_of_label if side == 1 else matches.rows
        counted.append(_count_by_split(row, codes[side], truth, n_codes, buffer))
        del row
        codes[side] = None  # dropped once counted
    return counted


def _slots(truth: TrueSide, n_codes: int, n: int) -> np.ndarray:
    """A buffer for ``_count_by_split``'s slots of up to ``n`` pairs."""
    return np.empty(n, dtype=np.int32 if (len(truth.names) + 1) * n_codes < 2**31 else np.int64)


def _count_by_split(row: np.ndarray, codes: np.ndarray, truth: TrueSide, n_codes: int, buffer: np.ndarray
                    ) -> np.ndarray:
    """How many of the (row, code) pairs fall in each split and code: (n_splits + 1, n_codes)."""
    n_splits = len(truth.names)
    slot = buffer[:len(row)]
    # (rows are in range; "raise" would copy via a buffer)
    np.take(truth.split_of_row_as(buffer.dtype), row, out=slot, mode="clip")
    slot *= n_codes
    slot += codes
    return np.bincount(slot, minlength=(n_splits + 1) * n_codes).reshape(n_splits + 1, n_codes)


def _table_side(side: LabelSets | _Matches, truth: TrueSide, n_codes: int) -> np.ndarray | None:
    """How many of a side's (row, label) entries fall in each split and class code of ``truth.class_codes``:
    (n_splits + 1, n_codes); None when a label is past the table or not numbered.

    A block of entries at a time: only the counters are whole. With few counters (a vocabulary's, by split)
    each block is counted at once; with many, the blocks' slots go into one buffer, counted once (a bincount
    of all the counters per block would cost more than the entries)."""
    class_codes = truth.class_codes
    n_splits = len(truth.names)
    size = (n_splits + 1) * n_codes
    split_of_row = truth.split_of_row_as(np.int32 if size < 2**31 else np.int64)
    by_block = size <= _BLOCK_COUNTERS
    counts = np.zeros(size, dtype=np.int64)
    slots = []
    for _, rows, labels in _entries(side):
        if len(labels) and int(labels.max()) >= len(class_codes):
            return None
        codes = class_codes.take(labels)
        if len(codes) and int(codes.min()) < 0:
            return None
        slot = split_of_row.take(rows, mode="clip")  # (rows are in range; "raise" would copy via a buffer)
        slot *= n_codes
        slot += codes
        if by_block:
            counts += np.bincount(slot, minlength=size)
        else:
            slots.append(slot)
    if slots:
        counts = np.bincount(np.concatenate(slots), minlength=size)
    return counts.reshape(n_splits + 1, n_codes)


_BLOCK_COUNTERS = 1 << 16  # counters a block's bincount may make (a vocabulary of 7,806 classes by 3 splits: 23,418)


def _entries(side: LabelSets | _Matches):
    """(first entry, rows, labels) of a side's entries (a label set's labels, or the matches), a block at a time."""
    if isinstance(side, LabelSets):
        for lo in range(0, side.n_rows, _MATCH_ROWS):
            hi = min(lo + _MATCH_ROWS, side.n_rows)
            first, last = int(side.indptr[lo]), int(side.indptr[hi])
            rows = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(side.indptr[lo:hi + 1]))
            yield first, rows, side.labels[first:last]
    elif side.bits == 0:  # (the rare matches of labels too large for one key: already rows and labels)
        yield 0, side.rows, side.labels
    else:
        step = _MATCH_ROWS * 8
        for lo in range(0, len(side.keys), step):
            keys = side.keys[lo:lo + step]
            yield lo, keys >> side.bits, keys & ((1 << side.bits) - 1)


def _n_table_codes(class_codes: np.ndarray) -> int:
    """How many codes a table of codes by label numbers."""
    # codes ascend with the label: the last entry, when numbered, is the largest (a max over the 1.7 million
    # entries of the PlantCLEF table was a tenth of a 2,105-row upload's scoring)
    last = int(class_codes[-1]) if len(class_codes) else -1
    return (last if last >= 0 else int(class_codes.max()) if len(class_codes) else -1) + 1


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
