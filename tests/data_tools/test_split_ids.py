"""Issue 12, item 6 (the splits part): the ids `agrieval data splits` writes never carry the class."""

from __future__ import annotations

import pandas as pd
from click.testing import CliRunner

from agrieval.data_tools.catalog import read_catalog
from agrieval.data_tools.demo_pool import _FOLDER_STYLES as FOLDER_STYLES
from agrieval.data_tools.demo_pool import CLASSES
from agrieval.scoring.cli.main import cli


def run(*args, code=0):
    result = CliRunner().invoke(cli, ["data", *map(str, args)])
    assert result.exit_code == code, result.output + str(result.exception)
    return result.output


def test_split_ids_do_not_name_the_class(small_pool, tmp_path):
    run("catalog", small_pool, "-o", tmp_path / "cat.csv", "--workers", "1", "--no-progress")
    run("dedup", tmp_path / "cat.csv", "-o", tmp_path / "d.csv")
    run("splits", tmp_path / "d.csv", "--protocol", "both", "-o", tmp_path / "splits")
    cat = read_catalog(tmp_path / "d.csv")
    kept = cat[cat["keep"]]
    words = {w.casefold() for w in set(kept["class"]) | set(kept["class_raw"]) | set(CLASSES)
             | {v for style in FOLDER_STYLES for v in style.values()}}
    folds = sorted((tmp_path / "splits").glob("*/*.csv"))
    assert len(folds) == 6
    for fold in folds:
        m = pd.read_csv(fold, dtype=str, keep_default_na=False)
        assert set(m["path"]) == set(kept["path"])  # the path keeps its own column
        for image_id, path, cls in zip(m["image_id"], m["path"], m["class"]):
            low = image_id.casefold()
            assert not any(w in low for w in words), (image_id, path)
            assert cls.casefold() not in low
        assert m["image_id"].is_unique
    # the same pool gives the same ids (they name the rows of predictions and solutions)
    run("splits", tmp_path / "d.csv", "--protocol", "both", "-o", tmp_path / "again")
    for fold in folds:
        twin = tmp_path / "again" / fold.parent.name / fold.name
        assert fold.read_bytes() == twin.read_bytes()
