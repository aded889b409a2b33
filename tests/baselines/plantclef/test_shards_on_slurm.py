"""``agrieval baselines plantclef slurm``: the shard array and its dependent merge job, written, checked, and (on
a real one-node SLURM, ``scripts/slurm/up.sh``) submitted with one shard requeued while it runs: the merged tile
scores and the validated submission equal one process's, byte for byte.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.cli.main import cli
from tests import slurm_cluster as sc

PREDICT = ["--preset", "tiny", "--tiling", "grid:2", "--tiling", "full", "--strategy", "union", "--top-k", "1",
           "--max-species", "4", "--save-top-k", "5", "--competition", "plantclef2025", "--device", "cpu",
           "--workers", "0", "--batch-size", "5"]  # one quadrat (5 tiles) per batch: several batches per shard
AGGREGATE = ["--strategy", "union", "--top-k", "1", "--max-species", "4", "--competition", "plantclef2025"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo's synthetic quadrats, class mapping and tiny random-init checkpoint."""
    out = tmp_path_factory.mktemp("pcdemo")
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "demo", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    return out


def _predict_args(demo) -> str:
    return shlex.join(["--checkpoint", str(demo / "model_tiny.pth.tar"), "--class-mapping",
                       str(demo / "class_mapping.txt"), *PREDICT])


def _write(demo, tmp_path, *extra):
    return CliRunner().invoke(cli, ["baselines", "plantclef", "slurm", str(demo / "images"), "--shards", "2",
                                    "--work", str(tmp_path / "work"), "-o", str(tmp_path / "job" / "pc.sbatch"),
                                    "--cpus-per-task", "1", "--mem", "2G", "--time", "10", "--signal-lead", "60",
                                    "--predict-args", _predict_args(demo), "--aggregate-args", shlex.join(AGGREGATE),
                                    *extra])


def test_shard_array_and_merge_job_are_written_and_checked(demo, tmp_path):
    res = _write(demo, tmp_path)
    assert res.exit_code == 0, res.output
    job = tmp_path / "job"
    array, merge = (job / "pc.sbatch").read_text(), (job / "pc-merge.sbatch").read_text()
    assert "#SBATCH --array=0-1" in array and "#SBATCH --requeue" in array and "#SBATCH --signal=B:USR1@60" in array
    assert "#SBATCH --open-mode=append" in array and "--gres" not in array
    assert '--resume --quiet --shard "$SLURM_ARRAY_TASK_ID/2"' in array  # a requeued shard continues
    assert "#SBATCH --kill-on-invalid-dep=yes" in merge and "merge-tiles" in merge and "aggregate" in merge
    assert "--dependency=afterok:$array" in (job / "pc-submit.sh").read_text()
    for name in ("pc.sbatch", "pc-merge.sbatch", "pc-submit.sh"):
        assert subprocess.run(["bash", "-n", str(job / name)]).returncode == 0


@pytest.mark.parametrize("extra, code", [
    (["--predict-args", "--no-such-option 3"], "No such option"),
    (["--predict-args", "--checkpoint /nowhere/model.pth.tar --class-mapping x"], "checkpoint_missing"),
    (["--predict-args", "--shard 0/2"], "bad_option"),
    (["--time", "1h"], "bad_option"),
    (["--partition", "a;b"], "bad_option"),
])
def test_bad_inputs_fail_when_the_scripts_are_written(demo, tmp_path, extra, code):
    res = _write(demo, tmp_path, *extra)
    assert res.exit_code == 2, res.output
    assert code in res.output or "Invalid value" in res.output, res.output
    assert not (tmp_path / "job" / "pc.sbatch").exists()


