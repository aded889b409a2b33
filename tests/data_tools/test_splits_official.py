"""``--preset official`` splits: scikit-learn's train_test_split per fold (the oracle), in listing order,
checked against scikit-learn and against the real outputs of the public AgrI script."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import train_test_split

from agrieval.data_tools._shuffle_split import stratified_train_test_split
from agrieval.data_tools.catalog import _CATALOG_COLUMNS as CATALOG_COLUMNS
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.splits import make_splits

REAL = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "real" / "agri_script"
TOTO_PRED = REAL / "CTV_TOTO_densenet_epochs_2" / "predictions"
LOTO_PRED = REAL / "CTV_LOTO_densenet_epochs_1" / "predictions"


def catalog_of(paths: list[str], root: str = "/data/clean") -> pd.DataFrame:
    rows = [{"root": root, "path": p, "team": p.split("/")[0], "class_raw": p.split("/")[1], "class": p.split("/")[1],
             "subcategory": "", "format": "JPEG", "width": 336, "height": 336, "bytes": 1, "mtime_ns": 0,
             "device": "unknown", "phash": f"{k:016x}", "phash_mode": "exact", "readable": True, "error": ""}
            for k, p in enumerate(paths)]
    return pd.DataFrame(rows, columns=CATALOG_COLUMNS)


@settings(max_examples=150, deadline=None)
@given(counts=st.lists(st.integers(2, 14), min_size=1, max_size=6), test_size=st.sampled_from([0.3, 0.2, 0.25, 0.5]),
       seed=st.integers(0, 2**32 - 1), shuffle_seed=st.integers(0, 1000))
def test_equals_sklearn_train_test_split(counts, test_size, seed, shuffle_seed):
    labels = [c for c, n in enumerate(counts) for _ in range(n)]
    random.Random(shuffle_seed).shuffle(labels)
    items = np.arange(len(labels))
    try:
        tr, te, _, _ = train_test_split(items, labels, test_size=test_size, random_state=seed, stratify=labels)
    except ValueError:
        with pytest.raises(DataError) as info:
            stratified_train_test_split(labels, test_size=test_size, seed=seed)
        assert info.value.code == "split_too_small"
        return
    mine_tr, mine_te = stratified_train_test_split(labels, test_size=test_size, seed=seed)
    assert mine_tr.tolist() == tr.tolist() and mine_te.tolist() == te.tolist()  # same rows, same order
    # string labels sort like the class indices the script uses (sorted class names)
    names = [f"class{c:02d}" for c in labels]
    assert stratified_train_test_split(names, test_size=test_size, seed=seed)[1].tolist() == te.tolist()


POOL = [f"{t}/{c}/{k:03d}.jpg" for t, n in (("t1", 9), ("t2", 7), ("t3", 11)) for c in ("chene", "frene", "tipu")
        for k in range(n + len(c))]


def sklearn_folds(listing: list[str], protocol: str) -> dict[str, set[str]]:
    """The script's val set per fold, computed with scikit-learn from a listing order."""
    teams = sorted({p.split("/")[0] for p in listing})
    out = {}
    for fold in teams:
        dev_teams = [fold] if protocol == "toto" else [t for t in teams if t != fold]
        paths = [p for t in dev_teams for p in listing if p.split("/")[0] == t]
        labels = [p.split("/")[1] for p in paths]
        _, val = train_test_split(paths, test_size=0.3, random_state=42, stratify=labels)
        out[fold] = set(val)
    return out


@pytest.mark.parametrize("protocol", ["toto", "loto"])
@pytest.mark.parametrize("listed", [False, True])
def test_official_preset_equals_sklearn_per_fold(tmp_path, protocol, listed):
    listing = sorted(POOL)
    kwargs = {}
    if listed:
        listing = list(POOL)
        random.Random(7).shuffle(listing)
        (tmp_path / "listing.txt").write_text("".join(f"/mnt/data/Dataset_w336_h336/{p}\n" for p in listing))
        kwargs["listing"] = tmp_path / "listing.txt"
    paths = make_splits(catalog_of(POOL), protocol, tmp_path / "out", stratify="class", method="script", **kwargs)
    expected = sklearn_folds(listing, protocol)
    for p in paths:
        m = pd.read_csv(p)
        assert set(m.loc[m["split"] == "val", "path"]) == expected[p.stem]
        assert set(m["path"]) == set(POOL)
    info = json.loads((tmp_path / "out" / protocol / "folds.json").read_text())
    assert info["method"] == "script" and info["seed_per_fold"] is False
    assert info["order"] == (str((tmp_path / "listing.txt").resolve()) if listed else "sorted")
    assert info["row_order"] == {"train": "train_test_split", "val": "train_test_split", "test": "image_id"}


def test_listing_order_changes_the_split(tmp_path):
    shuffled = list(POOL)
    random.Random(3).shuffle(shuffled)
    assert sklearn_folds(shuffled, "toto") != sklearn_folds(sorted(POOL), "toto")  # why --listing exists


