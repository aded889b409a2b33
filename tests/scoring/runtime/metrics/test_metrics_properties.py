"""Metric properties (hypothesis) and agreement with scikit-learn as an independent oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import balanced_accuracy_score, confusion_matrix, f1_score, precision_score, recall_score
from sklearn.preprocessing import MultiLabelBinarizer

from agrieval.scoring.runtime.labelsets import LabelSets
from agrieval.scoring.runtime.metrics import multiclass, multilabel

label_lists = st.lists(st.lists(st.integers(0, 30), max_size=6), min_size=1, max_size=40)


@st.composite
def paired(draw, allow_empty=True):
    n = draw(st.integers(1, 40))
    inner = st.lists(st.integers(0, 30), min_size=0 if allow_empty else 1, max_size=6)
    y_true = draw(st.lists(inner, min_size=n, max_size=n))
    y_pred = draw(st.lists(inner, min_size=n, max_size=n))
    groups = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    return y_true, y_pred, groups


def binarize(y_true, y_pred, pad=False):
    """Indicator matrices; ``pad`` adds a never-used column so sklearn sees a multilabel problem
    (it treats a single column as binary); an all-zero column changes no sample-wise metric."""
    classes = sorted({x for r in y_true + y_pred for x in r})
    while (pad and len(classes) < 2) or not classes:
        classes.append(-1 - len(classes))
    mlb = MultiLabelBinarizer(classes=classes)
    mlb.fit([])
    return mlb.transform(y_true), mlb.transform(y_pred)


@settings(max_examples=100, deadline=None)
@given(paired())
def test_sample_f1_matches_sklearn(data):
    y_true, y_pred, _ = data
    t, p = binarize(y_true, y_pred, pad=True)
    expected = f1_score(t, p, average="samples", zero_division=1.0)
    got = multilabel.sample_f1(LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred), empty_both=1.0)
    assert got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(paired())
def test_micro_and_macro_f1_match_sklearn(data):
    y_true, y_pred, _ = data
    if not any(y_true) and not any(y_pred):
        return  # sklearn's macro over no classes is not defined; our policy is tested separately
    t, p = binarize(y_true, y_pred, pad=True)
    T, P = LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred)
    assert multilabel.micro_f1(T, P) == pytest.approx(f1_score(t, p, average="micro", zero_division=0), abs=1e-12)
    # macro over the classes present in truth or prediction (the real columns, not the padding)
    union = list(range(len({x for r in y_true + y_pred for x in r})))
    assert multilabel.macro_f1(T, P) == pytest.approx(
        f1_score(t, p, average="macro", labels=union, zero_division=0), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(paired(allow_empty=False))
def test_sample_precision_recall_match_sklearn_without_empty_rows(data):
    y_true, y_pred, _ = data
    t, p = binarize(y_true, y_pred, pad=True)
    prec, rec, _ = multilabel.sample_scores(LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred))
    assert prec.mean() == pytest.approx(precision_score(t, p, average="samples", zero_division=0), abs=1e-12)
    assert rec.mean() == pytest.approx(recall_score(t, p, average="samples", zero_division=0), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(paired())
def test_scores_in_unit_interval_and_perfect_is_one(data):
    y_true, y_pred, groups = data
    T, P = LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred)
    g = np.array(groups)
    for v in (multilabel.sample_f1(T, P), multilabel.micro_f1(T, P), multilabel.macro_f1(T, P),
              multilabel.transect_f1(T, P, g)):
        assert 0.0 <= v <= 1.0
    assert multilabel.transect_f1(T, T, g) == 1.0
    assert multilabel.sample_f1(T, T) == multilabel.micro_f1(T, T) == multilabel.macro_f1(T, T) == 1.0


@settings(max_examples=80, deadline=None)
@given(paired(), st.randoms(use_true_random=False))
def test_row_order_and_label_order_change_nothing(data, rnd):
    y_true, y_pred, groups = data
    before = multilabel.transect_f1(LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred), np.array(groups))
    perm = list(range(len(y_true)))
    rnd.shuffle(perm)
    shuffled_pred = [rnd.sample(y_pred[i], len(y_pred[i])) for i in perm]
    after = multilabel.transect_f1(LabelSets.from_lists([y_true[i] for i in perm]), LabelSets.from_lists(shuffled_pred),
                                   np.array([groups[i] for i in perm]))
    assert after == pytest.approx(before, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(paired())
def test_transect_average_equals_sample_average_with_one_quadrat_per_transect(data):
    y_true, y_pred, _ = data
    T, P = LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred)
    assert multilabel.transect_f1(T, P, np.arange(len(y_true))) == pytest.approx(multilabel.sample_f1(T, P), abs=1e-12)


def test_transect_average_weights_each_transect_once():
    # transect 0: two quadrats scoring 1 and 0; transect 1: one quadrat scoring 1 -> (0.5 + 1) / 2
    T = LabelSets.from_lists([[1], [2], [3]])
    P = LabelSets.from_lists([[1], [9], [3]])
    assert multilabel.transect_f1(T, P, np.array([0, 0, 1])) == pytest.approx(0.75)
    assert multilabel.sample_f1(T, P) == pytest.approx(2 / 3)


def test_empty_set_policy():
    T = LabelSets.from_lists([[], [1]])
    P = LabelSets.from_lists([[], []])
    assert multilabel.sample_f1(T, P, empty_both=1.0) == 0.5
    assert multilabel.sample_f1(T, P, empty_both=0.0) == 0.0
    assert multilabel.micro_f1(LabelSets.from_lists([[]]), LabelSets.from_lists([[]]), empty_both=0.7) == 0.7


def test_labelsets_take_and_repeats():
    ls, rep = LabelSets.from_flat(np.array([3, 0, 2]), np.array([5, 1, 5, 7, 7]))
    assert ls.to_lists() == [[1, 5], [], [7]]
    assert rep.tolist() == [True, False, True]
    assert ls.take(np.array([2, 0, 1, 0])).to_lists() == [[7], [1, 5], [], [1, 5]]


classes = ["caroubier", "chene", "faux_poivrier", "frene", "pistachier", "tipu"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(classes), st.sampled_from(classes)), min_size=1, max_size=60))
def test_multiclass_metrics_match_sklearn(pairs):
    t = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    assert multiclass.accuracy(t, p) == pytest.approx(np.mean(np.array(t) == np.array(p)))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert multiclass.balanced_accuracy(t, p) == pytest.approx(balanced_accuracy_score(t, p), abs=1e-12)
    assert multiclass.macro_f1(t, p) == pytest.approx(f1_score(t, p, average="macro", zero_division=0), abs=1e-12)
    assert (multiclass.confusion_matrix(t, p, classes) == confusion_matrix(t, p, labels=classes)).all()
    per = multiclass.per_class(t, p, classes)
    sk_f1 = f1_score(t, p, labels=classes, average=None, zero_division=0)
    assert [per[c]["f1"] for c in classes] == pytest.approx(list(sk_f1), abs=1e-12)


def test_cross_group_accuracy_and_vtg():
    t = ["a", "a", "b", "b"]
    p = ["a", "a", "a", "b"]
    g = ["own", "own", "x", "x"]
    assert multiclass.cross_group_accuracy(t, p, g, "own") == 0.5
    assert multiclass.group_accuracy(t, p, g) == {"own": 1.0, "x": 0.5}
    assert multiclass.validation_test_gap(0.9, 0.5) == pytest.approx(0.4)


@settings(max_examples=100, deadline=None)
@given(paired())
def test_all_metrics_equals_each_metric_alone(data):
    y_true, y_pred, groups = data
    T, P = LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred)
    g = np.array(groups)
    got = multilabel.all_metrics(T, P, g, empty_both=0.5)
    p, r, _ = multilabel.sample_scores(T, P, empty_both=0.5)
    assert got == pytest.approx({
        "transect_f1": multilabel.transect_f1(T, P, g, empty_both=0.5),
        "sample_f1": multilabel.sample_f1(T, P, empty_both=0.5),
        "micro_f1": multilabel.micro_f1(T, P, empty_both=0.5),
        "macro_f1": multilabel.macro_f1(T, P, empty_both=0.5),
        "sample_precision": p.mean(), "sample_recall": r.mean()}, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(paired(), st.data(), st.booleans())
def test_metrics_by_split_are_all_metrics_on_each_splits_rows(data, draw, numbered):
    """One matching of all rows, split afterwards: exactly the numbers of each split scored alone (the
    scorer's path), with or without a vocabulary table numbering the classes; rows of no split ignored."""
    y_true, y_pred, groups = data
    n = len(y_true)
    split_of = draw.draw(st.lists(st.sampled_from(["public", "private", "ignored"]), min_size=n, max_size=n))
    split_rows = {s: np.flatnonzero(np.array(split_of) == s) for s in ("public", "private")}
    split_rows = {s: rows for s, rows in split_rows.items() if len(rows)}
    T, P = LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred)
    g = np.array(groups)
    class_codes = None
    if numbered:  # a vocabulary of the labels 0..30 with gaps: codes ascending with the labels, -1 elsewhere
        vocabulary = sorted({x for r in y_true + y_pred for x in r} | {3, 17, 29})
        class_codes = np.full(40, -1, dtype=np.int32)
        class_codes[vocabulary] = np.arange(len(vocabulary))
    got = multilabel.metrics_by_split(T, P, g, split_rows, empty_both=0.5, class_codes=class_codes)
    for split, rows in split_rows.items():
        alone = multilabel.all_metrics(T.take(rows), P.take(rows), g[rows], empty_both=0.5)
        assert got[split] == alone  # equal, not approximately: the same sums in the same order


