"""`agrieval data ...` end to end on the demo pool; check-leakage catches planted leaks."""

from __future__ import annotations

import csv

from click.testing import CliRunner

from agrieval.data_tools.catalog import read_catalog
from agrieval.data_tools.demo_pool import CLASSES, make_demo_pool
from agrieval.scoring.cli.main import cli
from tests.data_tools.photos import jpeg_bytes, tree_digest, write


def run(*args, code=0):
    result = CliRunner().invoke(cli, ["data", *map(str, args)])
    assert result.exit_code == code, result.output + str(result.exception)
    return result.output


def test_demo_pool_contract(tmp_path):
    root = make_demo_pool(tmp_path / "demo", teams=3, per_class=3, size=64)
    files = [p for p in root.rglob("*") if p.is_file()]
    teams = sorted(p.name for p in root.iterdir())
    assert teams == ["team01", "team02", "team03"]
    suffixes = {p.suffix.lower() for p in files}
    assert {".png", ".heic"} <= suffixes
    assert any("Chênes" in p.parts for p in files)
    cat = run("catalog", root, "-o", tmp_path / "c.csv", "--workers", "1", "--no-progress")
    df = read_catalog(tmp_path / "c.csv")
    assert set(df["class"]) - {""} == set(CLASSES) and (df["class"] != "").all()
    assert (~df["readable"]).sum() == 1 and "truncated" in cat
    assert (df["device"] != "unknown").any() and (df["device"] == "unknown").any()
    assert {"HEIF", "PNG", "JPEG"} <= set(df["format"])


def test_pipeline_end_to_end_leaves_sources_untouched(tmp_path):
    demo = tmp_path / "demo"
    run("demo-pool", demo, "--teams", "3", "--per-class", "4", "--size", "64")
    before = tree_digest(demo)
    out = run("catalog", demo, "-o", tmp_path / "cat.csv", "--workers", "1", "--no-progress")
    assert "unreadable:" in out and "devices:" in out
    out = run("dedup", tmp_path / "cat.csv", "-o", tmp_path / "dedup.csv", "--link-to", tmp_path / "review")
    assert "cross-team groups: 3" in out and "dry run" in out and not (tmp_path / "review").exists()
    out = run("resize", tmp_path / "dedup.csv", tmp_path / "clean", "--size", "64", "--workers", "1", "--no-progress")
    assert "error=0" in out
    run("catalog", tmp_path / "clean", "-o", tmp_path / "clean.csv", "--workers", "1", "--no-progress")
    out = run("splits", tmp_path / "clean.csv", "--protocol", "both", "-o", tmp_path / "splits")
    assert "TOTO: 3 folds" in out and "LOTO: 3 folds" in out
    out = run("check-leakage", tmp_path / "splits", "--catalog", tmp_path / "clean.csv", "--radius", "2")
    assert "no leakage" in out
    # the held-out runs of leave-one-team-out selection for the LOTO fold team01: the pool without team01
    out = run("splits", tmp_path / "clean.csv", "--protocol", "loto", "--without-team", "team01", "-o",
              tmp_path / "lodo" / "team01")
    assert "LOTO: 2 folds" in out
    import pandas as pd

    main = pd.read_csv(tmp_path / "splits" / "loto" / "team01.csv")
    held = pd.concat(pd.read_csv(f) for f in sorted((tmp_path / "lodo" / "team01" / "loto").glob("*.csv")))
    assert "team01" not in set(held["team"])
    same = main.merge(held, on="path", suffixes=("", "_held"))
    assert len(same) and (same["image_id"] == same["image_id_held"]).all()  # same key, same ids
    assert tree_digest(demo) == before
    run("classes", demo)
    # a pool folder with an unknown class is listed and fails
    write(demo / "team01" / "Olivier" / "a.jpg", (demo / "team01" / "chene" / "IMG_0005.jpg").read_bytes())
    out = run("classes", demo, code=1)
    assert "team01/Olivier -> UNKNOWN" in out


