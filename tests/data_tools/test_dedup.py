"""Duplicate groups and the keep rules, one tie-break level at a time."""

from __future__ import annotations

import os

import pandas as pd
import pytest
from PIL import Image

from agrieval.data_tools.catalog import _CATALOG_COLUMNS as CATALOG_COLUMNS
from agrieval.data_tools.catalog import build_catalog
from agrieval.data_tools.dedup import apply_drops, dedup, summarize_dedup
from agrieval.scoring.writing.policy import OutputRefused
from tests.data_tools.photos import jpeg_bytes, tree_digest, write


def rows(*specs) -> pd.DataFrame:
    """Catalog rows: (path, bytes, w, h, device, phash) with team from the path."""
    out = []
    for path, nbytes, w, h, device, phash in specs:
        out.append({"root": "/r", "path": path, "team": path.split("/")[0], "class_raw": "chene",
                    "class": "chene", "subcategory": "", "format": "JPEG", "width": w, "height": h,
                    "bytes": nbytes, "mtime_ns": 0, "device": device, "phash": phash, "phash_mode": "exact",
                    "readable": True, "error": ""})
    return pd.DataFrame(out, columns=CATALOG_COLUMNS)


H = "8f8f8f8f0f0f0f0f"


@pytest.mark.parametrize("winner,loser,reason", [
    (("b/c/x.jpg", 2000, 10, 10, "unknown", H), ("a/c/y.jpg", 1999, 99, 99, "Apple X", H), "smaller file"),
    (("b/c/x.jpg", 2000, 10, 11, "unknown", H), ("a/c/y.jpg", 2000, 10, 10, "Apple X", H), "fewer pixels"),
    (("b/c/x.jpg", 2000, 10, 10, "Apple X", H), ("a/c/y.jpg", 2000, 10, 10, "unknown", H), "no EXIF device"),
    (("a/c/z.jpg", 2000, 10, 10, "unknown", H), ("b/c/a.jpg", 2000, 10, 10, "unknown", H), "team order"),
    (("a/c/a.jpg", 2000, 10, 10, "unknown", H), ("a/c/b.jpg", 2000, 10, 10, "unknown", H), "path order"),
])
def test_paper_rule_each_level(winner, loser, reason):
    df = dedup(rows(loser, winner))
    by = df.set_index("path")
    assert by.loc[winner[0], "keep"] and by.loc[winner[0], "action"] == "keep"
    assert not by.loc[loser[0], "keep"] and by.loc[loser[0], "reason"] == reason
    assert by.loc[loser[0], "kept_path"] == winner[0]
    assert by.loc[loser[0], "group_id"] == by.loc[winner[0], "group_id"]


def test_paper_team_order_option():
    a, b = ("a/c/x.jpg", 5, 1, 1, "unknown", H), ("b/c/x.jpg", 5, 1, 1, "unknown", H)
    assert dedup(rows(a, b)).set_index("path").loc["a/c/x.jpg", "keep"]
    assert dedup(rows(a, b), team_order=["b"]).set_index("path").loc["b/c/x.jpg", "keep"]


@pytest.mark.parametrize("winner,loser,reason", [
    (("b/c/x.jpg", 2_000_000, 1, 1, "unknown", H), ("a/c/y.jpg", 1_000_000, 9, 9, "Apple X", H),
     "smaller file (0.01 MB)"),
    # 1 000 000 and 1 001 000 bytes both round to 0.95 MiB: pixels decide
    (("b/c/x.jpg", 1_000_000, 9, 9, "unknown", H), ("a/c/y.jpg", 1_001_000, 1, 1, "Apple X", H), "fewer pixels"),
    (("b/c/x.jpg", 1_000_000, 9, 9, "Apple X", H), ("a/c/y.jpg", 1_001_000, 9, 9, "unknown", H), "no EXIF device"),
    (("b/c/x.jpg", 1_000_000, 9, 9, "unknown", H), ("a/c/y.jpg", 1_000_000, 9, 9, "unknown", H),
     "deprioritised team"),
])
def test_official_rule_each_level(winner, loser, reason):
    df = dedup(rows(loser, winner), preset="official", deprioritise=["a"])
    by = df.set_index("path")
    assert by.loc[winner[0], "keep"] and by.loc[loser[0], "reason"] == reason


