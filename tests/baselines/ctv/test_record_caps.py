"""The caps of a run's own records say what such a file can be (issue 56): the largest record the kit writes fits
under the cap it reads with, and a file past it is refused before it is parsed."""

from __future__ import annotations

import json

import pytest

from agrieval.baselines.ctv import runner, sweep
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_json


def _largest_run_record() -> dict:
    """A run.json as _finish writes it, at its largest: 1,000 classes of 64 characters, 50 teams, the settings,
    and MAX_UNREADABLE_LISTED unreadable paths of 4,096 bytes (PATH_MAX)."""
    teams = [f"team{i:02d}" for i in range(50)]
    return {"schema_version": 1, "status": "complete", "settings": {f"setting_{i}": "x" * 40 for i in range(120)},
            "classes": ["c" * 64 for _ in range(1_000)], "train_teams": teams, "val_teams": teams,
            "test_teams": teams, "per_test_team_acc": {t: 0.123456789 for t in teams},
            "unreadable_images": ["/" + "p" * 4095] * runner._MAX_UNREADABLE_LISTED, "n_unreadable_images": 47_367,
            "seed_stream": {"seed": 1, "note": "n" * 200}, "device": {"type": "cuda", "name": "NVIDIA H200"},
            "versions": {k: "1.2.3" for k in ("torch", "torchvision", "timm", "Pillow", "numpy", "pandas")}}


def test_the_largest_run_record_fits_its_cap_and_a_flood_does_not(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_largest_run_record(), indent=2, sort_keys=True) + "\n")
    assert path.stat().st_size < runner._MAX_RUN_JSON_BYTES
    assert read_json(path, max_bytes=runner._MAX_RUN_JSON_BYTES, max_containers=runner.MAX_RUN_JSON_CONTAINERS,
                     max_values=runner.MAX_RUN_JSON_VALUES)["n_unreadable_images"] == 47_367
    path.write_text("[" + ",".join(["{}"] * 5_000) + "]")  # 15 kB, 5,001 objects
    with pytest.raises(UntrustedFileError, match="5,001 lists and objects"):
        read_json(path, max_bytes=runner._MAX_RUN_JSON_BYTES, max_containers=runner.MAX_RUN_JSON_CONTAINERS)


def test_a_failure_record_is_cut_to_fit_the_cap_it_is_read_with(tmp_path):
    run = sweep.PlannedRun("toto", "tiny_cnn", "alpha", tmp_path / "alpha", "pending")
    sweep._failed(run, "fold_failed", "m" * 1_000_000, "t" * 5_000_000 + "\nRuntimeError: the real cause\n")
    path = tmp_path / "alpha" / sweep.FAILED
    assert path.stat().st_size < sweep.MAX_FAILED_JSON_BYTES
    record = read_json(path, max_bytes=sweep.MAX_FAILED_JSON_BYTES, max_depth=4)
    assert record["traceback"].endswith("RuntimeError: the real cause\n") and "characters cut" in record["message"]