@pytest.mark.slow
def test_shards_on_slurm_survive_a_requeue_and_equal_one_process(demo, tmp_path):
    sc.cluster()
    ref = tmp_path / "ref"
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "predict", str(demo / "images"), "--checkpoint",
                                   str(demo / "model_tiny.pth.tar"), "--class-mapping", str(demo / "class_mapping.txt"),
                                   *PREDICT, "--save-tile-scores", str(ref / "tiles.parquet"), "--out",
                                   str(ref / "submission.csv"), "--quiet"])
    assert res.exit_code == 0, res.output
    assert _write(demo, tmp_path).exit_code == 0
    p = subprocess.run(["bash", str(tmp_path / "job" / "pc-submit.sh")], capture_output=True, text=True,
                       env=sc.environment(), cwd=tmp_path, timeout=60)
    assert p.returncode == 0, p.stderr
    array, merge = p.stdout.split("shards: job ")[1].split(";")[0], p.stdout.split("merge: job ")[1].split()[0]
    # shard 1 gets SLURM's warning (what --signal=B:USR1 sends) as soon as its trap is set (the attempt line is
    # printed after it), while predict still starts: predict stops after its first batch, with that quadrat
    # saved, and the task requeues itself and resumes from it
    log1 = tmp_path / "job" / "slurm-logs" / "plantclef-1.out"
    sc.wait_for(lambda: sc.attempts(log1), "shard 1 to start", poll=0.05)
    sc.scancel("--batch", "--signal=USR1", f"{array}_1")
    # shard 0 is requeued while it runs (a node failure, a pre-emption): it starts again
    sc.wait_for(lambda: sc.states(array).get(f"{array}_0") == "RUNNING", "shard 0 to start")
    sc.scontrol("requeue", f"{array}_0")
    sc.release_requeued(f"{array}_0")
    sc.release_requeued(f"{array}_1")
    sc.wait_done(array)
    sc.wait_done(merge)
    work = tmp_path / "work"
    logs = tmp_path / "job" / "slurm-logs"
    assert sc.attempts(logs / "plantclef-0.out") == ["1", "2"], (logs / "plantclef-0.out").read_text()
    warned = (logs / "plantclef-1.out").read_text()
    assert sc.attempts(logs / "plantclef-1.out") == ["1", "2"] and "stopped on SLURM's warning" in warned, warned
    assert "stop requested after 1 of 4 images" in warned and "predicted 4 quadrats (1 resumed)" in warned
    assert (work / "tiles.parquet").read_bytes() == (ref / "tiles.parquet").read_bytes()
    assert (work / "submission.csv").read_bytes() == (ref / "submission.csv").read_bytes()


# quotes, backslashes, newlines, $() and backticks, '#', unicode line separators, sbatch's '%'
_PIECES = list("ab '\"\\$()`#;&|<>*?~!{}%\n\u2028=,-/.:_") + ["$(id)", "`id`", "'\"'\"'"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=10).map("".join))
def test_a_hostile_path_or_value_stays_one_literal(tmp_path_factory, value):
    """Image and work folders, predict and aggregate words and an extra directive drawn from a hostile
    alphabet: refused with a DirectiveError, or the scripts keep their directive lines and each command gets
    the value back as one argument (run under bash with a stand-in agrieval that records its argv)."""
    import json
    import os
    import sys

    from agrieval.baselines import _sbatch as sbatch
    from agrieval.baselines.plantclef._slurm import ShardJob, merge_script, shard_script

    tmp = tmp_path_factory.mktemp("hostile")

    def job(v):
        return ShardJob(images=Path(f"/data/{v}/img"), work=tmp / f"w{v}", log_dir=tmp / f"logs{v}", shards=2,
                        predict_args=("--model", v), aggregate_args=("--recipe", v), extra=(f"--comment={v}",))

    plain = job("plain")
    try:
        texts = shard_script(job(value)), merge_script(job(value))
    except sbatch.DirectiveError:
        assert not value.isprintable() or "%" in value or "\\" in value
        return
    for text, plain_text in zip(texts, (shard_script(plain), merge_script(plain))):
        keys = [line.split("=")[0] for line in text.splitlines() if line.startswith("#SBATCH")]
        assert keys == [line.split("=")[0] for line in plain_text.splitlines() if line.startswith("#SBATCH")]
        assert len(text.splitlines()) == len(plain_text.splitlines())
    fake = tmp / "bin" / "agrieval"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                    "open(os.environ['ARGV_OUT'], 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n")
    fake.chmod(0o755)
    env = {"PATH": f"{fake.parent}{os.pathsep}/usr/bin:/bin", "SLURM_ARRAY_TASK_ID": "1", "SLURM_JOB_ID": "1",
           "ARGV_OUT": str(tmp / "argv.jsonl"), "TMPDIR": str(tmp)}
    for text in texts:
        (tmp / "job.sh").write_text(text)
        p = subprocess.run(["bash", str(tmp / "job.sh")], env=env, capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, p.stderr
    calls = [json.loads(line) for line in (tmp / "argv.jsonl").read_text().splitlines()]
    work = tmp / f"w{value}"
    assert calls[0] == ["baselines", "plantclef", "predict", str(Path(f"/data/{value}/img")), "--model", value,
                        "--save-tile-scores", str(work / "tiles.parquet"), "--out", str(work / "submission.csv"),
                        "--resume", "--quiet", "--shard", "1/2"]
    assert calls[1][3:5] == [str(work / "tiles.shard-0-of-2.parquet"), str(work / "tiles.shard-1-of-2.parquet")]
    assert calls[2][4:6] == ["--recipe", value]