@settings(max_examples=200, deadline=None)
@given(paired(), st.randoms(use_true_random=False), st.booleans())
def test_a_prediction_in_another_row_order_scores_as_its_lists_in_order(data, rnd, split):
    """``LabelSets.take`` (how the scorer moves a prediction into the solution's row order, by one running
    sum of positions) gives the rows ``order`` names, empty ones included, and therefore the metrics of
    the label lists moved by hand; an order that is no permutation (repeats) too."""
    y_true, y_pred, groups = data
    n = len(y_true)
    T, P = LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred)
    rows = {"public": np.arange(0, n, 2), "private": np.arange(1, n, 2)} if split and n > 1 else {"all": np.arange(n)}
    g = np.array(groups)
    for order in (np.array(rnd.sample(range(n), n), dtype=np.int64), np.array([rnd.randrange(n) for _ in range(n)])):
        by_hand = [sorted(set(y_pred[i])) for i in order.tolist()]
        moved = P.take(order)
        assert moved.to_lists() == by_hand
        assert moved.row_of_label.tolist() == [r for r, labels in enumerate(by_hand) for _ in labels]
        assert multilabel.metrics_by_split(T, moved, g, rows) == \
            multilabel.metrics_by_split(T, LabelSets.from_lists(by_hand), g, rows)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 14).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, 9), max_size=4), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(0, 9), max_size=4), min_size=n, max_size=n),
    st.permutations(range(n)), st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))),
    st.sampled_from([1, 10**6, 2**59]), st.booleans())
