"""The compiled label-set steps of ``agrieval-native`` against their numpy twins.

``sort_rows`` stands for ``LabelSets.from_flat``'s sort, ``take_rows`` for ``LabelSets.take``,
``match_rows`` for ``_Matches``' merge and ``class_counts`` for ``_per_class_by_split``'s counting: with
the compiled twins on and off, label sets, matches, per-class counts and every metric must be equal, not
close (the same integers, so the same floats). scikit-learn checks the metrics themselves in ``test_metrics_properties.py``, with the compiled
twins on where installed.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.runtime.metrics import multilabel
from scoring.runtime.reading import native
from scoring.runtime.reading.labelsets import LabelSets

pytestmark = pytest.mark.skipif(
    not native.available() and os.environ.get("AGRIEVAL_REQUIRE_NATIVE") != "1",
    reason="agrieval-native is not installed (pip install ./native; make test installs it)")


def numpy_twin(fn, *args, **kwargs):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(native, "COMPILED", None)
        return fn(*args, **kwargs)


rows_of_labels = st.lists(st.lists(st.integers(0, 40), max_size=7), min_size=1, max_size=30)


def _flat(rows: list[list[int]], scale: int) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.array([len(r) for r in rows], dtype=np.int64)
    flat = np.array([x * scale for r in rows for x in r], dtype=np.int64)
    return sizes, flat


@settings(max_examples=600, deadline=None)
@given(rows_of_labels, st.sampled_from([1, 1_000_003, 2**40]))
def test_from_flat_gives_the_numpy_label_sets(rows, scale):
    sizes, flat = _flat(rows, scale)
    got, got_repeat = LabelSets.from_flat(sizes, flat.copy())
    want, want_repeat = numpy_twin(LabelSets.from_flat, sizes, flat.copy())
    assert got.indptr.tolist() == want.indptr.tolist() and got.labels.tolist() == want.labels.tolist()
    assert got_repeat.tolist() == want_repeat.tolist()
    bits = max(int(flat.max()).bit_length(), 1) if len(flat) else 1
    assert got.keys(bits).tolist() == want.keys(bits).tolist()
    assert got.row_of_label.tolist() == want.row_of_label.tolist()
    mine = flat.copy()
    handed_over, _ = LabelSets.from_flat(sizes, mine, in_place=True)
    assert handed_over.labels.tolist() == want.labels.tolist()


def test_sort_rows_decline_what_numpy_must_mend():
    sizes = np.array([2], dtype=np.int64)
    assert native.sort_rows(sizes, np.array([3, 3])) is native.DECLINED  # a repeat: numpy removes it
    assert native.sort_rows(sizes, np.array([-1, 1])) is native.DECLINED
    assert native.sort_rows(np.array([3]), np.array([1, 2])) is native.DECLINED  # sizes past the labels
    assert native.sort_rows(np.array([1]), np.array([1, 2])) is native.DECLINED  # labels past the sizes
    assert native.sort_rows(np.array([2, 0, 1]), np.array([2, 1, 7])).tolist() == [1, 2, 7]


@st.composite
def aligned_pairs(draw):
    n = draw(st.integers(1, 25))
    labels = st.lists(st.integers(0, 30), max_size=8).map(lambda r: sorted(set(r)))
    truth = draw(st.lists(labels, min_size=n, max_size=n))
    pred = draw(st.lists(labels, min_size=n, max_size=n))
    split = draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))
    return truth, pred, np.array(split)


def _sets(rows, scale=1) -> LabelSets:
    return LabelSets.from_lists([[x * scale for x in r] for r in rows])


@settings(max_examples=500, deadline=None)
@given(aligned_pairs(), st.booleans())
def test_matches_and_every_metric_equal_the_numpy_twins(pair, vocabulary):
    truth, pred, split = pair
    y_true, y_pred = _sets(truth), _sets(pred)
    got = multilabel._Matches(y_true, y_pred)
    want = numpy_twin(multilabel._Matches, y_true, y_pred)
    assert got.keys.tolist() == want.keys.tolist()
    assert multilabel.true_positives(y_true, y_pred, matches=got).tolist() == \
        multilabel.true_positives(y_true, y_pred, matches=want).tolist()
    # a vocabulary of the even labels and 31: a label outside it (odd) sends the counting to numpy's codes
    class_codes = None
    if vocabulary:
        class_codes = np.full(32, -1, dtype=np.int32)
        known = list(range(0, 31, 2)) + [31]
        class_codes[known] = np.arange(len(known), dtype=np.int32)
    split_rows = {name: np.flatnonzero(split == k) for k, name in enumerate(["public", "private"])}
    split_rows = {name: rows for name, rows in split_rows.items() if len(rows)}
    if not split_rows:
        return
    groups = np.arange(len(truth)) // 3
    assert multilabel.metrics_by_split(y_true, y_pred, groups, split_rows, class_codes=class_codes) == \
        numpy_twin(multilabel.metrics_by_split, y_true, y_pred, groups, split_rows, class_codes=class_codes)


@settings(max_examples=400, deadline=None)
@given(rows_of_labels, st.data())
def test_take_gives_the_numpy_rows(rows, data):
    sets = _sets([sorted(set(r)) for r in rows])
    index = np.array(data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=2 * len(rows))), dtype=np.int64)
    got, want = sets.take(index), numpy_twin(sets.take, index)
    assert got.indptr.tolist() == want.indptr.tolist() and got.labels.tolist() == want.labels.tolist()


def test_take_rows_decline_an_index_out_of_range():
    sets = _sets([[1, 2], [3]])
    indptr = np.array([0, 1], dtype=np.int64)
    assert native.take_rows(sets.indptr, sets.labels, np.array([2]), indptr) is None
    assert native.take_rows(sets.indptr, sets.labels, np.array([-1]), indptr) is None
    assert native.take_rows(sets.indptr, sets.labels, np.array([0]), indptr) is None  # row 0 holds 2 labels


def test_class_counts_count_by_split_and_class():
    y = _sets([[0, 2], [2], [4, 0]])
    codes = np.array([0, -1, 1, -1, 2], dtype=np.int32)
    counts, tp = native.class_counts(y.indptr, y.labels, np.array([0, 1, 0]), 1, codes,
                                     matched=np.array([True, False, True, True, False]))
    assert counts.tolist() == [[2, 1, 1], [0, 1, 0]]
    assert tp.tolist() == [[2, 0, 0], [0, 1, 0]]
    assert native.class_counts(_sets([[1]]).indptr, np.array([1]), np.array([0]), 1, codes) is None  # no code
    assert native.class_counts(_sets([[9]]).indptr, np.array([9]), np.array([0]), 1, codes) is None  # past it
