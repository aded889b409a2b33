"""Read CTV run outputs: the agrieval baselines layout and the public AgrI script's.

agrieval baselines: ``RUNS_DIR/<protocol>/<arch>/<fold>/run.json`` with
``protocol, arch, fold, train_teams, val_acc, test_acc`` (fractions), next to
``predictions.csv`` with ``image_id, team, split, true_label, predicted_label,
confidence`` (split ``train``, ``val`` or ``test``; confidence in [0, 1]) and
``history.jsonl`` (one JSON object per epoch).

Public AgrI training script: an output tree ``results/<tag>_results.json`` +
``predictions/<tag>_predictions.csv`` (``agrieval.scoring.ctv._script_runs``). Both layouts under one or several
folders are read together by ``agrieval.scoring.ctv.run_set.read_runs``.

Accuracies are always recomputed from the predictions, as
``100 * n_correct / n`` (the script's own formula, so equal numbers compare
equal); numbers stored next to them are only compared
(``agrieval.scoring.ctv._cross_check``). The protocol and the fold are inferred from
which teams are in the val and test splits (TOTO: one team in val, the fold;
LOTO: one team in test, the fold) and must agree with the JSON.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agrieval.scoring.analysis_input._json_input import load_object, read_regular
from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.ctv._arch_names import canonical_arch
from agrieval.scoring.ctv.results_table import PROTOCOLS
from agrieval.scoring.runtime.metrics.multiclass import accuracy_from_counts

# Imported inside functions, so that importing this module loads only what it needs: pandas (heavy);
# scoring.analysis_input.json_input, whose parse is looked up when called so that a test can replace it.

_AGRIEVAL_COLUMNS = ("image_id", "team", "split", "true_label", "predicted_label", "confidence")
SPLITS = ("train", "val", "test")
# A predictions table holds one row per image of the pool (47,367 for AgrI 2024: ~4 MB): at most
# MAX_PREDICTION_ROWS rows (20x that pool) of at most MAX_PREDICTION_ROW_BYTES (an id, a team, a split, two labels
# and a confidence), read in chunks of PREDICTION_CHUNK_ROWS so that the rows are counted as they come.
_MAX_PREDICTION_ROWS = 1_000_000
_MAX_PREDICTION_ROW_BYTES = 512
_MAX_PREDICTIONS_BYTES = _MAX_PREDICTION_ROWS * _MAX_PREDICTION_ROW_BYTES
_PREDICTION_CHUNK_ROWS = 100_000


@dataclass
class Run:
    source: str  # the predictions file
    layout: str  # "agrieval" or "agri_script"
    protocol: str
    arch: str  # canonical name (agrieval.scoring.ctv._arch_names)
    fold: str
    train_teams: list[str]
    n: dict[str, int]  # images per split (train may be 0: older agrieval runs wrote val and test only)
    n_correct: dict[str, int]
    team_n: dict[str, int] = field(default_factory=dict)  # per test team
    team_correct: dict[str, int] = field(default_factory=dict)
    arch_raw: str = ""  # as the run wrote it
    meta_file: str = ""
    history: list[dict] = field(default_factory=list)  # per epoch, accuracies in percent
    stored: dict = field(default_factory=dict)  # numbers the run wrote about itself, for agrieval.scoring.ctv._cross_check
    labels: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)  # split -> (true, pred)
    seed: int | None = None  # the base seed run.json records (replicates differ in it); None: not recorded
    # A LOTO run's held-out runs (``ctv report --lodo``): one per training team, trained on the others and tested
    # on it, whose histories the leave_one_team_out rule reads (agrieval.scoring.ctv._selection_rules)
    held_out: list = field(default_factory=list, repr=False)

    def pct(self, split: str) -> float:
        """Accuracy of a split in percent, ``100 * n_correct / n`` (NaN when the split is absent)."""
        return accuracy_from_counts(self.n_correct.get(split, 0), self.n.get(split, 0), "percent")

    def team_pct(self, team: str) -> float:
        """Accuracy on one test team, in percent."""
        return accuracy_from_counts(self.team_correct[team], self.team_n[team], "percent")


def load_json(path: Path) -> dict:
    """A run tree's JSON object, strictly (``agrieval.scoring.analysis_input._json_input``: a coded rejection for any bad file)."""
    return load_object(path)


