"""One computation per metric: the public metric functions give exactly what the scorer reports, scikit-learn
agrees with them, and accuracy and the validation-test gap are one formula each in a stated unit."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score
from sklearn.preprocessing import MultiLabelBinarizer

from agrieval.scoring.ctv.results_table import TeamResult
from agrieval.scoring.ctv.runs import Run
from agrieval.scoring.runtime.definition import load_definition
from agrieval.scoring.runtime.labelsets import LabelSets
from agrieval.scoring.runtime.metrics import multiclass, multilabel
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.scorer import score_file

PUBLIC = {"transect_f1": multilabel.transect_f1, "sample_f1": multilabel.sample_f1,
          "micro_f1": multilabel.micro_f1, "macro_f1": multilabel.macro_f1,
          "sample_precision": multilabel.sample_precision, "sample_recall": multilabel.sample_recall}


@st.composite
def paired(draw, min_labels=0):
    n = draw(st.integers(1, 30))
    lists = st.lists(st.lists(st.integers(0, 20), min_size=min_labels, max_size=5), min_size=n, max_size=n)
    return draw(lists), draw(lists), draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))


def _call(name, T, P, g, empty_both):
    args = (T, P, g) if name == "transect_f1" else (T, P)
    return PUBLIC[name](*args, empty_both=empty_both)


@settings(max_examples=100, deadline=None)
@given(paired(), st.sampled_from([0.0, 0.5, 1.0]))
def test_each_public_function_is_the_number_of_metrics_by_split(data, empty_both):
    y_true, y_pred, groups = data
    T, P, g = LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred), np.array(groups)
    core = multilabel.metrics_by_split(T, P, g, {"all": np.arange(len(y_true))}, empty_both=empty_both)["all"]
    assert set(core) == set(PUBLIC)
    for name in PUBLIC:
        assert _call(name, T, P, g, empty_both) == core[name], name  # equal: one computation


def _binarized(y_true, y_pred):
    mlb = MultiLabelBinarizer(classes=list(range(-2, 21)))  # (two never-used columns: a multilabel problem)
    mlb.fit([])
    return mlb.transform(y_true), mlb.transform(y_pred)


@settings(max_examples=100, deadline=None)
@given(paired(min_labels=1))
def test_scikit_learn_agrees_on_rows_with_labels(data):
    y_true, y_pred, groups = data
    T, P, g = LabelSets.from_lists(y_true), LabelSets.from_lists(y_pred), np.array(groups)
    t, p = _binarized(y_true, y_pred)
    assert multilabel.sample_precision(T, P) == pytest.approx(precision_score(t, p, average="samples"), abs=1e-12)
    assert multilabel.sample_recall(T, P) == pytest.approx(recall_score(t, p, average="samples"), abs=1e-12)
    assert multilabel.sample_f1(T, P) == pytest.approx(f1_score(t, p, average="samples"), abs=1e-12)
    per_row = np.array([f1_score(t[i:i + 1], p[i:i + 1], average="samples") for i in range(len(t))])
    by_group = [per_row[g == k].mean() for k in sorted(set(groups))]
    assert multilabel.transect_f1(T, P, g) == pytest.approx(np.mean(by_group), abs=1e-12)


def test_the_scorer_reports_what_the_public_functions_return_on_a_real_file(real_files):
    """A real 2,105-row submission against a solution made of its ids, in its row order."""
    definition = load_definition("plantclef2025")
    sub_path = real_files / "plantclef2025_submission_topk5.csv"
    with sub_path.open(newline="") as fh:
        cells = list(csv.reader(fh))[1:]
    ids, predicted = [c[0] for c in cells], [sorted(set(json.loads(c[1]))) for c in cells]
    rng = np.random.default_rng(0)
    labels = sorted(int(x) for x in definition.labels)[:200]
    truths = [sorted(rng.choice(labels, size=int(rng.integers(1, 6)), replace=False).tolist()) for _ in ids]
    splits = np.array(["Private" if k % 3 == 0 else "Public" for k in range(len(ids))])
    rows = ['"quadrat_id","species_ids","Usage"'] + [
        f'"{i}","[{", ".join(map(str, t))}]","{s}"' for i, t, s in zip(ids, truths, splits)]
    sol = load_solution(("\n".join(rows) + "\n").encode(), definition)
    report = score_file(sub_path, sol, definition, reveal_private=True)
    assert report.status == "scored" and report.n_rows == len(ids) == 2105
    codes, _ = sol.group_codes
    for split, values in (("Public", report.metrics.public), ("Private", report.metrics.private)):
        rows_ = np.flatnonzero(splits == split)
        T = LabelSets.from_lists([truths[i] for i in rows_])
        P = LabelSets.from_lists([predicted[i] for i in rows_])
        for name in PUBLIC:
            assert values[name] == pytest.approx(_call(name, T, P, codes[rows_], definition.empty_both_score),
                                                 abs=1e-12), (split, name)


@st.composite
def one_truth_many_predictions(draw):
    """A truth, its groups and splits (a row of no split too), class codes by label (or none), predictions."""
    n = draw(st.integers(1, 30))
    sets = st.lists(st.lists(st.integers(0, 20), max_size=5), min_size=n, max_size=n)
    split_of = draw(st.lists(st.sampled_from(["public", "private", None]), min_size=n, max_size=n)
                    .filter(lambda s: "public" in s))
    split_rows = {name: np.flatnonzero(np.array([s == name for s in split_of]))
                  for name in ("public", "private") if name in split_of}
    numbered = draw(st.sets(st.integers(0, 25)))  # labels past them or not numbered: the codes are not used
    class_codes = draw(st.sampled_from([None, np.cumsum([k in numbered for k in range(26)]) - 1]))
    if class_codes is not None:
        class_codes[[k not in numbered for k in range(26)]] = -1
    groups = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)))
    return (LabelSets.from_lists(draw(sets)), groups, split_rows, class_codes,
            [LabelSets.from_lists(draw(sets)) for _ in range(draw(st.integers(1, 4)))])


@settings(max_examples=150, deadline=None)
@given(one_truth_many_predictions(), st.sampled_from([0.0, 1.0]))
def test_a_true_side_made_once_gives_what_a_fresh_computation_gives(data, empty_both):
    """The warm grader's cache (``TrueSide``, made for the first upload, reused by the next ones): every number
    is the one ``metrics_by_split`` finds from scratch for each prediction, whatever the predictions before."""
    y_true, groups, split_rows, class_codes, predictions = data
    truth = multilabel.TrueSide(y_true, groups, split_rows, class_codes=class_codes)
    for y_pred in predictions:
        kept = multilabel.metrics_by_split(y_true, y_pred, groups, split_rows, empty_both=empty_both,
                                           class_codes=class_codes, truth=truth)
        fresh = multilabel.metrics_by_split(y_true, y_pred, groups, split_rows, empty_both=empty_both,
                                            class_codes=class_codes)
        alone = {name: multilabel.all_metrics(LabelSets.from_lists([y_true.row(i) for i in rows]),
                                              LabelSets.from_lists([y_pred.row(i) for i in rows]),
                                              groups[rows], empty_both=empty_both)
                 for name, rows in split_rows.items()}
        assert kept == fresh == alone


def test_a_true_side_is_used_only_with_what_it_was_made_from():
    y_true = LabelSets.from_lists([[1, 2], [3]])
    groups, split_rows = np.array([0, 1]), {"public": np.array([0, 1])}
    truth = multilabel.TrueSide(y_true, groups, split_rows)
    with pytest.raises(ValueError, match="made from other"):
        multilabel.metrics_by_split(LabelSets.from_lists([[1, 2], [3]]), y_true, groups, split_rows, truth=truth)
    with pytest.raises(ValueError, match="made from other"):
        multilabel.metrics_by_split(y_true, y_true, groups.copy(), split_rows, truth=truth)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), min_size=0, max_size=40))
def test_accuracy_is_one_formula_in_a_stated_unit(pairs):
    t, p = [a for a, _ in pairs], [b for _, b in pairs]
    n_correct = sum(a == b for a, b in pairs)
    if not pairs:
        assert np.isnan(multiclass.accuracy(t, p)) and np.isnan(multiclass.accuracy_from_counts(0, 0, "percent"))
        return
    assert multiclass.accuracy(t, p) == accuracy_score(t, p) == multiclass.accuracy_from_counts(n_correct, len(t))
    assert multiclass.accuracy_from_counts(n_correct, len(t), "percent") == 100.0 * n_correct / len(t)
    with pytest.raises(ValueError, match="unit"):
        multiclass.accuracy_from_counts(n_correct, len(t), "points")


def test_the_accuracy_of_a_run_and_the_gap_of_a_table_row_are_percentages():
    run = Run(source="p.csv", layout="agrieval", protocol="TOTO", arch="densenet121", fold="team_a",
              train_teams=["team_a"], n={"train": 0, "val": 40, "test": 160}, n_correct={"val": 38, "test": 96})
    assert (run.pct("val"), run.pct("test")) == (95.0, 60.0) == (multiclass.accuracy_from_counts(38, 40, "percent"),
                                                                 multiclass.accuracy_from_counts(96, 160, "percent"))
    row = TeamResult("TOTO", "densenet121", "team_a", run.pct("val"), run.pct("test"))
    assert (row.val_acc, row.test_acc) == (95.0, 60.0) and row.vtg == 35.0 == multiclass.validation_test_gap(95.0, 60.0)
