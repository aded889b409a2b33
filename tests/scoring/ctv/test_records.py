"""The record table (scoring/ctv/_records.py): one row per run, epoch, split and team, checked against the
prediction files counted here with the csv module, and its worked example."""

from __future__ import annotations

import csv
import doctest
from collections import Counter

from agrieval.scoring.ctv import _records as records
from agrieval.scoring.ctv._records import FINAL, Records
from agrieval.scoring.ctv.run_set import read_runs
from tests.scoring.ctv.golden_trees import SEEDS, write_study


def test_the_worked_example_holds():
    assert doctest.testmod(records).failed == 0


def test_every_final_row_is_the_count_of_its_predictions_and_every_epoch_its_history(tmp_path):
    runs_dir, _ = write_study(tmp_path)
    runset = read_runs(runs_dir)
    rec = Records.from_runs(runset.runs)
    assert sorted(set(rec.frame["seed"])) == SEEDS
    for i, run in enumerate(runset.runs):
        with open(run.source, newline="") as fh:
            rows = list(csv.DictReader(fh))
        n = Counter((r["split"], "") for r in rows) + Counter((r["split"], r["team"]) for r in rows
                                                               if r["split"] == "test")
        ok = Counter((r["split"], "") for r in rows if r["true_label"] == r["predicted_label"]) + Counter(
            (r["split"], r["team"]) for r in rows if r["split"] == "test" and r["true_label"] == r["predicted_label"])
        mine = rec.query(run=i, epoch=FINAL)
        for split, team, images, right, acc in zip(mine["split"], mine["team"], mine["n"], mine["correct"],
                                                   mine["acc"]):
            assert (images, right) == (n[(split, team)], ok[(split, team)])
            if images:
                assert acc == 100 * right / images
            else:
                assert acc != acc  # NaN: a split without images (the study's runs predict no train split)
        assert set(mine["protocol"]) == {run.protocol} and set(mine["fold"]) == {run.fold}
        history = rec.query(run=i)
        history = history[(history["epoch"] != FINAL) & history["acc"].notna()]  # NaN: not measured that epoch
        assert sorted(zip(history["epoch"], history["split"], history["acc"])) == sorted(
            (h["epoch"], s, h[s]) for h in run.history for s in ("train", "val", "test") if s in h)