def read_predictions(path: Path, columns: Sequence[str], confidence_max: float):
    """The predictions table, every cell checked; ``confidence`` within [0, confidence_max]."""

    import pandas as pd


    name = str(path)
    if not path.exists():
        raise InputError("bad_run", f"predictions file missing: {name}", file=name)
    # read by the one opening rule (not a link to /dev/zero or a FIFO), and parsed from what was read
    data = read_regular(path, _MAX_PREDICTIONS_BYTES, "predictions file")
    chunks, n_rows = [], 0
    try:
        for chunk in pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, encoding="utf-8",
                                 chunksize=_PREDICTION_CHUNK_ROWS):
            n_rows += len(chunk)
            if n_rows > _MAX_PREDICTION_ROWS:
                raise InputError("unreadable_csv", f"the predictions file holds more than {_MAX_PREDICTION_ROWS:,} "
                                 "rows, more than a pool's images", file=name)
            chunks.append(chunk)
        frame = pd.concat(chunks, ignore_index=True) if len(chunks) > 1 else chunks[0]
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError("unreadable_csv", f"cannot read predictions: {exc}", file=name) from None
    if len(data) > n_rows * _MAX_PREDICTION_ROW_BYTES + (1 << 16):  # a header and rows of bounded width
        raise InputError("unreadable_csv", f"the predictions file is {len(data):,} bytes for {n_rows:,} rows: "
                         f"more than {_MAX_PREDICTION_ROW_BYTES} bytes a row", file=name)
    frame.columns = [c.strip() for c in frame.columns]
    header = list(frame.columns)
    for col in columns:
        if col not in header:
            raise InputError("missing_column", f"required column {col!r} is missing (header: {', '.join(header)})",
                             file=name, line=1)
    if frame.empty:
        raise InputError("empty_table", "the predictions file has no rows", file=name)
    for col in ("team", "split", "true_label", "predicted_label"):
        empty = np.flatnonzero(frame[col].str.strip() == "")
        if len(empty):
            raise InputError("empty_cell", f"column {col!r} is empty", file=name, line=int(empty[0]) + 2,
                             column=header.index(col) + 1)
    bad = np.flatnonzero(~frame["split"].isin(SPLITS))
    if len(bad):
        raise InputError("bad_run", f"split must be one of {', '.join(SPLITS)}, found {frame['split'].iloc[bad[0]]!r}",
                         file=name, line=int(bad[0]) + 2, column=header.index("split") + 1)
    conf = pd.to_numeric(frame["confidence"], errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(conf) | (conf < 0) | (conf > confidence_max))
    if len(bad):
        scale = "a percentage (0-100)" if confidence_max > 1 else "a probability (0-1)"
        raise InputError("bad_number", f"confidence must be {scale}, found {frame['confidence'].iloc[bad[0]]!r}",
                         file=name, line=int(bad[0]) + 2, column=header.index("confidence") + 1)
    return frame


def _infer_protocol(frame, name: str) -> tuple[str | None, str | None]:
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