def test_official_last_tie_break_is_catalog_order():
    first, second = ("z/c/x.jpg", 7, 1, 1, "unknown", H), ("a/c/x.jpg", 7, 1, 1, "unknown", H)
    by = dedup(rows(first, second), preset="official").set_index("path")
    assert by.loc["z/c/x.jpg", "keep"] and by.loc["a/c/x.jpg", "reason"] == "catalog order"


def test_reencoded_and_resized_copies_group_at_small_radius(tmp_path, photos):
    root = tmp_path / "pool"
    base = photos["astronaut"]
    write(root / "t1" / "chene" / "orig.jpg", jpeg_bytes(base, quality=95))
    write(root / "t2" / "chene" / "reencoded.jpg", jpeg_bytes(base, quality=60))
    write(root / "t3" / "chene" / "resized.jpg", jpeg_bytes(base.resize((120, 120), Image.Resampling.BICUBIC)))
    for k, other in enumerate(["coffee", "chelsea", "china", "flower"]):
        write(root / "t1" / "frene" / f"{other}.jpg", jpeg_bytes(photos[other]))
    cat = build_catalog(root, workers=1, progress=False)
    df = dedup(cat, radius=6).set_index("path")
    copies = ["t1/chene/orig.jpg", "t2/chene/reencoded.jpg", "t3/chene/resized.jpg"]
    assert df.loc[copies, "group_id"].nunique() == 1
    assert df.loc[copies, "keep"].sum() == 1 and df.loc["t1/chene/orig.jpg", "keep"]  # largest file
    others = df.drop(index=copies)
    assert others["keep"].all() and others["group_id"].nunique() == 4


def test_unreadable_rows_are_dropped_and_summary(small_pool, tmp_path):
    write(small_pool / "gamma" / "frenes" / "zero.jpg", b"")
    cat = build_catalog(small_pool, workers=1, progress=False)
    df = dedup(cat)
    z = df.set_index("path").loc["gamma/frenes/zero.jpg"]
    assert not z["keep"] and z["reason"] == "unreadable" and z["group_id"] == 0
    copy = df.set_index("path").loc["beta/Chênes/copy_of_alpha.jpg"]
    assert not copy["keep"] and copy["reason"] == "team order"
    text = summarize_dedup(df)
    assert "cross-team groups: 1" in text and "1 duplicates dropped" in text
    assert sorted(df["group_id"].unique()) == list(range(0, df["group_id"].max() + 1))


def test_move_and_link_are_dry_runs_unless_applied(small_pool, tmp_path):
    df = dedup(build_catalog(small_pool, workers=1, progress=False))
    before = tree_digest(small_pool)
    plan = apply_drops(df, tmp_path / "review", how="link")
    assert [os.path.basename(d) for _, d in plan] == ["copy_of_alpha.jpg"]
    assert not (tmp_path / "review").exists() and tree_digest(small_pool) == before
    apply_drops(df, tmp_path / "review", how="link", dry_run=False)
    link = tmp_path / "review" / "beta" / "Chênes" / "copy_of_alpha.jpg"
    assert link.is_symlink() and tree_digest(small_pool) == before
    with pytest.raises(OutputRefused) as err:  # never overwrite
        apply_drops(df, tmp_path / "review", how="link")
    assert err.value.code == "output_exists"
    apply_drops(df, tmp_path / "moved", how="move", dry_run=False)
    assert not (small_pool / "beta" / "Chênes" / "copy_of_alpha.jpg").exists()
    assert (tmp_path / "moved" / "beta" / "Chênes" / "copy_of_alpha.jpg").is_file()
