"""The catalog on a small pool of real photos."""

from __future__ import annotations

import os

import imagehash
import pandas as pd
import pytest
from PIL import Image

from agrieval.data_tools.catalog import _CATALOG_COLUMNS as CATALOG_COLUMNS
from agrieval.data_tools.catalog import build_catalog, read_catalog, summarize_catalog
from agrieval.data_tools.errors import DataError
from tests.data_tools.photos import jpeg_bytes, tree_digest, write


def test_catalog_rows_and_hashes(small_pool, tmp_path):
    before = tree_digest(small_pool)
    df = build_catalog(small_pool, tmp_path / "cat.csv", workers=1, progress=False)
    assert tree_digest(small_pool) == before
    assert list(df.columns) == CATALOG_COLUMNS
    assert len(df) == 3 * 2 * 4 + 1
    assert list(df["path"]) == sorted(df["path"])
    assert set(df["class"]) == {"chene", "frene"} and set(df["class_raw"]) == {"Chênes", "frenes"}
    for r in df.itertuples():
        assert r.phash == str(imagehash.phash(Image.open(small_pool / r.path)))
    back = read_catalog(tmp_path / "cat.csv")
    pd.testing.assert_frame_equal(back, df, check_dtype=False)
    assert back["readable"].dtype == bool and back["bytes"].dtype == "int64"


def test_catalog_parquet_and_phash_stays_text(small_pool, tmp_path):
    df = build_catalog(small_pool, tmp_path / "cat.parquet", workers=1, progress=False)
    back = read_catalog(tmp_path / "cat.parquet")
    assert list(back["phash"]) == list(df["phash"])
    # a hash of digits only, with leading zeros, must survive CSV as text
    df.loc[0, "phash"] = "0012345678901234"
    from agrieval.data_tools.tables import write_table

    write_table(df, tmp_path / "digits.csv")
    assert read_catalog(tmp_path / "digits.csv").loc[0, "phash"] == "0012345678901234"


def test_layout_subcategory_broken_files_and_skips(tmp_path, photos):
    root = tmp_path / "pool"
    write(root / "t1" / "Chênes" / "Feuilles" / "a.jpg", jpeg_bytes(photos["coffee"]))
    write(root / "t1" / "Chênes" / "Tronc" / "b.jpg", jpeg_bytes(photos["chelsea"], device=("Apple", "iPhone 12")))
    data = jpeg_bytes(photos["astronaut"])
    write(root / "t1" / "Olivier" / "cut.jpg", data[:2000])
    write(root / "t2" / "frene" / "zero.jpg", b"")
    write(root / "t2" / "frene" / "notes.txt", b"hello")
    write(root / "t2" / "stray.jpg", data)
    write(root / "t2" / ".DS_Store", b"x")
    df = build_catalog(root, workers=1, progress=False)
    rows = df.set_index("path")
    assert rows.loc["t1/Chênes/Feuilles/a.jpg", "subcategory"] == "Feuilles"
    assert rows.loc["t1/Chênes/Tronc/b.jpg", "device"] == "Apple iPhone 12"
    assert rows.loc["t1/Chênes/Tronc/b.jpg", "class"] == "chene"
    assert not rows.loc["t1/Olivier/cut.jpg", "readable"] and rows.loc["t1/Olivier/cut.jpg", "class"] == ""
    assert "0 bytes" in rows.loc["t2/frene/zero.jpg", "error"]
    skipped = dict(df.attrs["skipped"])
    assert set(skipped) == {"t2/frene/notes.txt", "t2/stray.jpg", "t2/.DS_Store"}  # hidden: listed, not silent
    text = summarize_catalog(df)
    assert "UNKNOWN class folders" in text and "Olivier" in text
    assert "unreadable: t2/frene/zero.jpg" in text and "skipped: t2/stray.jpg" in text


def test_resume_reuses_unchanged_and_redoes_changed(small_pool, tmp_path, photos):
    out = tmp_path / "cat.csv"
    first = build_catalog(small_pool, out, workers=1, progress=False)
    changed = small_pool / "gamma" / "frenes" / "img1.jpg"
    changed.write_bytes(jpeg_bytes(photos["flower"]))
    os.utime(changed, ns=(1, 1_000_000_000))
    write(small_pool / "gamma" / "frenes" / "new.jpg", jpeg_bytes(photos["coffee"]))
    second = build_catalog(small_pool, out, workers=1, resume=True, progress=False)
    assert second.attrs["reused"] == len(first) - 1
    row = second.set_index("path").loc["gamma/frenes/img1.jpg"]
    assert row["phash"] == str(imagehash.phash(Image.open(changed)))
    assert len(second) == len(first) + 1
    with pytest.raises(DataError):
        build_catalog(small_pool, None, resume=True, progress=False)


def test_process_pool_gives_the_same_catalog(small_pool):
    one = build_catalog(small_pool, workers=1, progress=False)
    two = build_catalog(small_pool, workers=2, progress=False)
    pd.testing.assert_frame_equal(one, two)


def test_fast_mode_reports_agreement(small_pool):
    df = build_catalog(small_pool, workers=1, fast=True, progress=False)
    fa = df.attrs["fast_agreement"]
    assert fa["checked"] == len(df)
    assert 0.0 <= fa["identical_share"] <= 1.0 and fa["worst_hamming"] >= 0
    assert set(df["phash_mode"]) == {"fast"}


def test_empty_or_missing_root(tmp_path):
    with pytest.raises(DataError) as err:
        build_catalog(tmp_path / "nope", progress=False)
    assert err.value.code == "not_a_directory"
    (tmp_path / "empty" / "t" / "c").mkdir(parents=True)
    with pytest.raises(DataError) as err:
        build_catalog(tmp_path / "empty", progress=False)
    assert err.value.code == "empty_pool"