def build_run(frame, *, source: str, layout: str, meta_file: str, protocol: str | None, fold: str | None,
              arch: str, train_teams: list[str] | None) -> Run:
    """A Run from a checked predictions table; ``protocol``/``fold`` as the JSON states them (or None)."""
    inferred, inferred_fold = _infer_protocol(frame, source)
    if inferred is None:
        if protocol is None or fold is None:
            raise InputError("bad_run", "cannot tell TOTO from LOTO from the splits and the JSON does not say",
                             file=meta_file)
        inferred, inferred_fold = protocol, fold
    if protocol is not None and protocol != inferred:
        raise InputError("bad_run", f"the JSON says {protocol} but the predictions' splits are those of "
                         f"{inferred} (fold {inferred_fold})", file=meta_file)
    if fold is not None and fold != inferred_fold:
        raise InputError("bad_run", f"the JSON names fold {fold!r} but the predictions' splits give "
                         f"{inferred_fold!r}", file=meta_file)
    true = frame["true_label"].to_numpy(dtype=object)
    pred = frame["predicted_label"].to_numpy(dtype=object)
    correct = true == pred
    split = frame["split"].to_numpy()
    teams = frame["team"].to_numpy()
    n = {s: int((split == s).sum()) for s in SPLITS}
    n_correct = {s: int(correct[split == s].sum()) for s in SPLITS}
    is_test = split == "test"
    team_n = {t: int((is_test & (teams == t)).sum()) for t in sorted(set(teams[is_test]))}
    team_correct = {t: int(correct[is_test & (teams == t)].sum()) for t in team_n}
    if train_teams is None:
        train_teams = [inferred_fold] if inferred == "TOTO" else sorted(set(teams[split == "val"]))
    return Run(source, layout, inferred, canonical_arch(arch), inferred_fold, [str(t) for t in train_teams], n,
               n_correct, team_n, team_correct, arch_raw=arch, meta_file=meta_file,
               labels={s: (true[split == s], pred[split == s]) for s in SPLITS if n[s]})


def _read_history(path: Path) -> list[dict]:
    """The per-epoch records; an accuracy must be a finite fraction in [0, 1] (or null: not measured)."""
    from agrieval.scoring.analysis_input._json_input import MAX_HISTORY_BYTES, parse, read_regular

    if not path.exists() and not path.is_symlink():
        return []  # a run without a per-epoch history (the script's runs, older agrieval runs)
    name = str(path)
    try:
        text = read_regular(path, MAX_HISTORY_BYTES, "history file").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("bad_json", f"cannot parse the epoch records: not UTF-8 (byte {exc.start})",
                         file=name) from None
    rows = []
    for k, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        row = parse(line, file=name, line=k)
        if (not isinstance(row, dict) or not isinstance(row.get("epoch"), int) or isinstance(row["epoch"], bool)
                or row["epoch"] < 0):
            raise InputError("bad_json", "each line must be an object with a non-negative integer 'epoch'",
                             file=name, line=k)
        record = {"epoch": row["epoch"]}
        for s in SPLITS:
            value = row.get(f"{s}_acc")
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError("bad_number", f"{s}_acc must be a number (a fraction), found {value!r}",
                                 file=name, line=k)
            if not 0 <= value <= 1:
                raise InputError("out_of_range", f"{s}_acc is a fraction (0-1), found {value}", file=name, line=k)
            record[s] = 100.0 * value
        rows.append(record)
    return rows


def read_agrieval_run(meta_path: Path) -> Run:
    """The run whose ``run.json`` is ``meta_path`` (an agrieval run folder: its predictions and history beside it),
    checked as it is read: an ``InputError`` naming the file and the field otherwise."""
    meta = load_json(meta_path)
    for key in ("protocol", "arch", "fold"):
        if not isinstance(meta.get(key), str) or not meta[key].strip():
            raise InputError("bad_json", f"run.json needs a non-empty string {key!r}", file=str(meta_path))
    protocol = meta["protocol"].strip().upper()
    if protocol not in PROTOCOLS:
        raise InputError("bad_protocol", f"protocol must be TOTO or LOTO, found {meta['protocol']!r}",
                         file=str(meta_path))
    pred_path = meta_path.parent / "predictions.csv"
    frame = read_predictions(pred_path, _AGRIEVAL_COLUMNS, 1.0)
    train = meta.get("train_teams")
    run = build_run(frame, source=str(pred_path), layout="agrieval", meta_file=str(meta_path), protocol=protocol,
                    fold=meta["fold"].strip(), arch=meta["arch"].strip(),
                    train_teams=train if isinstance(train, list) else None)
    run.history = _read_history(meta_path.parent / "history.jsonl")
    seed = meta.get("base_seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InputError("bad_json", f"run.json's base_seed must be an integer, found {seed!r}", file=str(meta_path))
    run.seed = seed
    run.stored = {k: meta[k] for k in ("train_acc", "val_acc", "test_acc", "per_test_team_acc") if k in meta}
    return run
