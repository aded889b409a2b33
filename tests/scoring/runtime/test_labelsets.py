"""``LabelSets`` against plain Python sets: building (any order, repeats), taking rows, per-row matches.

``from_flat`` goes a block of rows at a time (a sort-free step for rows already
sorted, repeats dropped where a block has some), and has a lexsort path for
labels too large for one int64 key; ``take`` hands its row index to the
result. Each must give what sorting each row's set in Python gives.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime.labelsets import LabelSets
from agrieval.scoring.runtime.metrics import multilabel

small = st.integers(0, 40)
huge = st.integers(0, 10**18)  # (row, label) no longer fits one int64 key: the lexsort path
rows_of = st.lists(st.lists(st.one_of(small, small, small, huge), max_size=6), max_size=30)


@settings(max_examples=400, deadline=None)
@given(rows_of)
def test_from_flat_is_sorted_unique_rows_and_flags_repeats(lists):
    sizes = np.array([len(x) for x in lists], dtype=np.int64)
    flat = np.array([v for x in lists for v in x], dtype=np.int64)
    sets, had_repeat = LabelSets.from_flat(sizes, flat)
    assert sets.to_lists() == [sorted(set(x)) for x in lists]
    assert had_repeat.tolist() == [len(set(x)) < len(x) for x in lists]
    assert sets.row_of_label.tolist() == [i for i, x in enumerate(lists) for _ in set(x)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(small, max_size=6), max_size=30), st.integers(1, 8), st.booleans())
def test_from_flat_block_by_block_is_python_sets(lists, block, narrow):
    """Rows a block at a time (``_ROW_BLOCK``), labels given as int32 (as ``digit_lists`` reads 7-digit ids, and
    then sorted back into the given array) or int64: repeats dropped and flagged in whichever block they fall,
    rows cut at any block boundary."""
    from agrieval.scoring.runtime import labelsets

    sizes = np.array([len(x) for x in lists], dtype=np.int64)
    flat = np.array([v for x in lists for v in x], dtype=np.int32 if narrow else np.int64)
    saved = labelsets._ROW_BLOCK
    labelsets._ROW_BLOCK = block
    try:
        sets, had_repeat = LabelSets.from_flat(sizes, flat.copy(), overwrite=narrow)  # (int32: sorted in place)
    finally:
        labelsets._ROW_BLOCK = saved
    assert sets.to_lists() == [sorted(set(x)) for x in lists]
    assert had_repeat.tolist() == [len(set(x)) < len(x) for x in lists]
    assert sets.indptr.tolist() == np.cumsum([0] + [len(set(x)) for x in lists]).tolist()


@settings(max_examples=200, deadline=None)
@given(rows_of, st.integers(1, 8), st.data())
def test_take_block_by_block_is_python_lists(lists, block, data):
    """``take`` gathers a block of rows at a time (``_ROW_BLOCK``): empty rows and rows repeated or left out,
    wherever the blocks cut."""
    from agrieval.scoring.runtime import labelsets

    sets = LabelSets.from_lists(lists)
    index = data.draw(st.lists(st.integers(0, max(len(lists) - 1, 0)), max_size=len(lists) + 3)) if lists else []
    saved = labelsets._ROW_BLOCK
    labelsets._ROW_BLOCK = block
    try:
        taken = sets.take(np.array(index, dtype=np.int64))
    finally:
        labelsets._ROW_BLOCK = saved
    assert taken.to_lists() == [sorted(set(lists[i])) for i in index]


@settings(max_examples=300, deadline=None)
@given(rows_of, st.data())
def test_take_then_match_as_python_sets(lists, data):
    sets = LabelSets.from_lists(lists)
    index = data.draw(st.lists(st.integers(0, max(len(lists) - 1, 0)), max_size=len(lists) + 3)) if lists else []
    taken = sets.take(np.array(index, dtype=np.int64))
    assert taken.to_lists() == [sorted(set(lists[i])) for i in index]
    assert taken.row_of_label.tolist() == np.repeat(np.arange(len(index)), taken.sizes).tolist()
    # predictions that share some labels with each row (kept at random) and add others
    other = LabelSets.from_lists([[v for v in row if data.draw(st.booleans())] + data.draw(st.lists(st.one_of(small, huge), max_size=3))
                                  for row in taken.to_lists()])
    tp = multilabel.true_positives(taken, other)
    assert tp.tolist() == [len(set(a) & set(b)) for a, b in zip(taken.to_lists(), other.to_lists())]


def test_pairs_match_when_labels_need_more_than_one_int64_key():
    """Row 20 with a label of 10**18: (row, label) does not fit 63 bits; the count must not wrap."""
    truth = LabelSets.from_lists([[5]] * 20 + [[10**18, 3]])
    pred = LabelSets.from_lists([[5]] * 20 + [[10**18]])
    assert multilabel.true_positives(truth, pred).tolist() == [1] * 21


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_from_flat_sorts_many_rows_as_python(seed):
    """Enough labels (> 8,192) for the sort to go block by block, cut at row boundaries."""
    rng = np.random.default_rng(seed)
    lists = [rng.integers(0, 50, rng.integers(0, 12)).tolist() for _ in range(3000)]
    sizes = np.array([len(x) for x in lists], dtype=np.int64)
    sets, had_repeat = LabelSets.from_flat(sizes, np.array([v for x in lists for v in x], dtype=np.int64))
    assert sets.to_lists() == [sorted(set(x)) for x in lists]
    distinct = [rng.permutation(1000)[:rng.integers(0, 12)].tolist() for _ in range(3000)]
    sets, had_repeat = LabelSets.from_flat(np.array([len(x) for x in distinct], dtype=np.int64),
                                           np.array([v for x in distinct for v in x], dtype=np.int64))
    assert sets.to_lists() == [sorted(x) for x in distinct] and not had_repeat.any()
