"""The files of one finished run: ``predictions.csv``, ``history.jsonl``, ``run.json``.

``predictions.csv`` has exactly the columns ``image_id, team, split, true_label, predicted_label,
confidence``. Its rows are the train rows, predicted with the eval transform after training unless
``--no-predict-train``, then the val rows, then the test rows, each part sorted by image_id. ``confidence`` is
the largest softmax probability, with 6 decimals.

Accuracies in ``run.json`` are fractions in [0, 1]; ``per_test_team_acc[t]`` is the accuracy on the test rows
of team t. ``history.jsonl`` has one line per epoch: ``epoch, lr, train_loss, train_acc`` (running, on the
augmented batches), ``val_acc``, and ``test_acc`` with ``--eval-test-every-epoch``.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from agrieval.scoring.runtime.atomic import atomic_write, write_text
from agrieval.scoring.runtime.metrics.multiclass import accuracy_from_counts

# Imported inside functions, so that importing this module loads only what it needs: importlib.metadata (heavy or optional); data_tools.versions (it loads email, importlib.metadata).

PREDICTION_COLUMNS = ("image_id", "team", "split", "true_label", "predicted_label", "confidence")
SCHEMA_VERSION = 1


def prediction_frame(part: pd.DataFrame, result: dict, classes: list[str], split: str) -> pd.DataFrame:
    rows = part.iloc[result["index"]]
    return pd.DataFrame({
        "image_id": rows["image_id"].to_numpy(),
        "team": rows["team"].to_numpy(),
        "split": split,
        "true_label": rows["class"].to_numpy(),
        "predicted_label": np.asarray(classes, dtype=object)[result["pred"]],
        "confidence": result["conf"].astype(np.float64),
    }).sort_values("image_id", kind="stable")


def write_predictions(path: Path, frames: list[pd.DataFrame]) -> None:
    with atomic_write(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(PREDICTION_COLUMNS)
        for frame in frames:
            for r in frame.itertuples(index=False):
                w.writerow([r.image_id, r.team, r.split, r.true_label, r.predicted_label, f"{r.confidence:.6f}"])


def team_accuracy(frame: pd.DataFrame) -> dict[str, float]:
    """Accuracy (fraction) per team."""
    correct = frame["true_label"] == frame["predicted_label"]
    return {str(t): accuracy_from_counts(int(c.sum()), len(c)) for t, c in correct.groupby(frame["team"], sort=True)}


def write_history(path: Path, rows: list[dict]) -> None:
    write_text(path, "".join(json.dumps(_clean(r), sort_keys=True) + "\n" for r in rows))


def write_run_json(path: Path, data: dict) -> None:
    write_text(path, json.dumps(_clean(data), indent=2, sort_keys=True) + "\n")


def versions() -> dict[str, str]:
    """The libraries a run's numbers depend on (Pillow: decoding, and the official preset's resizes)."""
    from importlib.metadata import version

    from agrieval.data_tools.versions import library_versions

    out = library_versions(("torch", "torchvision", "timm", "Pillow", "numpy", "pandas"))
    try:
        out["agrieval"] = version("agrieval")
    except Exception:  # not installed as a distribution (plain checkout)
        out["agrieval"] = "unknown"
    return out


def _clean(obj):
    """JSON-safe: NaN -> None, numpy scalars -> Python, tuples -> lists."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return None if math.isnan(f) else f
    return obj
