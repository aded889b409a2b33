"""``--seeds``: one run folder per seed through plan, run, run-all and slurm."""

from __future__ import annotations

import json
import subprocess

import pytest
from click.testing import CliRunner

from agrieval.baselines.ctv._replicates import parse_seeds, seed_root
from agrieval.baselines.ctv.errors import CTVError
from agrieval.scoring.cli.main import cli

TINY = ["--preset", "demo", "--epochs", "1", "--batch-size", "8", "--threads", "1", "--deterministic"]


def _invoke(args):
    return CliRunner().invoke(cli, ["baselines", "ctv", *args], catch_exceptions=False)


@pytest.mark.parametrize("text, base, seeds", [
    (None, 42, None), ("", 42, None), ("3", 42, [42, 43, 44]), ("1", 7, [7]), ("1,7,9", 42, [1, 7, 9]),
    ("5,", 42, [5]), (" 2 , 3 ", 0, [2, 3]),
])
def test_parse_seeds(text, base, seeds):
    assert parse_seeds(text, base) == seeds


@pytest.mark.parametrize("text", ["0", "-1", "x", "1,1", "1,-2", "101", ",", "1.5"])
def test_parse_seeds_refuses(text):
    with pytest.raises(CTVError) as err:
        parse_seeds(text, 42)
    assert err.value.code == "bad_option"


def test_plan_lists_each_seed_in_its_folder(ctv_data, tmp_path):
    _, splits = ctv_data
    res = _invoke(["plan", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocols", "toto",
                   "--archs", "tiny_cnn", "--folds", "alpha", "--seeds", "2", "--seed", "5", "--json"])
    assert res.exit_code == 0, res.output
    runs = json.loads(res.output)["runs"]
    assert [(r["seed"], r["path"]) for r in runs] == [
        (s, str(tmp_path / f"seed-{s}" / "toto" / "tiny_cnn" / "alpha")) for s in (5, 6)]


def test_run_all_with_seeds_writes_one_folder_per_seed(ctv_data, tmp_path):
    _, splits = ctv_data
    args = ["run-all", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocols", "toto",
            "--archs", "tiny_cnn", "--folds", "alpha", "--seeds", "3,8", *TINY]
    res = _invoke(args)
    assert res.exit_code == 0, res.output
    records = {s: json.loads((seed_root(tmp_path, s) / "toto" / "tiny_cnn" / "alpha" / "run.json").read_text())
               for s in (3, 8)}
    assert {s: r["base_seed"] for s, r in records.items()} == {3: 3, 8: 8}
    assert records[3]["seed"] != records[8]["seed"]  # each replicate draws its own fold seed
    preds = {s: (seed_root(tmp_path, s) / "toto" / "tiny_cnn" / "alpha" / "predictions.csv").read_text()
             for s in (3, 8)}
    assert preds[3] != preds[8]
    res = _invoke(["plan", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocols", "toto",
                   "--archs", "tiny_cnn", "--seeds", "3,8"])
    assert res.output.splitlines()[0].split() == ["seed", "protocol", "arch", "fold", "status"]
    assert res.output.splitlines()[-1] == "6 runs: 2 done, 0 partial, 4 pending"
    # `run --seeds` is the same runs: both are finished, so both are skipped
    res = _invoke(["run", "--splits", str(splits), "--runs-dir", str(tmp_path), "--protocol", "toto",
                   "--arch", "tiny_cnn", "--fold", "alpha", "--seeds", "3,8", *TINY])
    assert res.exit_code == 0 and res.output.count("skip toto/tiny_cnn/alpha") == 2, res.output


def test_slurm_array_covers_every_seed(ctv_data, tmp_path):
    _, splits = ctv_data
    out = tmp_path / "ctv.sbatch"
    res = _invoke(["slurm", "--splits", str(splits), "--runs-dir", str(tmp_path / "runs"), "-o", str(out),
                   "--protocols", "loto", "--archs", "tiny_cnn", "--seeds", "2", "--seed", "10",
                   "--gpus-per-task", "0", *TINY[:2]])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "#SBATCH --array=0-5" in text  # 3 folds x 2 seeds
    assert f"RUNS_ROOT={tmp_path / 'runs'}" in text
    assert "SEEDS=(10 10 10 11 11 11)" in text and "FOLDS=(alpha beta gamma alpha beta gamma)" in text
    assert '--seed "${SEEDS[$i]}" --runs-dir "$RUNS_ROOT/seed-${SEEDS[$i]}"' in text
    assert text.count("--runs-dir") == 1 and " --seed 10" not in text  # the task's own seed only
    assert subprocess.run(["bash", "-n", str(out)]).returncode == 0
    # what task 5 runs, as bash expands it
    script = text.split("set -euo pipefail", 1)[1].replace("agrieval baselines ctv run", "echo")
    done = subprocess.run(["bash", "-c", script], env={"SLURM_ARRAY_TASK_ID": "5", "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    assert words[words.index("--seed") + 1] == "11"
    assert words[words.index("--runs-dir") + 1] == str(tmp_path / "runs" / "seed-11")
    assert words[words.index("--fold") + 1] == "gamma"