def plant_copy_of_a_test_row(fold, split: str) -> list[str]:
    """Append to a fold manifest the first test row again, this time in ``split``; returns that row."""
    rows = list(csv.reader(fold.open(encoding="utf-8")))
    test_row = next(r for r in rows[1:] if r[4] == "test")
    with fold.open("a", encoding="utf-8", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerow(test_row[:4] + [split])
    return test_row


def test_check_leakage_catches_planted_cross_split_duplicate(small_pool, tmp_path, photos):
    run("catalog", small_pool, "-o", tmp_path / "cat.csv", "--workers", "1", "--no-progress")
    run("dedup", tmp_path / "cat.csv", "-o", tmp_path / "dedup.csv")
    run("splits", tmp_path / "dedup.csv", "--protocol", "toto", "-o", tmp_path / "splits")
    run("check-leakage", tmp_path / "splits", "--catalog", tmp_path / "cat.csv")
    # Without dedup the cross-team copy sits in alpha (train/val) and beta (test) of TOTO fold alpha.
    run("splits", tmp_path / "cat.csv", "--protocol", "toto", "-o", tmp_path / "leaky")
    out = run("check-leakage", tmp_path / "leaky", "--catalog", tmp_path / "cat.csv", code=1)
    assert "same pHash" in out and "beta/Chênes/copy_of_alpha.jpg" in out and "alpha/Chênes/img0.jpg" in out
    # A planted row: the same image twice in one fold, once in train and once in test.
    plant_copy_of_a_test_row(tmp_path / "splits" / "toto" / "gamma.csv", "train")
    out = run("check-leakage", tmp_path / "splits", "--catalog", tmp_path / "cat.csv", code=1)
    assert "same image" in out and "toto/gamma" in out


def test_val_test_copy_is_a_leak_unless_that_boundary_is_left_out(small_pool, tmp_path, photos):
    run("catalog", small_pool, "-o", tmp_path / "cat.csv", "--workers", "1", "--no-progress")
    run("dedup", tmp_path / "cat.csv", "-o", tmp_path / "dedup.csv")
    run("splits", tmp_path / "dedup.csv", "--protocol", "loto", "-o", tmp_path / "splits")
    run("check-leakage", tmp_path / "splits", "--catalog", tmp_path / "cat.csv")
    # A planted row: a test image of fold gamma also listed in its val split (it would pick the checkpoint).
    test_row = plant_copy_of_a_test_row(tmp_path / "splits" / "loto" / "gamma.csv", "val")
    out = run("check-leakage", tmp_path / "splits", "--catalog", tmp_path / "cat.csv", code=1)
    assert f"loto/gamma: same image (distance 0): test {test_row[1]} <-> val {test_row[1]}" in out  # paths
    out = run("check-leakage", tmp_path / "splits", "--catalog", tmp_path / "cat.csv",
              "--boundary", "train/test", "--boundary", "train/val")
    assert "crosses a train/test or train/val boundary" in out


def test_near_duplicate_leak_needs_radius(small_pool, tmp_path, photos):
    src = small_pool / "alpha" / "frenes" / "img1.jpg"
    from PIL import Image

    with Image.open(src) as im:
        write(small_pool / "gamma" / "frenes" / "reencoded.jpg", jpeg_bytes(im.convert("RGB"), quality=40))
    run("catalog", small_pool, "-o", tmp_path / "cat.csv", "--workers", "1", "--no-progress")
    df = read_catalog(tmp_path / "cat.csv").set_index("path")
    from imagehash import hex_to_hash

    d = hex_to_hash(df.loc["alpha/frenes/img1.jpg", "phash"]) - hex_to_hash(df.loc["gamma/frenes/reencoded.jpg", "phash"])
    assert 0 < d <= 8, d  # JPEG quality 40 moves a few bits of this photo's pHash
    run("dedup", tmp_path / "cat.csv", "-o", tmp_path / "dedup.csv")  # exact groups: the copy stays
    run("splits", tmp_path / "dedup.csv", "--protocol", "loto", "-o", tmp_path / "s")
    run("check-leakage", tmp_path / "s", "--catalog", tmp_path / "cat.csv")
    out = run("check-leakage", tmp_path / "s", "--catalog", tmp_path / "cat.csv", "--radius", "8", code=1)
    assert f"near pHash (distance {d})" in out and "gamma/frenes/reencoded.jpg" in out


def test_input_errors_exit_3(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["data", "dedup", str(bad), "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 1 and "error [bad_table]" in result.output and "bad.csv" in result.output
