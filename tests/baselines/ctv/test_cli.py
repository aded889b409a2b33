"""``agrieval baselines ctv``: plan, run, run-all, slurm (the torchrun path: ``test_distributed.py``)."""

from __future__ import annotations

import json
import subprocess

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


def test_slurm_script_has_one_array_task_per_pending_run(ctv_data, tmp_path):
    _, splits = ctv_data
    out = tmp_path / "ctv.sbatch"
    res = _invoke(["slurm", "--splits", str(splits), "--runs-dir", str(tmp_path / "runs"), "-o", str(out),
                   "--partition", "gpu", "--epochs", "20", "--no-pretrained", "--gpus-per-task", "2"])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "#SBATCH --array=0-11" in text and "#SBATCH --partition=gpu" in text
    # one entry point: the installed agrieval, under torchrun for several GPUs
    assert "torchrun --standalone --nproc_per_node=2 --no-python agrieval baselines ctv run" in text
    # sized from the options: 2 ranks x (paper's 0 workers + 1) CPUs, 4G per CPU + 8G per GPU
    assert "#SBATCH --gres=gpu:2\n#SBATCH --cpus-per-task=2\n#SBATCH --mem=24G\n" in text
    assert "--epochs 20" in text and "--no-pretrained" in text and "'loto swin_tiny gamma'" in text
    # the script's run list parses back to the plan, in order
    body = text.split("RUNS=(\n")[1].split("\n)")[0]
    runs = [line.strip().strip("'").split() for line in body.splitlines()]
    assert runs[0] == ["toto", "densenet121", "alpha"] and len(runs) == 12
    assert subprocess.run(["bash", "-n", str(out)]).returncode == 0
    # Slurm opens --output before the task runs: the folder exists now, named absolutely (sbatch from anywhere)
    logs = tmp_path / "slurm-logs"
    assert logs.is_dir() and f"#SBATCH --output={logs.resolve()}/%x-%A_%a.out" in text


# the torchrun (DDP) path: tests/baselines/ctv/test_distributed.py


@pytest.mark.parametrize("extra, lines, workers", [
    # a CPU partition: no --gres line at all (sites reject --gres=gpu:0), the run told to use the CPU
    (["--gpus-per-task", "0"], ["#SBATCH --cpus-per-task=1", "#SBATCH --mem=4G"], 0),
    (["--device", "cpu", "--num-workers", "3"], ["#SBATCH --cpus-per-task=4", "#SBATCH --mem=16G"], 3),
    # CPUs given: the loader workers per rank follow (2 ranks x (7 + 1) = 16)
    (["--gpus-per-task", "2", "--cpus-per-task", "16", "--mem", "100G"],
     ["#SBATCH --gres=gpu:2", "#SBATCH --cpus-per-task=16", "#SBATCH --mem=100G"], 7),
])
def test_slurm_sizes_the_task_from_the_options(ctv_data, tmp_path, extra, lines, workers):
    _, splits = ctv_data
    out = tmp_path / "ctv.sbatch"
    res = _invoke(["slurm", "--splits", str(splits), "--runs-dir", str(tmp_path / "runs"), "-o", str(out),
                   "--partition", "cpu", "--preset", "demo", "--archs", "tiny_cnn", *extra])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert all(line + "\n" in text for line in lines), text
    assert ("--gres" in text) == ("--gpus-per-task" in extra and "0" not in extra[extra.index("--gpus-per-task") + 1])
    run_line = text.split('--fold "$FOLD" \\\n')[1].splitlines()[0]
    assert run_line.split().count("--num-workers") == 1 and f"--num-workers {workers} " in run_line
    assert ("--device cpu" in run_line) == ("--gres" not in text)
    assert subprocess.run(["bash", "-n", str(out)]).returncode == 0


def test_slurm_says_a_gpu_is_the_default_when_none_was_asked_for(ctv_data, tmp_path):
    _, splits = ctv_data
    out = tmp_path / "ctv.sbatch"
    res = _invoke(["slurm", "--splits", str(splits), "--runs-dir", str(tmp_path / "runs"), "-o", str(out),
                   "--partition", "cpu", "--preset", "demo", "--archs", "tiny_cnn"])
    assert res.exit_code == 0 and "#SBATCH --gres=gpu:1\n" in out.read_text()
    assert "note: 1 GPU per task by default; a CPU partition: --gpus-per-task 0" in res.output


def test_slurm_refuses_fewer_cpus_than_ranks_and_workers(ctv_data, tmp_path):
    _, splits = ctv_data
    res = _invoke(["slurm", "--splits", str(splits), "--runs-dir", str(tmp_path / "runs"), "-o",
                   str(tmp_path / "x.sbatch"), "--gpus-per-task", "2", "--cpus-per-task", "4", "--num-workers", "4"])
    assert res.exit_code == 2 and "[bad_option] --cpus-per-task 4 is fewer than 2 rank(s)" in res.output


def test_slurm_refuses_an_existing_script_unless_overwrite(ctv_data, tmp_path):
    _, splits = ctv_data
    out = tmp_path / "ctv.sbatch"
    out.write_text("#!/bin/bash\n# my edited script\n")
    args = ["slurm", "--splits", str(splits), "--runs-dir", str(tmp_path / "runs"), "-o", str(out)]
    res = _invoke(args)
    assert res.exit_code == 2 and "error [output_exists]" in res.output and "--overwrite" in res.output
    assert out.read_text() == "#!/bin/bash\n# my edited script\n"
    assert _invoke([*args, "--overwrite"]).exit_code == 0 and "#SBATCH --array=" in out.read_text()


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
