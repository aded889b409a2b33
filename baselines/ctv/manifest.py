"""Read one fold's split manifest, strictly.

Layout (written by ``agrieval data splits``)::

    SPLITS/<protocol>/folds.json     {"root": "/abs/data/root", ...parameters}
    SPLITS/<protocol>/<fold>.csv     image_id,path,team,class,split   (split: train/val/test)

``path`` is relative to ``root`` (``--data-root`` overrides it, for a copy of
the data elsewhere). Every problem is an error naming the file and line.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from agrieval.baselines.ctv.errors import CTVError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes, read_json
from agrieval.scoring.text.file_names import unescape_name
from agrieval.scoring.writing.table_paths import UnsafePath, inside

COLUMNS = ("image_id", "path", "team", "class", "split")
SPLITS = ("train", "val", "test")


@dataclass
class FoldData:
    protocol: str
    fold: str
    manifest: Path
    root: Path
    frame: pd.DataFrame                 # columns COLUMNS + "label" (int) + "abspath"
    classes: list[str]
    params: dict = field(default_factory=dict)

    def part(self, split: str) -> pd.DataFrame:
        return self.frame[self.frame["split"] == split].reset_index(drop=True)

    def teams(self, split: str) -> list[str]:
        return sorted(self.part(split)["team"].unique().tolist())


def list_folds(splits_dir: str | Path, protocol: str) -> list[str]:
    """Fold names of a protocol: the sorted stems of its ``*.csv`` manifests."""
    pdir = Path(splits_dir) / protocol
    if not pdir.is_dir():
        raise CTVError("splits_missing", f"{pdir}: no such folder; make the splits with "
                       f"'agrieval data splits' (expected SPLITS/{protocol}/<fold>.csv and folds.json)")
    folds = sorted(p.stem for p in pdir.glob("*.csv") if not p.name.startswith("."))
    if not folds:
        raise CTVError("splits_missing", f"{pdir}: no <fold>.csv manifest in this folder")
    return folds


_MAX_FOLDS_JSON_BYTES = 64 << 20  # kilobytes in practice
_MAX_MANIFEST_BYTES = 4 << 30  # ~100 bytes a row: tens of millions of images


def read_folds_json(splits_dir: str | Path, protocol: str) -> dict:
    path = Path(splits_dir) / protocol / "folds.json"
    if not path.is_file():
        raise CTVError("folds_json_invalid", f"{path}: missing; it records the data root the manifests' "
                       "paths are relative to (or pass --data-root)")
    try:  # the one opening rule: a regular file, capped, JSON nested shallowly
        data = read_json(path, max_bytes=_MAX_FOLDS_JSON_BYTES, what="folds.json")
    except UntrustedFileError as exc:
        raise CTVError("folds_json_invalid", f"{path}: {exc.message}") from None
    if not isinstance(data, dict):
        raise CTVError("folds_json_invalid", f"{path}: expected a JSON object at the top level")
    return data


def load_fold(splits_dir: str | Path, protocol: str, fold: str, *, data_root: str | Path | None = None,
              check_files: bool = True) -> FoldData:
    """One fold of a protocol as the runner trains on it: the manifest ``<splits_dir>/<protocol>/<fold>.csv``
    read and checked, its images under ``data_root`` (default: the ``root`` of the protocol's ``folds.json``),
    each file checked to exist unless ``check_files=False``. A missing or malformed part is a ``CTVError`` with
    its code."""
    manifest = Path(splits_dir) / protocol / f"{fold}.csv"
    if not manifest.is_file():
        known = ", ".join(list_folds(splits_dir, protocol))
        raise CTVError("splits_missing", f"{manifest}: no such manifest; folds of {protocol}: {known}")
    params = read_folds_json(splits_dir, protocol) if data_root is None else _maybe_folds_json(splits_dir, protocol)
    if data_root is None:
        if not params.get("root"):
            raise CTVError("folds_json_invalid", f"{Path(splits_dir) / protocol / 'folds.json'}: no 'root' "
                           "entry; pass --data-root")
        root = Path(unescape_name(params["root"]))  # names as data_tools writes them (agrieval.scoring.text.file_names)
    else:
        root = Path(data_root)
    frame = _read_manifest(manifest)
    classes = sorted(frame["class"].unique().tolist())
    if isinstance(params.get("classes"), list):
        declared = [str(c) for c in params["classes"]]
        extra = sorted(set(classes) - set(declared))
        if extra:
            raise CTVError("manifest_invalid", f"{manifest}: classes {extra} are not in folds.json's 'classes'")
        classes = sorted(declared)
    missing_train = sorted(set(classes) - set(frame.loc[frame["split"] == "train", "class"]))
    if missing_train and not isinstance(params.get("classes"), list):
        raise CTVError("manifest_invalid", f"{manifest}: classes {missing_train} have no training image")
    index = {c: i for i, c in enumerate(classes)}
    frame["label"] = frame["class"].map(index).astype("int64")
    try:  # a manifest is data: an image is read only from under its root (agrieval.scoring.writing.table_paths)
        frame["abspath"] = [str(inside(root, p, where=f"{manifest}:{line}", columns=("path",), nested=(0,),
                                       follow=True)) for line, p in enumerate(frame["path"], start=2)]
    except UnsafePath as exc:
        raise CTVError("unsafe_path", exc.message) from None
    if check_files:
        for line, p in enumerate(frame["abspath"], start=2):
            if not Path(p).is_file():
                raise CTVError("image_missing", f"{manifest}:{line}: image {p} not found (data root {root}; "
                               "set it with --data-root)")
    return FoldData(protocol, fold, manifest, root, frame, classes, params)


def _maybe_folds_json(splits_dir, protocol) -> dict:
    try:
        return read_folds_json(splits_dir, protocol)
    except CTVError:
        return {}


def _read_manifest(path: Path) -> pd.DataFrame:
    try:  # (through the one opening rule: a FIFO or /dev/zero named fold.csv is refused, not read forever)
        data = read_bytes(path, max_bytes=_MAX_MANIFEST_BYTES, what="fold manifest")
        frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, encoding="utf-8")
    except UntrustedFileError as exc:
        raise CTVError("manifest_invalid", f"{path}: {exc.message}") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise CTVError("manifest_invalid", f"{path}: cannot parse as UTF-8 CSV ({exc})") from exc
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise CTVError("manifest_invalid", f"{path}: missing column(s) {missing}; header is {list(frame.columns)}")
    frame = frame[list(COLUMNS)].copy()
    if frame.empty:
        raise CTVError("manifest_invalid", f"{path}: no data rows")
    for col in COLUMNS:
        empty = frame.index[frame[col].str.strip() == ""]
        if len(empty):
            raise CTVError("manifest_invalid", f"{path}:{empty[0] + 2}: empty '{col}' cell")
    bad = frame.index[~frame["split"].isin(SPLITS)]
    if len(bad):
        raise CTVError("manifest_invalid", f"{path}:{bad[0] + 2}: split {frame.at[bad[0], 'split']!r} "
                       f"is not one of {', '.join(SPLITS)}")
    dup = frame.index[frame["image_id"].duplicated()]
    if len(dup):
        raise CTVError("manifest_invalid", f"{path}:{dup[0] + 2}: image_id {frame.at[dup[0], 'image_id']!r} "
                       "appears twice")
    for split in ("train", "val", "test"):
        if not (frame["split"] == split).any():
            raise CTVError("manifest_invalid", f"{path}: no '{split}' rows")
    return frame
