"""Issue 22: Pillow's DecompressionBombWarning never reaches stderr with its source line; the photo over
the pixel cap is reported in its catalog row instead (each worker is a process: run the real command)."""

import csv
import subprocess
import sys

import pytest

PIL = pytest.importorskip("PIL.Image")


def test_a_photo_past_pillows_bomb_limit_is_a_row_not_a_raw_warning(tmp_path):
    folder = tmp_path / "pool" / "team_a" / "chene"
    folder.mkdir(parents=True)
    side = int(PIL.MAX_IMAGE_PIXELS ** 0.5) + 100  # past Pillow's warning limit, under its error limit
    PIL.new("1", (side, side)).save(folder / "big.png")
    PIL.new("RGB", (64, 64)).save(folder / "small.jpg")
    out = tmp_path / "c.csv"
    res = subprocess.run([sys.executable, "-m", "agrieval.scoring.cli.main", "data", "catalog", str(tmp_path / "pool"),
                          "-o", str(out), "--workers", "2", "--no-progress"], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert "DecompressionBombWarning" not in res.stderr and "warnings.warn" not in res.stderr, res.stderr
    rows = {r["path"]: r for r in csv.DictReader(out.open())}
    assert rows["team_a/chene/big.png"]["readable"] == "False"
    error = rows["team_a/chene/big.png"]["error"]  # the image rule's code, the file and the cap to raise
    assert error.startswith("image_unreadable: ") and str(folder / "big.png") in error and "--max-pixels" in error
    assert rows["team_a/chene/small.jpg"]["readable"] == "True"
