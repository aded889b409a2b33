"""Every number that a public metric's worked example shows is scikit-learn's number on the example's inputs.

The doctests (``tests/scoring/runtime/test_metric_examples.py``) check that each function prints what its
docstring shows; here each function is called on the inputs its examples define (run from the docstring, so
they cannot drift apart) and compared with scikit-learn, the independent oracle. Together: the docstrings show
scikit-learn's numbers.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.preprocessing import MultiLabelBinarizer

from agrieval.scoring.runtime.metrics import multiclass, multilabel


def example_inputs(function) -> dict:
    """The names the examples of ``function``'s docstring define, after running them (they must pass)."""
    (test,) = [t for t in doctest.DocTestFinder().find(function) if t.examples]
    runner = doctest.DocTestRunner()
    runner.run(test, clear_globs=False)
    assert runner.failures == 0
    return test.globs


def binarized(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    true, pred = y_true.to_lists(), y_pred.to_lists()
    binarizer = MultiLabelBinarizer(classes=sorted({v for row in true + pred for v in row}))
    return binarizer.fit_transform(true), binarizer.transform(pred)


def per_row_f1(Y, P) -> np.ndarray:
    return np.array([skm.f1_score(Y[i:i + 1], P[i:i + 1], average="samples", zero_division=1)
                     for i in range(len(Y))])


MULTILABEL = {
    "sample_f1": lambda Y, P: skm.f1_score(Y, P, average="samples", zero_division=1),
    "sample_precision": lambda Y, P: skm.precision_score(Y, P, average="samples", zero_division=0),
    "sample_recall": lambda Y, P: skm.recall_score(Y, P, average="samples", zero_division=0),
    "micro_f1": lambda Y, P: skm.f1_score(Y, P, average="micro"),
    "macro_f1": lambda Y, P: skm.f1_score(Y, P, average="macro", zero_division=0),
}


@pytest.mark.parametrize("name", sorted(MULTILABEL))
def test_multilabel_examples_agree_with_sklearn(name):
    inputs = example_inputs(getattr(multilabel, name))
    y_true, y_pred = inputs["y_true"], inputs["y_pred"]
    assert not any(not t and not p for t, p in zip(y_true.to_lists(), y_pred.to_lists())), \
        "a row empty on both sides: scikit-learn's zero_division would not be ours for precision and recall"
    expected = MULTILABEL[name](*binarized(y_true, y_pred))
    assert getattr(multilabel, name)(y_true, y_pred) == pytest.approx(expected, abs=1e-12)


def test_sample_scores_and_transect_f1_examples_agree_with_sklearn_row_by_row():
    inputs = example_inputs(multilabel.sample_scores)
    Y, P = binarized(inputs["y_true"], inputs["y_pred"])
    precision, recall, f1 = multilabel.sample_scores(inputs["y_true"], inputs["y_pred"])
    assert f1 == pytest.approx(per_row_f1(Y, P), abs=1e-12)
    assert precision == pytest.approx([skm.precision_score(Y[i:i + 1], P[i:i + 1], average="samples",
                                                           zero_division=0) for i in range(len(Y))], abs=1e-12)
    assert recall == pytest.approx([skm.recall_score(Y[i:i + 1], P[i:i + 1], average="samples",
                                                     zero_division=0) for i in range(len(Y))], abs=1e-12)
    inputs = example_inputs(multilabel.transect_f1)
    rows = per_row_f1(*binarized(inputs["y_true"], inputs["y_pred"]))
    groups = np.array([0, 0, 1])  # the example's first transects
    oracle = np.mean([rows[groups == g].mean() for g in np.unique(groups)])
    assert multilabel.transect_f1(inputs["y_true"], inputs["y_pred"], groups) == pytest.approx(oracle, abs=1e-12)


def test_multiclass_examples_agree_with_sklearn():
    def inputs(function):
        found = example_inputs(function)
        return found["y_true"], found["y_pred"]

    t, p = inputs(multiclass.accuracy)
    assert multiclass.accuracy(t, p) == skm.accuracy_score(t, p)
    t, p = inputs(multiclass.balanced_accuracy)
    assert multiclass.balanced_accuracy(t, p) == pytest.approx(skm.balanced_accuracy_score(t, p), abs=1e-12)
    t, p = inputs(multiclass.macro_f1)
    assert multiclass.macro_f1(t, p) == pytest.approx(skm.f1_score(t, p, average="macro", zero_division=0),
                                                      abs=1e-12)
    labels = ["ash", "oak", "tipu"]
    t, p = inputs(multiclass.confusion_matrix)
    assert multiclass.confusion_matrix(t, p, labels).tolist() == skm.confusion_matrix(t, p, labels=labels).tolist()
    t, p = inputs(multiclass.per_class)
    precision, recall, f1, support = skm.precision_recall_fscore_support(t, p, labels=labels, zero_division=0)
    ours = multiclass.per_class(t, p, labels)
    for i, label in enumerate(labels):
        assert ours[label] == pytest.approx({"precision": precision[i], "recall": recall[i], "f1": f1[i],
                                             "support": support[i]}, abs=1e-12)
    t, p = inputs(multiclass.group_accuracy)
    teams = np.array(["A", "A", "A", "B"])
    assert multiclass.group_accuracy(t, p, teams) == pytest.approx(
        {g: skm.accuracy_score(np.array(t)[teams == g], np.array(p)[teams == g]) for g in ("A", "B")})
    t, p = inputs(multiclass.cross_group_accuracy)
    teams = np.array(["A", "A", "B", "B"])
    assert multiclass.cross_group_accuracy(t, p, teams, own_group="A") == skm.accuracy_score(
        np.array(t)[teams != "A"], np.array(p)[teams != "A"])
