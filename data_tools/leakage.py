"""Leak check of split manifests: no image, and no copy of it, on both sides of a boundary.

In every fold, a *leak* is a pair of rows on the two sides of a checked
boundary that are the same image (same ``image_id``), or whose pHashes (looked
up in a catalog by absolute path) are equal or, with ``radius`` > 0, within that
Hamming distance. Near pairs are found once for the whole pool
(``hamming.pairs_within``), then checked per fold.

The boundaries checked by default are train/test, train/val and val/test: a
test image copied into val does not train the model, but it picks the
checkpoint and the hyper-parameters, so the reported test accuracy is no
longer measured on unseen images.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from agrieval.data_tools._hamming import hamming, hex_to_uint64, pairs_within
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.splits import SPLIT_COLUMNS
from agrieval.data_tools.tables import read_folds_json, read_table
from agrieval.scoring.writing.table_paths import inside

BOUNDARIES = {"train/test": frozenset({"train", "test"}), "train/val": frozenset({"train", "val"}),
              "val/test": frozenset({"val", "test"})}


@dataclass(frozen=True)
class _Leak:
    protocol: str
    fold: str
    kind: str        # "same image", "same pHash" or "near pHash"
    distance: int
    split_a: str
    image_a: str     # the row's path (the organizer's view; image_id is an opaque hash)
    split_b: str
    image_b: str

    def render(self) -> str:
        return (f"{self.protocol}/{self.fold}: {self.kind} (distance {self.distance}): "
                f"{self.split_a} {self.image_a} <-> {self.split_b} {self.image_b}")


def _find_fold_sets(splits_dir) -> list[Path]:
    """Folders holding a ``folds.json``: ``splits_dir`` itself or its protocol sub-folders."""
    splits_dir = Path(splits_dir)
    if (splits_dir / "folds.json").is_file():
        return [splits_dir]
    found = sorted(p.parent for p in splits_dir.glob("*/folds.json"))
    if not found:
        raise DataError("bad_table", f"{splits_dir}: no folds.json here or in a sub-folder (toto/, loto/)")
    return found


def check_leakage(splits_dir, catalog_df: pd.DataFrame, *, radius: int = 0,
                  boundaries: tuple[str, ...] = tuple(BOUNDARIES)) -> list[_Leak]:
    """Every leak across ``boundaries`` (names from ``BOUNDARIES``), fold by fold."""
    unknown = sorted(set(boundaries) - set(BOUNDARIES))
    if unknown:
        raise ValueError(f"unknown boundary {unknown}; choose from {', '.join(BOUNDARIES)}")
    checked = [BOUNDARIES[b] for b in boundaries]
    folds = []
    for folder in _find_fold_sets(splits_dir):
        info = read_folds_json(folder / "folds.json")
        root = Path(info["root"])
        for fold, meta in sorted(info["folds"].items()):
            name = meta.get("file") if isinstance(meta, dict) else None
            fold_file = inside(folder, name, escaped=False, where=f"{folder / 'folds.json'}, fold {fold!r}",
                               columns=("file",))  # a fold file is read only from its own folder
            m = read_table(fold_file, required=tuple(SPLIT_COLUMNS))
            bad = sorted(set(m["split"]) - {"train", "val", "test"})
            if bad:
                raise DataError("bad_table", f"{fold_file}: unknown split value(s) {bad}")
            m["abs"] = [str(root / p) for p in m["path"]]
            folds.append((info["protocol"], fold, m))

    cat = catalog_df[catalog_df["readable"]]
    lookup = dict(zip((str(Path(r) / p) for r, p in zip(cat["root"], cat["path"])), cat["phash"]))
    all_paths = sorted({p for _, _, m in folds for p in m["abs"]})
    missing = [p for p in all_paths if p not in lookup]
    if missing:
        raise DataError("bad_table", f"{len(missing)} image(s) of the split manifests are not readable rows of the "
                        f"catalog (e.g. {missing[0]}); catalog the folder the splits point to")
    uniq_hex = sorted({lookup[p] for p in all_paths})
    uniq = hex_to_uint64(uniq_hex)
    code_of = {h: k for k, h in enumerate(uniq_hex)}
    ia, ib = pairs_within(uniq, radius) if radius > 0 else (np.zeros(0, int), np.zeros(0, int))
    near = pd.DataFrame({"ha": np.concatenate([np.arange(len(uniq)), ia]),
                         "hb": np.concatenate([np.arange(len(uniq)), ib])})
    near["distance"] = hamming(uniq[near["ha"].to_numpy()], uniq[near["hb"].to_numpy()])

    leaks: list[_Leak] = []
    for protocol, fold, m in folds:
        where = dict(zip(m["image_id"], m["path"]))
        dup = m[m.duplicated("image_id", keep=False)]
        for image_id, rows in sorted(dup.groupby("image_id"), key=lambda g: where[g[0]]):  # by path, not keyed id
            splits = sorted(set(rows["split"]))
            for a in splits:
                for b in splits:
                    if a < b and {a, b} in checked:
                        leaks.append(_Leak(protocol, fold, "same image", 0, a, where[image_id], b,
                                          where[image_id]))
        rows = m.drop_duplicates("image_id").reset_index(drop=True)
        rows["h"] = [code_of[lookup[p]] for p in rows["abs"]]
        left = rows[["image_id", "split", "h"]].rename(columns={"image_id": "ia", "split": "sa", "h": "ha"})
        right = rows[["image_id", "split", "h"]].rename(columns={"image_id": "ib", "split": "sb", "h": "hb"})
        pairs = near.merge(left, on="ha").merge(right, on="hb")
        # ordered and oriented by path, never by id: ids are keyed (data_tools/_keyed_ids.py), so an order by id
        # would change with each pool's key
        pairs["pa"] = [where[i] for i in pairs["ia"]]
        pairs["pb"] = [where[i] for i in pairs["ib"]]
        # a pair of different images, counted once, across a checked boundary
        pairs = pairs[(pairs["ia"] != pairs["ib"]) & ((pairs["ha"] != pairs["hb"]) | (pairs["pa"] < pairs["pb"]))]
        crossing = [({a, b} in checked) for a, b in zip(pairs["sa"], pairs["sb"])]
        pairs = pairs[np.array(crossing, dtype=bool)] if len(pairs) else pairs
        for r in pairs.sort_values(["pa", "pb"]).itertuples():
            kind = "same pHash" if r.distance == 0 else "near pHash"
            leaks.append(_Leak(protocol, fold, kind, int(r.distance), r.sa, where[r.ia], r.sb, where[r.ib]))
    return leaks
