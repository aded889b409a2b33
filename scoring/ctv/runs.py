"""Read CTV run outputs: the agrieval baselines layout and the public AgrI script's.

agrieval baselines: ``RUNS_DIR/<protocol>/<arch>/<fold>/run.json`` with
``protocol, arch, fold, train_teams, val_acc, test_acc`` (fractions), next to
``predictions.csv`` with ``image_id, team, split, true_label, predicted_label,
confidence`` (split ``val`` or ``test``).

Public AgrI training script: ``<stem>_predictions.csv`` with ``file_path, team,
split, true_label, predicted_label, confidence, correct`` next to
``<stem>_results.json``; the architecture is read from the JSON (``arch``,
``model``, ``model_name`` or ``architecture``).

Accuracies are always recomputed from the predictions; numbers stored in the
JSON files are only compared (a difference is a warning). The protocol and the
fold are inferred from which teams are in the val and test splits (TOTO: one
team in val, the fold; LOTO: one team in test, the fold) and must agree with
the JSON when it states them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scoring.ctv.input_error import InputError
from scoring.ctv.results_table import PROTOCOLS, ResultsTable, TeamResult

AGRIEVAL_COLUMNS = ("image_id", "team", "split", "true_label", "predicted_label", "confidence")
SCRIPT_COLUMNS = ("file_path", "team", "split", "true_label", "predicted_label", "confidence", "correct")
_ARCH_KEYS = ("arch", "model", "model_name", "architecture")
_PROTOCOL_KEYS = ("protocol", "mode", "strategy")
_FOLD_KEYS = ("fold", "team", "train_team", "held_out_team", "holdout_team", "test_team")
# Stored accuracies are often rounded; below this (as a fraction) a difference is not reported.
ACC_TOLERANCE = 1e-4


@dataclass
class Run:
    source: str  # folder of a baselines run, or the predictions file of a script run
    layout: str  # "agrieval" or "agri_script"
    protocol: str
    arch: str
    fold: str
    train_teams: list[str]
    n_val: int
    n_test: int
    val_acc: float  # fraction
    test_acc: float  # fraction, pooled over all test images
    team_acc: dict[str, float] = field(default_factory=dict)  # per test team (fraction)
    team_n: dict[str, int] = field(default_factory=dict)

    @property
    def vtg(self) -> float:
        """val_acc - test_acc, as a fraction."""
        return self.val_acc - self.test_acc


@dataclass
class RunSet:
    runs: list[Run]
    warnings: list[str] = field(default_factory=list)

    def results_table(self) -> ResultsTable:
        """The per-team table (percent) that ``ctv summarize`` reads."""
        return ResultsTable([TeamResult(r.protocol, r.arch, r.fold, 100 * r.val_acc, 100 * r.test_acc)
                             for r in self.runs], "<runs>")


def _load_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError("bad_json", f"cannot parse JSON: {exc}", file=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("bad_json", "the JSON file must hold an object", file=str(path))
    return data


def _first(data: dict, keys: tuple[str, ...]) -> str | None:
    for k in keys:
        if isinstance(data.get(k), str) and data[k].strip():
            return data[k].strip()
    return None


def _read_predictions(path: Path, columns: tuple[str, ...]):
    import pandas as pd

    name = str(path)
    if not path.is_file():
        raise InputError("bad_run", f"predictions file missing: {name}", file=name)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError("unreadable_csv", f"cannot read predictions: {exc}", file=name) from None
    frame.columns = [c.strip() for c in frame.columns]
    for col in columns:
        if col not in frame.columns:
            raise InputError("missing_column", f"required column {col!r} is missing (header: {', '.join(frame.columns)})",
                             file=name, line=1)
    if frame.empty:
        raise InputError("empty_table", "the predictions file has no rows", file=name)
    for col in ("team", "split", "true_label", "predicted_label"):
        empty = np.flatnonzero(frame[col].str.strip() == "")
        if len(empty):
            raise InputError("empty_cell", f"column {col!r} is empty", file=name, line=int(empty[0]) + 2,
                             column=list(frame.columns).index(col) + 1)
    bad = np.flatnonzero(~frame["split"].isin(["val", "test"]))
    if len(bad):
        raise InputError("bad_run", f"split must be 'val' or 'test', found {frame['split'].iloc[bad[0]]!r}",
                         file=name, line=int(bad[0]) + 2, column=list(frame.columns).index("split") + 1)
    return frame


def _infer(frame, name: str) -> tuple[str | None, str | None]:
    val_teams = sorted(set(frame.loc[frame["split"] == "val", "team"]))
    test_teams = sorted(set(frame.loc[frame["split"] == "test", "team"]))
    if not val_teams or not test_teams:
        raise InputError("bad_run", "a run needs both val and test predictions "
                         f"(val teams: {val_teams}, test teams: {test_teams})", file=name)
    toto = len(val_teams) == 1 and val_teams[0] not in test_teams
    loto = len(test_teams) == 1 and test_teams[0] not in val_teams
    if toto and not loto:
        return "TOTO", val_teams[0]
    if loto and not toto:
        return "LOTO", test_teams[0]
    return None, None  # ambiguous (two teams) or neither: the JSON must say


def _build(frame, *, source: str, layout: str, meta: dict, meta_file: str, warnings: list[str],
           arch: str | None) -> Run:
    protocol_meta = _first(meta, _PROTOCOL_KEYS)
    if protocol_meta is not None:
        protocol_meta = protocol_meta.upper()
        if protocol_meta not in PROTOCOLS:
            raise InputError("bad_protocol", f"protocol must be TOTO or LOTO, found {protocol_meta!r}", file=meta_file)
    fold_meta = _first(meta, _FOLD_KEYS)
    protocol, fold = _infer(frame, source)
    if protocol is None:
        if protocol_meta is None or fold_meta is None:
            raise InputError("bad_run", "cannot tell TOTO from LOTO from the splits; the JSON must give "
                             f"one of {list(_PROTOCOL_KEYS)} and one of {list(_FOLD_KEYS)}", file=meta_file)
        protocol, fold = protocol_meta, fold_meta
    if protocol_meta is not None and protocol_meta != protocol:
        raise InputError("bad_run", f"the JSON says {protocol_meta} but the predictions' splits are those of "
                         f"{protocol} (fold {fold})", file=meta_file)
    if fold_meta is not None and fold_meta != fold:
        raise InputError("bad_run", f"the JSON names fold {fold_meta!r} but the predictions' splits give {fold!r}",
                         file=meta_file)
    if arch is None:
        raise InputError("bad_json", f"the architecture is missing; give one of {list(_ARCH_KEYS)}", file=meta_file)

    correct = (frame["true_label"].to_numpy() == frame["predicted_label"].to_numpy())
    if "correct" in frame.columns:
        stated = frame["correct"].str.strip().str.lower().map(
            {"1": True, "0": False, "true": True, "false": False, "1.0": True, "0.0": False})
        if stated.isna().any():
            line = int(np.flatnonzero(stated.isna().to_numpy())[0]) + 2
            raise InputError("bad_run", "column 'correct' must hold 0/1 or True/False", file=source, line=line)
        n_diff = int((stated.to_numpy(dtype=bool) != correct).sum())
        if n_diff:
            warnings.append(f"{source}: 'correct' disagrees with true_label == predicted_label on {n_diff} rows; "
                            "the labels are used")
    is_val = (frame["split"] == "val").to_numpy()
    teams = frame["team"].to_numpy()
    team_acc, team_n = {}, {}
    for team in sorted(set(teams[~is_val])):
        m = ~is_val & (teams == team)
        team_acc[team] = float(correct[m].mean())
        team_n[team] = int(m.sum())
    train = meta.get("train_teams")
    if not isinstance(train, list):
        train = [fold] if protocol == "TOTO" else sorted(set(teams[is_val]))
    run = Run(source, layout, protocol, arch, fold, [str(t) for t in train], int(is_val.sum()), int((~is_val).sum()),
              float(correct[is_val].mean()), float(correct[~is_val].mean()), team_acc, team_n)
    for key, mine in (("val_acc", run.val_acc), ("test_acc", run.test_acc)):
        stated = meta.get(key)
        if isinstance(stated, (int, float)):
            stated = float(stated) / (100 if stated > 1 else 1)
            if abs(stated - mine) > ACC_TOLERANCE:
                warnings.append(f"{meta_file}: {key} {stated:.4f} differs from {mine:.4f} recomputed from the "
                                "predictions; the recomputed value is used")
    return run


def read_runs(runs_dir: str | Path, progress: Callable[[str], None] | None = None) -> RunSet:
    root = Path(runs_dir)
    if not root.is_dir():
        raise InputError("file_not_found", f"no such folder: {root}", file=str(root))
    warnings: list[str] = []
    runs: list[Run] = []
    run_files = sorted(root.rglob("run.json"))
    script_files = sorted(root.rglob("*_results.json"))
    total = len(run_files) + len(script_files)
    for i, meta_path in enumerate(run_files, 1):
        meta = _load_json(meta_path)
        for key in ("protocol", "arch", "fold"):
            if not isinstance(meta.get(key), str) or not meta[key].strip():
                raise InputError("bad_json", f"run.json needs a non-empty string {key!r}", file=str(meta_path))
        frame = _read_predictions(meta_path.parent / "predictions.csv", AGRIEVAL_COLUMNS)
        runs.append(_build(frame, source=str(meta_path.parent / "predictions.csv"), layout="agrieval", meta=meta,
                           meta_file=str(meta_path), warnings=warnings, arch=meta["arch"].strip()))
        if progress:
            progress(f"[{i}/{total}] {meta_path.parent.relative_to(root)}")
    for i, meta_path in enumerate(script_files, len(run_files) + 1):
        pred_path = meta_path.with_name(meta_path.name[: -len("_results.json")] + "_predictions.csv")
        meta = _load_json(meta_path)
        frame = _read_predictions(pred_path, SCRIPT_COLUMNS)
        runs.append(_build(frame, source=str(pred_path), layout="agri_script", meta=meta, meta_file=str(meta_path),
                           warnings=warnings, arch=_first(meta, _ARCH_KEYS)))
        if progress:
            progress(f"[{i}/{total}] {meta_path.relative_to(root)}")
    if not runs:
        raise InputError("no_runs", "found no run.json (agrieval baselines) nor *_results.json (AgrI script) "
                         "under the folder", file=str(root))
    seen: dict[tuple[str, str, str], str] = {}
    for r in runs:
        key = (r.protocol, r.arch, r.fold)
        if key in seen:
            raise InputError("bad_run", f"two runs for {key}: {seen[key]} and {r.source}", file=r.source)
        seen[key] = r.source
    runs.sort(key=lambda r: (PROTOCOLS.index(r.protocol), r.arch, r.fold))
    return RunSet(runs, warnings)
