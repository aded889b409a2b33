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


def test_the_gap_of_a_run_is_a_fraction_and_of_a_table_row_percentage_points():
    run = Run(source="p.csv", layout="agrieval", protocol="TOTO", arch="densenet121", fold="team_a",
              train_teams=["team_a"], n={"train": 0, "val": 40, "test": 160}, n_correct={"val": 38, "test": 96})
    assert (run.val_acc, run.test_acc) == (0.95, 0.6) and run.vtg == pytest.approx(0.35, abs=1e-15)
    row = TeamResult("TOTO", "densenet121", "team_a", run.pct("val"), run.pct("test"))
    assert (row.val_acc, row.test_acc) == (95.0, 60.0) and row.vtg == 35.0
    assert multiclass.validation_test_gap(0.95, 0.6) == run.vtg
