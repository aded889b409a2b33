"""TOTO and LOTO split manifests of a clean pool, one CSV per fold.

TOTO (train on one team): fold ``T`` trains and validates on team ``T``
(``val_fraction`` of it, stratified by class) and tests on every other team.
LOTO (leave one team out): fold ``T`` tests on team ``T``; the other teams'
pool is split train/val, stratified by team and class (``team_class``, the
paper) or by class only (``class``, the public training script).

Stratified split: for each class ``c`` the validation count is
``n_val(c) = floor(f * n_c + 1/2)``; with ``team_class`` it is shared among the
teams by largest remainder (quota ``f * n_tc``, ties by team name), so every
stratum is within one image of its quota and every class within one image of
``f * n_c``. Inside a stratum, rows sorted by ``path`` are permuted by a
generator seeded from ``sha256(seed|protocol|fold|team|class)``: folds do not
depend on each other, nor on file-system order.

The ``script`` method (preset ``official``) is the public training script's
split instead: one ``train_test_split(test_size=f, random_state=seed,
stratify=labels)`` per fold (``shuffle_split``), the same seed for every fold,
over the fold's pool in the script's order: training teams in sorted order,
each team's images in listing order. The script lists with ``Path.iterdir()``,
so its split depends on the file system; ``listing`` (one path per line, the
order the script saw) reproduces it, and without one the images are taken in
sorted order.

Files: ``OUT/<protocol>/<fold>.csv`` with the columns ``image_id, path, team, class, split``, ``path``
relative to ``root``; and ``OUT/<protocol>/folds.json``: the parameters, the root, the counts per fold and
split, and ``row_order``, each split's order as ``ROW_ORDER`` names it.

Rows are sorted by split, then by ``image_id``. The id is a keyed hash of the path, so that order says nothing
of the classes. Under ``script`` the train and val rows keep the order ``train_test_split`` returns, the order
of the script's datasets, whose loaders shuffle it anyway. The test rows are sorted by ``image_id`` there too:
the script lists teams, then ``team/class/file`` paths, an order that lines the classes up.

``image_id`` reveals nothing: it is ``img-<16 hex digits of HMAC-SHA256(key, path)>``
(``agrieval.data_tools._keyed_ids``), with a per-pool secret key kept in a key file that is created once and
reused. An id that carries the truth (the pool's ``<team>/<class>/<file>`` paths), or a plain hash of such a
guessable path, lets anyone who sees the ids, e.g. a participant scored on them, read the labels. The path,
which does name the class folder, is in its own column, and so is the team. Written through ``agrieval.scoring.writing.policy``:
an existing fold file or ``folds.json`` is refused unless ``--overwrite``, and
the folder may not be inside the catalogued root.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Union

import numpy as np
import pandas as pd

from agrieval.data_tools._keyed_ids import keyed_id, load_or_create_key
from agrieval.data_tools._shuffle_split import stratified_train_test_split
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.tables import read_folds_json, table_row, write_table
from agrieval.data_tools.versions import STAGE_LIBRARIES, library_versions
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes
from agrieval.scoring.text.file_names import unescape_name
from agrieval.scoring.writing.policy import OutputPlan
from agrieval.scoring.writing.table_paths import inside

SPLIT_COLUMNS = ["image_id", "path", "team", "class", "split"]
_SPLIT_ORDER = {"train": 0, "val": 1, "test": 2}
PROTOCOLS = ("toto", "loto")
_STRATIFY = ("team_class", "class")
_METHODS = ("per_fold", "script")
# The order of each split's rows in a fold file, per method (folds.json "row_order"): "image_id" is sorted by
# image_id, a keyed hash of the path, an order independent of the classes and of the teams; "train_test_split"
# is the order the public script's train_test_split returns (its datasets' order; nothing of it is published).
_ROW_ORDER = {"per_fold": {"train": "image_id", "val": "image_id", "test": "image_id"},
             "script": {"train": "train_test_split", "val": "train_test_split", "test": "image_id"}}
# Named presets of the study: the paper's text (per-fold seeds), and its public training script.
SPLIT_PRESETS = {"paper": {"stratify": "team_class", "method": "per_fold"},
                 "official": {"stratify": "class", "method": "script"}}


def _stratum_seed(*parts) -> np.random.SeedSequence:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return np.random.SeedSequence(int.from_bytes(digest[:16], "little"))


def _largest_remainder(quotas: dict[str, float], total: int) -> dict[str, int]:
    base = {k: int(np.floor(q)) for k, q in quotas.items()}
    left = total - sum(base.values())
    order = sorted(quotas, key=lambda k: (-(quotas[k] - base[k]), k))
    for k in order[:left]:
        base[k] += 1
    return base


def _stratified_val(pool: pd.DataFrame, *, val_fraction: float, by_team: bool, seed_parts: tuple) -> pd.Series:
    """Boolean Series: is the row in validation? (formula in the module docstring)."""
    is_val = pd.Series(False, index=pool.index)
    for cls, rows in sorted(pool.groupby("class"), key=lambda kv: kv[0]):
        n_val = int(np.floor(val_fraction * len(rows) + 0.5))
        if by_team:
            sizes = rows.groupby("team").size()
            quota = _largest_remainder({t: val_fraction * n for t, n in sizes.items()}, n_val)
            strata = [(t, rows[rows["team"] == t], quota[t]) for t in sorted(sizes.index)]
        else:
            strata = [("*", rows, n_val)]
        for team, members, k in strata:
            ordered = members.sort_values("path" if "path" in members.columns else "image_id", kind="stable")
            rng = np.random.default_rng(_stratum_seed(*seed_parts, team, cls))
            picked = ordered.index[rng.permutation(len(ordered))[:k]]
            is_val[picked] = True
    return is_val


_KEY_FILE = "id.key"  # the key's place when make_splits is given none: beside the fold folders


def _prepare_pool(df: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Kept, readable rows with a known class, as ``path, team, class``; and the root."""
    rows = df[df["readable"]]
    if "keep" in rows.columns:
        rows = rows[rows["keep"]]
    unknown = rows[rows["class"] == ""]
    if len(unknown):
        raise DataError("unknown_class", f"{len(unknown)} row(s) have no known class (folders "
                        f"{sorted(set(unknown['class_raw']))}); fix the class map and re-run the catalog")
    roots = sorted(set(rows["root"]))
    if len(roots) != 1:
        raise DataError("mixed_roots" if roots else "empty_pool",
                        f"splits need the images of one root, the catalog has {len(roots)}: {roots[:3]}")
    if rows["team"].nunique() < 2:
        raise DataError("bad_option", "cross-team splits need at least 2 teams")
    pool = pd.DataFrame({"path": rows["path"], "team": rows["team"], "class": rows["class"]})
    return pool.sort_values("path", kind="stable").reset_index(drop=True), roots[0]


