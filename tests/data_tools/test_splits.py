"""TOTO/LOTO manifests: disjoint, stratified, deterministic, independent of file order."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.data_tools.catalog import _CATALOG_COLUMNS as CATALOG_COLUMNS
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.splits import SPLIT_COLUMNS, make_splits
from agrieval.data_tools.splits import _stratified_val as stratified_val

KEY = bytes(range(32))  # one pool's id key, shared by the runs a test compares


def pool(counts: dict[tuple[str, str], int]) -> pd.DataFrame:
    out = []
    for (team, cls), n in sorted(counts.items()):
        for k in range(n):
            out.append({"root": "/data/clean", "path": f"{team}/{cls}/{k:04x}{team}{cls}.jpg", "team": team,
                        "class_raw": cls, "class": cls, "subcategory": "", "format": "JPEG", "width": 336,
                        "height": 336, "bytes": 1, "mtime_ns": 0, "device": "unknown", "phash": f"{k:016x}",
                        "phash_mode": "exact", "readable": True, "error": ""})
    return pd.DataFrame(out, columns=CATALOG_COLUMNS)


COUNTS = {("t1", "chene"): 17, ("t1", "frene"): 9, ("t2", "chene"): 11, ("t2", "frene"): 23, ("t2", "tipu"): 5,
          ("t3", "chene"): 7, ("t3", "frene"): 4, ("t3", "tipu"): 13}


@pytest.mark.parametrize("protocol", ["toto", "loto"])
@pytest.mark.parametrize("stratify", ["team_class", "class"])
def test_manifests(tmp_path, protocol, stratify):
    df = pool(COUNTS)
    paths = make_splits(df, protocol, tmp_path, stratify=stratify)
    assert [p.name for p in paths] == ["t1.csv", "t2.csv", "t3.csv"]
    info = json.loads((tmp_path / protocol / "folds.json").read_text())
    assert info["root"] == "/data/clean" and info["seed"] == 42
    assert info["row_order"] == {"train": "image_id", "val": "image_id", "test": "image_id"}
    for p in paths:
        m = pd.read_csv(p)
        fold = p.stem
        assert list(m.columns) == SPLIT_COLUMNS
        assert m["image_id"].is_unique and set(m["path"]) == set(df["path"])  # disjoint and complete
        test_teams = set(m.loc[m["split"] == "test", "team"])
        dev = m[m["split"] != "test"]
        if protocol == "toto":
            assert set(dev["team"]) == {fold} and fold not in test_teams
        else:
            assert test_teams == {fold} and fold not in set(dev["team"])
        for cls, g in dev.groupby("class"):  # stratified within one image per class
            assert abs((g["split"] == "val").sum() - 0.3 * len(g)) <= 1
        if protocol == "loto" and stratify == "team_class":
            for _, g in dev.groupby(["team", "class"]):
                assert abs((g["split"] == "val").sum() - 0.3 * len(g)) < 1
        counts = info["folds"][fold]["counts"]
        assert counts == {s: int((m["split"] == s).sum()) for s in ("train", "val", "test")}
        order = m["split"].map({"train": 0, "val": 1, "test": 2})
        assert list(zip(order, m["image_id"])) == sorted(zip(order, m["image_id"]))


def test_identical_across_runs_and_shuffled_order(tmp_path):
    df = pool(COUNTS)
    a = make_splits(df, "loto", tmp_path / "a", id_key=KEY)
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    b = make_splits(shuffled, "loto", tmp_path / "b", id_key=KEY)
    c = make_splits(df, "loto", tmp_path / "c", seed=7, id_key=KEY)
    for pa, pb in zip(a, b):
        assert pa.read_bytes() == pb.read_bytes()
    assert any(pa.read_bytes() != pc.read_bytes() for pa, pc in zip(a, c))


def test_folds_do_not_depend_on_other_teams_rows(tmp_path):
    """TOTO fold t1 only depends on t1's images and the seed."""
    df = pool(COUNTS)
    fewer = df[df["team"] != "t3"]
    a = pd.read_csv(make_splits(df, "toto", tmp_path / "a", id_key=KEY)[0])
    b = pd.read_csv(make_splits(fewer, "toto", tmp_path / "b", id_key=KEY)[0])
    dev = lambda m: m[m["split"] != "test"].reset_index(drop=True)  # noqa: E731
    pd.testing.assert_frame_equal(dev(a), dev(b))


@settings(max_examples=40, deadline=None)
@given(sizes=st.dictionaries(st.tuples(st.sampled_from("abcd"), st.sampled_from(["x", "y", "z"])),
                             st.integers(1, 30), min_size=1), frac=st.floats(0.05, 0.95), by_team=st.booleans())
def test_stratified_quotas_property(sizes, frac, by_team):
    rows = [{"image_id": f"{t}{c}{k}", "team": t, "class": c} for (t, c), n in sizes.items() for k in range(n)]
    df = pd.DataFrame(rows)
    is_val = stratified_val(df, val_fraction=frac, by_team=by_team, seed_parts=(1, "loto", "f"))
    for cls, g in df.groupby("class"):
        assert int(is_val[g.index].sum()) == int(np.floor(frac * len(g) + 0.5))
    if by_team:
        for _, g in df.groupby(["team", "class"]):
            assert abs(is_val[g.index].sum() - frac * len(g)) < 1


def test_rejections(tmp_path):
    df = pool(COUNTS)
    with pytest.raises(DataError):
        make_splits(df, "kfold", tmp_path)
    with pytest.raises(DataError):
        make_splits(df, "toto", tmp_path, val_fraction=1.0)
    mixed = df.copy()
    mixed.loc[0, "root"] = "/elsewhere"
    with pytest.raises(DataError) as err:
        make_splits(mixed, "toto", tmp_path)
    assert err.value.code == "mixed_roots"
    unknown = df.copy()
    unknown.loc[0, "class"] = ""
    with pytest.raises(DataError) as err:
        make_splits(unknown, "toto", tmp_path)
    assert err.value.code == "unknown_class"