def test_metrics_by_split_of_a_reordered_prediction_match_sklearn(data, scale, numbered):
    """``metrics_by_split`` on a prediction read in file order and moved into the solution's
    (``LabelSets.take``, as the scorer does) against scikit-learn on each split's rows; labels near 2**63 (the two-key matching)."""
    from agrieval.scoring.runtime.metrics.multilabel import metrics_by_split

    truth, pred, order, split = data
    truth = [sorted({x * scale for x in r}) for r in truth]
    pred = [sorted({x * scale for x in r}) for r in pred]
    in_file = [None] * len(pred)
    for row, at in enumerate(order):
        in_file[at] = pred[row]  # solution row ``row`` is on the upload's row ``order[row]``

    def sets(rows):
        return LabelSets.from_flat(np.array([len(r) for r in rows]), np.array([x for r in rows for x in r],
                                                                               dtype=np.int64))[0]

    class_codes = None
    if numbered and scale == 1:
        class_codes = np.arange(10, dtype=np.int64)
    split_rows = {name: np.flatnonzero(np.array(split) == k) for k, name in enumerate(["public", "private"])}
    split_rows = {name: rows for name, rows in split_rows.items() if len(rows)}
    got = metrics_by_split(sets(truth), sets(in_file).take(np.array(order)), np.zeros(len(truth), int),
                           split_rows, class_codes=class_codes)
    for name, rows in split_rows.items():
        t, p = [truth[i] for i in rows], [pred[i] for i in rows]
        mlb = MultiLabelBinarizer(classes=sorted({x for r in t + p for x in r} | {-1, -2}))
        a, b = mlb.fit_transform(t), mlb.transform(p)
        assert got[name]["sample_f1"] == pytest.approx(f1_score(a, b, average="samples", zero_division=1.0))
        assert got[name]["micro_f1"] == pytest.approx(f1_score(a, b, average="micro", zero_division=1.0))
        present = (a.sum(0) + b.sum(0)) > 0
        if present.any():
            per_class = f1_score(a, b, average=None, zero_division=1.0)[present]
            assert got[name]["macro_f1"] == pytest.approx(float(np.mean(per_class)))
