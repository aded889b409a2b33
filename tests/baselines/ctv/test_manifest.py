"""Strict reading of split manifests: each problem has a code and names the file and line."""

from __future__ import annotations

import json
import shutil

import pytest

from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.manifest import list_folds, load_fold


@pytest.fixture
def splits_copy(ctv_data, tmp_path):
    root, splits = ctv_data
    dst = tmp_path / "splits"
    shutil.copytree(splits, dst)
    return root, dst


def _code(fn):
    with pytest.raises(CTVError) as err:
        fn()
    return err.value


def test_fold_is_read_with_classes_teams_and_absolute_paths(ctv_data):
    root, splits = ctv_data
    assert list_folds(splits, "toto") == ["alpha", "beta", "gamma"]
    fold = load_fold(splits, "loto", "beta")
    assert fold.classes == ["astro", "coffee"]
    assert fold.teams("train") == ["alpha", "gamma"] and fold.teams("test") == ["beta"]
    assert fold.frame["abspath"].str.startswith(str(root)).all()
    assert set(fold.frame["label"]) == {0, 1}


def test_data_root_override(ctv_data, tmp_path):
    root, splits = ctv_data
    moved = tmp_path / "moved"
    shutil.copytree(root, moved)
    fold = load_fold(splits, "toto", "alpha", data_root=moved)
    assert fold.frame["abspath"].str.startswith(str(moved)).all()
    err = _code(lambda: load_fold(splits, "toto", "alpha", data_root=tmp_path / "nowhere"))
    assert err.code == "image_missing" and "alpha.csv:2" in err.message


@pytest.mark.parametrize("edit, code, where", [
    (lambda t: t.replace("split\n", "fold\n", 1), "manifest_invalid", "missing column"),
    (lambda t: t.replace(",train\n", ",training\n", 1), "manifest_invalid", "'training'"),
    (lambda t: t.replace("alpha_astro_01,", "alpha_astro_00,", 1), "manifest_invalid", "appears twice"),
    (lambda t: t.replace("alpha_astro_03,", ",", 1), "manifest_invalid", "empty 'image_id'"),
    (lambda t: "\n".join(line for line in t.splitlines() if not line.endswith(",test")) + "\n",
     "manifest_invalid", "no 'test' rows"),
])
def test_bad_manifests_are_rejected_with_file_and_line(splits_copy, edit, code, where):
    _, splits = splits_copy
    path = splits / "toto" / "alpha.csv"
    path.write_text(edit(path.read_text()))
    err = _code(lambda: load_fold(splits, "toto", "alpha"))
    assert err.code == code and str(path) in err.message and where in err.message


def test_missing_folders_and_folds_json(splits_copy, tmp_path):
    _, splits = splits_copy
    assert _code(lambda: list_folds(tmp_path / "none", "toto")).code == "splits_missing"
    err = _code(lambda: load_fold(splits, "toto", "delta"))
    assert err.code == "splits_missing" and "alpha, beta, gamma" in err.message
    (splits / "toto" / "folds.json").write_text("{not json")
    assert _code(lambda: load_fold(splits, "toto", "alpha")).code == "folds_json_invalid"
    (splits / "toto" / "folds.json").write_text(json.dumps({"protocol": "toto"}))
    err = _code(lambda: load_fold(splits, "toto", "alpha"))
    assert err.code == "folds_json_invalid" and "--data-root" in err.message


@pytest.mark.parametrize("path", ["../outside.jpg", "/etc/hostname", "alpha/../../outside.jpg", "alpha/%00.jpg"])
def test_a_manifest_path_never_leads_out_of_the_data_root(splits_copy, path):
    """issue 22: a split table is data; an image is read only from under its root (agrieval.scoring.writing.table_paths)."""
    _, splits = splits_copy
    manifest = splits / "toto" / "alpha.csv"
    manifest.write_text(manifest.read_text().replace("alpha/astro/alpha_astro_01.jpg", path, 1))
    err = _code(lambda: load_fold(splits, "toto", "alpha"))
    assert err.code == "unsafe_path" and f"{manifest}:3" in err.message and err.exit_code == 1