def _real_listing() -> list[str]:
    """The order the script saw, read back from its own outputs: test rows keep the listing order."""
    order: dict[str, list[str]] = {}
    for name in ("trainteam01", "trainteam02"):
        m = pd.read_csv(TOTO_PRED / f"TOTO_densenet_{name}_predictions.csv")
        for team, g in m[m["split"] == "test"].groupby("team", sort=False):
            order.setdefault(team, list(g["file_path"]))
    return [p for t in sorted(order) for p in order[t]]


@pytest.mark.parametrize("protocol, folder", [("toto", TOTO_PRED), ("loto", LOTO_PRED)])
def test_reproduces_the_real_script_outputs(tmp_path, protocol, folder):
    listing = _real_listing()
    assert len(listing) == 143
    (tmp_path / "listing.txt").write_text("\n".join(listing) + "\n")
    pool = ["/".join(p.split("/")[-3:]) for p in listing]
    paths = make_splits(catalog_of(sorted(pool)), protocol, tmp_path / "out", stratify="class", method="script",
                        listing=tmp_path / "listing.txt")
    assert len(paths) == 4
    for p in paths:
        tag = ("TOTO_densenet_train" if protocol == "toto" else "LOTO_densenet_heldout") + p.stem
        real = pd.read_csv(folder / f"{tag}_predictions.csv")
        real["path"] = real["file_path"].str.split("/").str[-3:].str.join("/")
        mine = pd.read_csv(p)
        for split in ("train", "val"):
            # same rows in the same order: the script predicts each split unshuffled, in its datasets' order
            # (train_test_split's for train and val), the order its loaders shuffle
            assert mine.loc[mine["split"] == split, "path"].tolist() == real.loc[real["split"] == split,
                                                                                 "path"].tolist(), (p.stem, split)
        # the test rows: the script's, but by image_id (its order, teams then team/class/file, lines the
        # classes up; folds.json says which order each split has)
        test = mine[mine["split"] == "test"]
        assert sorted(test["path"]) == sorted(real.loc[real["split"] == "test", "path"]), p.stem
        assert test["image_id"].tolist() == sorted(test["image_id"]), p.stem
        assert real.loc[real["split"] == "test", "path"].tolist() != test["path"].tolist()
    # and the sorted default is a different split: the script's split depends on the listing
    other = make_splits(catalog_of(sorted(pool)), protocol, tmp_path / "sorted", stratify="class", method="script")
    assert any(set(pd.read_csv(a).query("split == 'val'")["path"])
               != set(pd.read_csv(b).query("split == 'val'")["path"]) for a, b in zip(paths, other))


def test_listing_errors(tmp_path):
    df = catalog_of(POOL)
    lst = tmp_path / "l.txt"
    for text, needle in (("\n".join(POOL + ["t9/chene/x.jpg"]), ":{}: 't9/chene/x.jpg' is not an image".format(
            len(POOL) + 1)), ("\n".join(POOL + POOL[:1]), "listed twice"), ("\n".join(POOL[1:]), "1 pool image(s)")):
        lst.write_text(text)
        with pytest.raises(DataError) as info:
            make_splits(df, "toto", tmp_path / "o", stratify="class", method="script", listing=lst)
        assert info.value.code == "bad_listing" and needle in info.value.message
    lst.write_text("\n".join(POOL))
    with pytest.raises(DataError) as info:
        make_splits(df, "toto", tmp_path / "o", listing=lst)
    assert info.value.code == "bad_option" and "--preset official" in info.value.message


def test_cli_official_listing(tmp_path):
    from click.testing import CliRunner

    from agrieval.data_tools._cli import data

    catalog_of(POOL).to_csv(tmp_path / "clean.csv", index=False)
    listing = list(POOL)
    random.Random(11).shuffle(listing)
    (tmp_path / "l.txt").write_text("\n".join(listing))
    res = CliRunner().invoke(data, ["splits", str(tmp_path / "clean.csv"), "--protocol", "loto", "-o",
                                    str(tmp_path / "s"), "--preset", "official", "--listing", str(tmp_path / "l.txt")])
    assert res.exit_code == 0, res.output
    assert "the public script's split (same seed every fold" in res.output
    expected = sklearn_folds(listing, "loto")
    for fold, val in expected.items():
        m = pd.read_csv(tmp_path / "s" / "loto" / f"{fold}.csv")
        assert set(m.loc[m["split"] == "val", "path"]) == val


def test_too_small_fold_names_the_fold(tmp_path):
    pool = [p for p in POOL if not (p.startswith("t2/tipu/") and not p.endswith("/000.jpg"))]  # one t2 tipu image
    with pytest.raises(DataError) as info:
        make_splits(catalog_of(pool), "toto", tmp_path, stratify="class", method="script")
    assert info.value.code == "split_too_small" and info.value.message.startswith("TOTO fold t2:")
    assert "'tipu'" in info.value.message
