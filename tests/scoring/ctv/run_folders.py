"""Run folders as `baselines ctv run` writes them (run.json and predictions.csv), made by hand for the CTV tests."""

from __future__ import annotations

import csv
import json
from pathlib import Path

HEADER = ["image_id", "team", "split", "true_label", "predicted_label", "confidence"]


def write_run(root: Path, protocol: str, arch: str, fold: str, outcomes: dict, meta: dict | None = None):
    """outcomes: {(team, split): (n_correct, n_total)}"""
    d = root / protocol / arch / fold
    d.mkdir(parents=True)
    rows = []
    for (team, split), (ok, n) in sorted(outcomes.items()):
        for k in range(n):
            rows.append([f"{team}/{split}/{k}.jpg", team, split, "chene", "chene" if k < ok else "tipu", 0.9])
    with (d / "predictions.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        w.writerows(rows)
    m = {"protocol": protocol, "arch": arch, "fold": fold, "train_teams": [fold], "val_acc": 0, "test_acc": 0}
    m |= meta or {}
    (d / "run.json").write_text(json.dumps(m))
    return d
