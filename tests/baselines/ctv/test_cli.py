"""``agrieval baselines ctv``: plan, run, run-all, slurm (the torchrun path: ``test_distributed.py``)."""

from __future__ import annotations

import json

import pytest
import torch
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli

TINY = ["--preset", "demo", "--epochs", "1", "--batch-size", "8", "--threads", "1", "--deterministic"]


def _invoke(args):
    return CliRunner().invoke(cli, ["baselines", "ctv", *args], catch_exceptions=False)


def test_plan_lists_protocols_x_archs_x_folds_with_state(ctv_data, tmp_path):
    _, splits = ctv_data
    res = _invoke(["plan", "--splits", str(splits), "--runs-dir", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    runs = json.loads(res.output)["runs"]
    assert [(r["protocol"], r["arch"], r["fold"]) for r in runs] == [
        (p, a, f) for p in ("toto", "loto") for a in ("densenet121", "swin_tiny") for f in ("alpha", "beta", "gamma")]
    assert {r["status"] for r in runs} == {"pending"}
    res = _invoke(["plan", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocols", "loto",
                   "--archs", "tiny_cnn", "--folds", "beta"])
    assert res.output.splitlines()[1].split() == ["loto", "tiny_cnn", "beta", "pending"]
    assert res.output.splitlines()[-1] == "1 runs: 0 done, 0 partial, 1 pending"


def test_run_all_then_plan_shows_done_and_rerun_skips(ctv_data, tmp_path):
    _, splits = ctv_data
    args = ["run-all", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocols", "toto",
            "--archs", "tiny_cnn", "--folds", "alpha,beta", *TINY]
    res = _invoke(args)
    assert res.exit_code == 0, res.output
    assert "2 runs: 2 finished, 0 failed" in res.output
    res = _invoke(["plan", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocols", "toto",
                   "--archs", "tiny_cnn", "--json"])
    assert [r["status"] for r in json.loads(res.output)["runs"]] == ["done", "done", "pending"]
    res = _invoke(args)
    assert res.output.count("skip toto/tiny_cnn/") == 2


@pytest.mark.parametrize("extra, code, text", [
    (["--head-dropout", "1.5"], 2, "head-dropout"),
    (["--resize-size", "16"], 2, "resize-size"),
    (["--preset", "nope"], 2, "unknown preset"),  # a bad option: exit 2, as in every command
])
def test_bad_options_fail_with_a_code(ctv_data, tmp_path, extra, code, text):
    _, splits = ctv_data
    res = _invoke(["run", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocol", "toto",
                   "--arch", "tiny_cnn", "--fold", "alpha", *TINY, *extra])
    assert res.exit_code == code and text in res.output
    assert not (tmp_path / "toto").exists()


def test_paper_preset_without_weights_says_which_file(ctv_data, tmp_path):
    _, splits = ctv_data
    res = _invoke(["run", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocol", "toto",
                   "--arch", "swin_tiny", "--fold", "alpha"])
    assert res.exit_code == 2  # a weights file that is not there: a missing file, exit 2
    assert "[weights_missing]" in res.output and "swin_tiny_patch4_window7_224.ms_in1k.safetensors" in res.output


# the torchrun (DDP) path: tests/baselines/ctv/test_distributed.py; ctv slurm: test_slurm_script.py


@pytest.mark.parametrize("command", ["run", "run-all"])
def test_device_cuda_without_a_gpu_is_one_line_and_exit_2(ctv_data, tmp_path, monkeypatch, command):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    _, splits = ctv_data
    which = (["--protocol", "toto", "--arch", "tiny_cnn", "--fold", "alpha"] if command == "run" else
             ["--protocols", "toto", "--archs", "tiny_cnn", "--folds", "alpha,beta"])
    res = _invoke([command, "--splits", str(splits), "--runs-dir", str(tmp_path), *which, *TINY, "--device", "cuda"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "error [device_unavailable] --device 'cuda' asked for a GPU but" in res.output
    assert not list(tmp_path.rglob("run.json"))
