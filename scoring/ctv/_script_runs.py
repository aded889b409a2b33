"""The public AgrI training script's output tree, read as the script writes it.

One script run (``4.agri_challenge_ctv_cli_v3.py --scenario S --architecture A``)
writes, under its ``--output-dir``, one run per fold (``<tag>`` is
``TOTO_<arch>_train<TEAM>`` or ``LOTO_<arch>_heldout<TEAM>``, ``<arch>`` is
``densenet`` or ``swin``):

* ``predictions/<tag>_predictions.csv``: ``file_path, team, split, true_label,
  predicted_label, confidence, correct``; split ``train`` (first), ``val``,
  ``test``; class names; confidence = max softmax in percent; correct
  ``True``/``False``;
* ``results/<tag>_results.json``: ``scenario``, ``architecture``, TOTO
  ``train_team`` + ``test_teams``, LOTO ``train_teams`` + ``held_out_team``,
  and ``final_results`` = ``test_accuracy, test_precision, test_recall,
  test_f1, best_val_accuracy`` (percent; precision/recall/F1 support-weighted);
* ``results/<S>_<arch>_summary.json``: ``results`` {team: final_results},
  ``avg_accuracy``, ``std_accuracy`` (numpy's std, ddof 0);
* ``matrices/TOTO_<arch>_cross_team_matrix.csv`` (TOTO): ``Train_Team,
  Test_<team>, ...``, percent, empty diagonal.

Several trees (one per scenario and arch) are read together. A predictions
file next to its results JSON is accepted too.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agrieval.scoring.analysis_input._json_input import read_regular
from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.ctv.results_table import PROTOCOLS
from agrieval.scoring.ctv.runs import Run, build_run, load_json, read_predictions

SCRIPT_COLUMNS = ("file_path", "team", "split", "true_label", "predicted_label", "confidence", "correct")
FINAL_KEYS = ("test_accuracy", "test_precision", "test_recall", "test_f1", "best_val_accuracy")
_CORRECT = {"true": True, "false": False, "1": True, "0": False}


@dataclass
class ScriptTree:
    root: Path
    results: list[Path] = field(default_factory=list)  # one per run
    summaries: list[Path] = field(default_factory=list)
    matrices: list[Path] = field(default_factory=list)


def find(root: Path) -> ScriptTree:
    files = sorted(root.rglob("*_results.json"))
    return ScriptTree(root, files, sorted(root.rglob("*_summary.json")),
                      sorted(root.rglob("*_cross_team_matrix.csv")))


def predictions_path(results_path: Path) -> Path:
    tag = results_path.name[: -len("_results.json")]
    beside = results_path.with_name(f"{tag}_predictions.csv")
    in_tree = results_path.parent.parent / "predictions" / f"{tag}_predictions.csv"
    return in_tree if in_tree.is_file() or not beside.is_file() else beside


def _string(meta: dict, key: str, file: str) -> str:
    value = meta.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError("bad_json", f"the script's results JSON needs a non-empty string {key!r}", file=file)
    return value.strip()


def _team_list(meta: dict, key: str, file: str) -> list[str]:
    value = meta.get(key)
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise InputError("bad_json", f"{key!r} must be a list of team names", file=file)
    return list(value)


def final_results(meta: dict, file: str) -> dict[str, float]:
    block = meta.get("final_results")
    if not isinstance(block, dict):
        raise InputError("bad_json", "'final_results' must be an object", file=file)
    out = {}
    for key in FINAL_KEYS:
        v = block.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InputError("bad_json", f"final_results.{key} must be a number (percent), found {v!r}", file=file)
        out[key] = float(v)
    return out


def read_run(results_path: Path) -> Run:
    file = str(results_path)
    meta = load_json(results_path)
    scenario = _string(meta, "scenario", file).upper()
    if scenario not in PROTOCOLS:
        raise InputError("bad_protocol", f"scenario must be TOTO or LOTO, found {meta['scenario']!r}", file=file)
    arch = _string(meta, "architecture", file)
    if scenario == "TOTO":
        fold = _string(meta, "train_team", file)
        train_teams, other = [fold], _team_list(meta, "test_teams", file)
    else:
        fold = _string(meta, "held_out_team", file)
        train_teams, other = _team_list(meta, "train_teams", file), [fold]
    stored = final_results(meta, file)
    pred_path = predictions_path(results_path)
    frame = read_predictions(pred_path, SCRIPT_COLUMNS, 100.0)
    run = build_run(frame, source=str(pred_path), layout="agri_script", meta_file=file, protocol=scenario,
                    fold=fold, arch=arch, train_teams=train_teams)
    flags = frame["correct"].str.strip().str.lower().map(_CORRECT)
    if flags.isna().any():
        line = int(np.flatnonzero(flags.isna().to_numpy())[0]) + 2
        raise InputError("bad_run", "column 'correct' must hold True/False", file=str(pred_path), line=line,
                         column=SCRIPT_COLUMNS.index("correct") + 1)
    labels_agree = (frame["true_label"] == frame["predicted_label"]).to_numpy()
    disagree = np.flatnonzero(flags.to_numpy(dtype=bool) != labels_agree)
    run.stored = {"final_results": stored, "test_teams": sorted(other),
                  "correct_true": int(flags.sum()), "correct_first_disagreement": int(disagree[0]) + 2
                  if len(disagree) else None}
    return run


MAX_MATRIX_BYTES = 1 << 20  # a team-by-team table of percentages: a few kilobytes for dozens of teams


def read_matrix(path: Path) -> tuple[list[str], dict[tuple[str, str], float | None]]:
    """(row teams, {(train team, test team): percent or None for an empty cell})."""
    name = str(path)

    data = read_regular(path, MAX_MATRIX_BYTES, "cross-team matrix")  # the one opening rule
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (csv.Error, UnicodeDecodeError) as exc:
        raise InputError("unreadable_csv", f"cannot read the cross-team matrix: {exc}", file=name) from None
    if not rows or not rows[0] or rows[0][0] != "Train_Team" or not all(h.startswith("Test_") for h in rows[0][1:]):
        raise InputError("missing_column", "the cross-team matrix header must be Train_Team,Test_<team>,...",
                         file=name, line=1)
    cols = [h[len("Test_"):] for h in rows[0][1:]]
    cells: dict[tuple[str, str], float | None] = {}
    teams = []
    for line, row in enumerate(rows[1:], 2):
        if len(row) != len(rows[0]):
            raise InputError("bad_run", f"{len(row)} cells, the header has {len(rows[0])}", file=name, line=line)
        teams.append(row[0])
        for k, (col, text) in enumerate(zip(cols, row[1:]), 2):
            try:
                cells[(row[0], col)] = float(text) if text.strip() else None
            except ValueError:
                raise InputError("bad_number", f"not a number: {text!r}", file=name, line=line, column=k) from None
    return teams, cells


def matrix_arch(path: Path) -> str | None:
    """The architecture a ``TOTO_<arch>_cross_team_matrix.csv`` names (None: another name)."""
    return path.name[len("TOTO_"): -len("_cross_team_matrix.csv")] if path.name.startswith("TOTO_") else None


def summary_key(path: Path, meta: dict) -> tuple[str, str]:
    """(scenario, architecture) of a summary JSON."""
    file = str(path)
    return _string(meta, "scenario", file).upper(), _string(meta, "architecture", file)