def _with_ids(pool: pd.DataFrame, key: bytes) -> pd.DataFrame:
    """``pool`` with its ``image_id`` column first: the keyed id of each path (``keyed_ids.keyed_id``)."""
    pool = pool.assign(image_id=[keyed_id(key, p) for p in pool["path"]])
    if not pool["image_id"].is_unique:  # 64-bit digests: not seen in practice, but never a silent merge
        dup = pool[pool["image_id"].duplicated(keep=False)].sort_values("path")
        raise DataError("name_collision", f"{dup['path'].iloc[0]} and {dup['path'].iloc[1]} get the same "
                        f"image_id {dup['image_id'].iloc[0]}")
    return pool[["image_id", *[c for c in pool.columns if c != "image_id"]]]


_MAX_LISTING_BYTES = 256 << 20  # one relative path per line: a pool of millions of images fits


def _read_listing(path: str | Path, image_paths) -> dict[str, int]:
    """``path -> position`` from a listing file: one image path per line, in the order the script saw.

    A line matches the image whose ``path`` (``team/class/name``, relative to
    the root) it equals or ends with after a ``/``, so absolute paths under
    any root work. Every pool image must appear exactly once, and every
    non-blank line must be a pool image.
    """
    ids = set(image_paths)
    depths = sorted({i.count("/") + 1 for i in ids})
    position: dict[str, int] = {}

    try:  # the one opening rule (scoring/runtime/untrusted.py): a FIFO or a device is refused, not read
        lines = read_bytes(path, max_bytes=_MAX_LISTING_BYTES, what="listing").decode("utf-8").splitlines()
    except UntrustedFileError as exc:
        raise DataError("bad_listing", f"{path}: {exc.message}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError("bad_listing", f"{path}: cannot read the listing ({exc})") from None
    for number, line in enumerate(lines, 1):
        text = line.strip().replace("\\", "/")
        if not text:
            continue
        parts = text.split("/")
        match = next((s for s in ("/".join(parts[-d:]) for d in depths if d <= len(parts)) if s in ids), None)
        if match is None:
            raise DataError("bad_listing", f"{path}:{number}: {text!r} is not an image of the pool")
        if match in position:
            raise DataError("bad_listing", f"{path}:{number}: {match} is listed twice")
        position[match] = len(position)
    missing = sorted(ids - set(position))
    if missing:
        raise DataError("bad_listing", f"{path}: {len(missing)} pool image(s) are not listed, e.g. {missing[0]}")
    return position


def _script_val(dev: pd.DataFrame, *, val_fraction: float, seed: int, by_team: bool) -> pd.Series:
    """Boolean Series: is the row in validation under the public script's split (rows in the script's order)?"""
    return _script_split(dev, val_fraction=val_fraction, seed=seed, by_team=by_team)[0]


def _script_split(dev: pd.DataFrame, *, val_fraction: float, seed: int, by_team: bool) -> tuple[pd.Series, pd.Series]:
    """(is_val, position): the script's split, and each row's place in the list ``train_test_split`` returns
    it in (train or val). The script's datasets keep that order, and its shuffling permutes those indices,
    so the manifest keeps it too."""
    labels = (dev["team"] + "|" + dev["class"]) if by_team else dev["class"]
    train, val = stratified_train_test_split(labels.to_numpy(), test_size=val_fraction, seed=seed)
    is_val = pd.Series(False, index=dev.index)
    is_val.iloc[val] = True
    position = pd.Series(0, index=dev.index, dtype="int64")
    position.iloc[train] = np.arange(len(train))
    position.iloc[val] = np.arange(len(val))
    return is_val, position


def _script_order(rows: pd.DataFrame) -> pd.DataFrame:
    """Teams in sorted order, each team's rows by listing position (``_pos``), as the script concatenates them."""
    return rows.sort_values(["team", "_pos"], kind="stable")


def _fold_manifest(pool: pd.DataFrame, protocol: str, fold: str, *, seed: int, val_fraction: float,
                  stratify: str, method: str = "per_fold") -> pd.DataFrame:
    if protocol == "toto":
        dev, test = pool[pool["team"] == fold], pool[pool["team"] != fold]
        by_team = False  # one team: class strata
    else:
        dev, test = pool[pool["team"] != fold], pool[pool["team"] == fold]
        by_team = stratify == "team_class"
    if method == "script":
        if "_pos" not in dev.columns:
            dev = dev.assign(_pos=np.arange(len(dev)))  # pool sorted by path: the sorted listing
        dev = _script_order(dev)
        try:
            is_val, position = _script_split(dev, val_fraction=val_fraction, seed=seed, by_team=by_team)
        except DataError as exc:
            raise DataError(exc.code, f"{protocol.upper()} fold {fold}: {exc.message}") from None
        # train and val rows in the order train_test_split returns them (the script's datasets, whose indices
        # its loaders shuffle); test rows by image_id, as under the paper preset: the script's test order
        # (teams sorted, then team/class/file) lines the classes up, and a solution or an id list made from
        # these rows would tell the labels by position (row order: ROW_ORDER, written in folds.json)
        test = test.sort_values("image_id", kind="stable")
        out = pd.concat([dev.assign(split=np.where(is_val, "val", "train"), _k=position.to_numpy()),
                         test.assign(split="test", _k=np.arange(len(test)))])
        out = out.assign(_o=out["split"].map(_SPLIT_ORDER)).sort_values(["_o", "_k"], kind="stable")
        return out[SPLIT_COLUMNS].reset_index(drop=True)
    is_val = _stratified_val(dev, val_fraction=val_fraction, by_team=by_team, seed_parts=(seed, protocol, fold))
    out = pd.concat([dev.assign(split=np.where(is_val, "val", "train")), test.assign(split="test")])
    out = out.assign(_o=out["split"].map(_SPLIT_ORDER)).sort_values(["_o", "image_id"], kind="stable")
    return out[SPLIT_COLUMNS].reset_index(drop=True)


def without(clean_catalog_df: pd.DataFrame, team: str) -> pd.DataFrame:
    """The catalog without ``team``'s rows: the pool of a LOTO fold's training teams, whose own LOTO folds
    (each training team held out in turn) select a model without looking at the fold's test team (DomainBed's
    leave-one-domain-out). Refused (``bad_option``) when ``team`` is not a team of the catalog, or leaves fewer
    than two teams."""
    teams = sorted(clean_catalog_df["team"].unique())
    if team not in teams:
        raise DataError("bad_option", f"--without-team {team!r} is not a team of the catalog; its teams: "
                        f"{', '.join(teams)}")
    if len(teams) < 3:
        raise DataError("bad_option", f"--without-team {team!r} leaves {len(teams) - 1} team: leave-one-team-out "
                        "selection needs at least two training teams")
    return clean_catalog_df[clean_catalog_df["team"] != team]


def make_splits(clean_catalog_df: pd.DataFrame, protocol: str, out_dir, *, seed: int = 42,
                val_fraction: float = 0.3, stratify: str = "team_class", method: str = "per_fold",
                listing: str | Path | None = None, plan: OutputPlan | None = None,
                id_key: Union[bytes, str, Path, None] = None) -> list[Path]:
    """Write every fold of ``protocol`` under ``out_dir/<protocol>/``; return the fold CSV paths (team order).

    ``method`` is ``per_fold`` (the paper preset: seeded per fold and stratum)
    or ``script`` (the official preset: the public script's split, in the
    order of ``listing`` or, without one, sorted order). ``plan`` carries
    ``--overwrite`` and the files the command reads. ``id_key`` is the key of the
    image ids (``keyed_ids``): the key itself, or its file (created there on first
    use); default ``out_dir/id.key``. Keep it private and reuse it: same key, same ids.
    """
    if method not in _METHODS:
        raise DataError("bad_option", f"method must be one of {_METHODS}, got {method!r}")
    if listing is not None and method != "script":
        raise DataError("bad_option", "--listing sets the order of the public script's split; it needs "
                        "--preset official (the paper preset does not depend on file order)")
    if protocol not in PROTOCOLS:
        raise DataError("bad_option", f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    if stratify not in _STRATIFY:
        raise DataError("bad_option", f"stratify must be one of {_STRATIFY}, got {stratify!r}")
    if not 0.0 < val_fraction < 1.0:
        raise DataError("bad_option", f"val fraction must be strictly between 0 and 1, got {val_fraction}")
    pool, root = _prepare_pool(clean_catalog_df)
    if listing is not None:
        position = _read_listing(listing, pool["path"])
        pool = pool.assign(_pos=pool["path"].map(position))
    teams = sorted(pool["team"].unique())
    # A team name becomes a file name: refused (unsafe_path) if it would lead out of the folder.
    first_row = dict(zip(clean_catalog_df["team"][::-1], clean_catalog_df.index[::-1]))
    files = [inside(Path(out_dir) / protocol, team, suffix=".csv", columns=("team",), escaped=False,
                    where=table_row(clean_catalog_df, first_row.get(team, "?"))) for team in teams]
    target = Path(out_dir) / protocol
    stale = sorted(p.name for p in target.glob("*.csv") if p.stem not in teams) if target.is_dir() else []
    if stale:
        raise DataError("output_exists", f"{target} holds fold files of another pool ({stale[:3]}); "
                        "write to a new folder")
    plan = plan or OutputPlan()
    plan.add_sources(unescape_name(root))
    target = plan.claim_dir(target, what="splits folder")
    plan.claim_all([target / f.name for f in files] + [target / "folds.json"], what="split file")
    # The key once the outputs are known to be allowed: a refused run leaves nothing, not even a new key.
    key_file = None if isinstance(id_key, bytes) else Path(out_dir) / _KEY_FILE if id_key is None else Path(id_key)
    pool = _with_ids(pool, id_key if isinstance(id_key, bytes) else load_or_create_key(key_file))
    # Every fold is computed before the first file is written: a fold that fails leaves no partial output.
    manifests = [_fold_manifest(pool, protocol, team, seed=seed, val_fraction=val_fraction, stratify=stratify,
                               method=method) for team in teams]
    paths, folds = [], {}
    for team, manifest in zip(teams, manifests):
        path = write_table(manifest, target / f"{team}.csv")
        paths.append(path)
        per_split = manifest.groupby("split").size()
        per_class = manifest.groupby(["split", "class"]).size()
        folds[team] = {
            "file": path.name,
            "counts": {s: int(per_split.get(s, 0)) for s in _SPLIT_ORDER},
            "per_class": {s: {c: int(per_class.get((s, c), 0)) for c in sorted(pool["class"].unique())}
                          for s in _SPLIT_ORDER},
        }
    info = {
        "schema_version": 1, "protocol": protocol, "seed": seed, "val_fraction": val_fraction,
        "stratify": stratify if protocol == "loto" else "class", "method": method,
        "order": (str(Path(listing).resolve()) if listing is not None else "sorted") if method == "script" else None,
        "versions": library_versions(STAGE_LIBRARIES["splits"]),
        "row_order": _ROW_ORDER[method],
        # how the ids were made, and where the key is (never the key: this file is no secret store)
        "image_id": {"scheme": "img-<16 hex digits of HMAC-SHA256(key, path)>",
                     "key_file": str(key_file.resolve()) if key_file is not None else None},
        "seed_per_fold": method == "per_fold", "root": str(Path(root).resolve()),
        "path_relative_to": "root", "n_images": int(len(pool)), "teams": teams,
        "classes": sorted(pool["class"].unique()), "folds": folds,
    }
    write_text(target / "folds.json", json.dumps(info, indent=2, sort_keys=True) + "\n")
    return paths


def summarize_splits(paths: list[Path]) -> str:
    if not paths:
        return "no folds"
    info = read_folds_json(paths[0].parent / "folds.json")
    lines = [f"{info['protocol'].upper()}: {len(paths)} folds, seed {info['seed']}, val fraction "
             f"{info['val_fraction']}, stratified by {info['stratify']}, root {info['root']}"]
    if info.get("method") == "script":
        lines[0] += f"; the public script's split (same seed every fold, {info['order']} order)"
    for team, fold in info["folds"].items():
        c = fold["counts"]
        lines.append(f"  {team}: train={c['train']} val={c['val']} test={c['test']} -> {paths[0].parent / fold['file']}")
    key_file = (info.get("image_id") or {}).get("key_file")
    if key_file:
        lines.append(f"  image ids keyed by {key_file} (keep it private; reuse it for the same ids)")
    return "\n".join(lines)
