"""``agrieval baselines ctv slurm`` and ``status``: the script's text, its sizing, the checks made when it is
written, and (property test) that no value can change its directives or its command.

The same scripts run on a real SLURM in ``tests/baselines/ctv/test_ctv_on_slurm.py``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.baselines import _sbatch as sbatch
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.slurm import read_runs_table, sbatch_script, task_resources
from agrieval.baselines.ctv.sweep import PlannedRun
from agrieval.scoring.cli.main import cli

CPU = ["--preset", "demo", "--archs", "tiny_cnn", "--device", "cpu"]


def _invoke(args):
    return CliRunner().invoke(cli, ["baselines", "ctv", *args], catch_exceptions=False)


def _slurm(splits, tmp_path, *extra, out=None):
    out = out or tmp_path / "job" / "ctv.sbatch"
    res = _invoke(["slurm", "--splits", str(splits), "--runs-dir", str(tmp_path / "runs"), "-o", str(out), *extra])
    return res, out


def _directives(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("#SBATCH")]


def test_script_has_one_task_per_pending_run_and_survives_the_cluster(ctv_data, tmp_path):
    _, splits = ctv_data
    res, out = _slurm(splits, tmp_path, "--partition", "gpu", "--epochs", "20", "--no-pretrained",
                      "--gpus-per-task", "2", "--time", "1-00:00:00", "--signal-lead", "900")
    assert res.exit_code == 0, res.output
    text = out.read_text()
    logs = (tmp_path / "job" / "slurm-logs").resolve()
    assert _directives(text) == [
        "#SBATCH --job-name=ctv", "#SBATCH --array=0-11", "#SBATCH --gres=gpu:2",
        "#SBATCH --cpus-per-task=2", "#SBATCH --mem=24G",  # 2 ranks x (0 workers + 1); 4G per CPU + 8G per GPU
        "#SBATCH --time=1-00:00:00", f"#SBATCH --output={logs}/%x-%a.out", "#SBATCH --open-mode=append",
        "#SBATCH --requeue", "#SBATCH --signal=B:USR1@900", "#SBATCH --partition=gpu"]
    assert logs.is_dir()  # sbatch opens --output before the task runs
    assert "torchrun --standalone --nproc_per_node=2 --no-python agrieval baselines ctv run" in text
    assert "--epochs 20" in text and "--no-pretrained" in text
    # the trap comes before any work: a warning during set-up must not end the shell
    assert text.index("trap ") < text.index("agrieval baselines ctv run")
    assert subprocess.run(["bash", "-n", str(out)]).returncode == 0
    table = read_runs_table(out.parent / "runs.tsv")
    assert [r["index"] for r in table] == [str(i) for i in range(12)]
    assert table[0]["run"] == "toto/densenet121/alpha" and table[-1]["run"] == "loto/swin_tiny/gamma"
    assert table[3]["log"] == f"{logs}/ctv-3.out"
    assert table[0]["path"] == str((tmp_path / "runs" / "toto" / "densenet121" / "alpha").resolve())


@pytest.mark.parametrize("extra, lines, workers, threads", [
    # a CPU partition: no --gres line at all (sites reject --gres=gpu:0), the run told to use the CPU
    (["--gpus-per-task", "0"], ["#SBATCH --cpus-per-task=1", "#SBATCH --mem=4G"], 0, 1),
    (["--device", "cpu", "--num-workers", "3"], ["#SBATCH --cpus-per-task=4", "#SBATCH --mem=16G"], 3, 1),
    # CPUs alone on a CPU task: the preset's loader workers (demo: 0), the rest are torch threads
    (["--device", "cpu", "--cpus-per-task", "8"], ["#SBATCH --cpus-per-task=8", "#SBATCH --mem=32G"], 0, 8),
    (["--device", "cpu", "--cpus-per-task", "8", "--num-workers", "3"], ["#SBATCH --cpus-per-task=8"], 3, 5),
    # two CPU ranks (the old spelling --gpus-per-task 2 --device cpu too): torchrun, no GPU asked for
    (["--device", "cpu", "--ranks-per-task", "2", "--cpus-per-task", "4"],
     ["#SBATCH --cpus-per-task=4", "#SBATCH --mem=16G"], 0, 2),
    (["--device", "cpu", "--gpus-per-task", "2", "--cpus-per-task", "4"], ["#SBATCH --cpus-per-task=4"], 0, 2),
    # GPUs: CPUs given set the loader workers' share, one thread per rank stays
    (["--gpus-per-task", "2", "--cpus-per-task", "16", "--mem", "100G", "--num-workers", "7"],
     ["#SBATCH --gres=gpu:2", "#SBATCH --cpus-per-task=16", "#SBATCH --mem=100G"], 7, 1),
])
def test_task_is_sized_from_the_options(ctv_data, tmp_path, extra, lines, workers, threads):
    _, splits = ctv_data
    res, out = _slurm(splits, tmp_path, "--partition", "cpu", "--preset", "demo", "--archs", "tiny_cnn", *extra)
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert all(line in _directives(text) for line in lines), text
    gpu = "--device" not in extra
    assert ("--gres" in text) == (gpu and extra[1] != "0") and ("gpu" not in text.split("#SBATCH --mem=")[1]
                                                                .splitlines()[0])
    run_line = next(line for line in text.splitlines() if "agrieval baselines ctv run" in line)
    assert run_line.split().count("--num-workers") == 1 and f"--num-workers {workers} --threads {threads}" in run_line
    assert f"export OMP_NUM_THREADS={threads}\n" in text
    assert ("--device cpu" in run_line) == ("--gres" not in text)
    assert ("torchrun" in run_line) == ("2" in extra)
    assert subprocess.run(["bash", "-n", str(out)]).returncode == 0


def test_a_given_threads_flag_is_kept(ctv_data, tmp_path):
    _, splits = ctv_data
    res, out = _slurm(splits, tmp_path, *CPU, "--cpus-per-task", "4", "--threads", "3")
    assert res.exit_code == 0, res.output
    run_line = next(line for line in out.read_text().splitlines() if "ctv run" in line)
    assert run_line.split().count("--threads") == 1 and "--threads 3" in run_line


@pytest.mark.parametrize("extra, message", [
    (["--gpus-per-task", "2", "--cpus-per-task", "4", "--num-workers", "4"], "--cpus-per-task 4 is fewer than 2 rank(s)"),
    (["--ranks-per-task", "2", "--gpus-per-task", "2"], "--ranks-per-task is for CPU tasks"),
    (["--time", "4h"], "is not a SLURM time"),
    (["--time", "10", "--signal-lead", "600"], "must be above 0 and below --time 10 (600 s)"),
    (["--mem", "16 G"], "is not a SLURM size"),
    (["--partition", "gpu\n#SBATCH --x"], "a name of letters"),
    (["--account", "a b"], "a name of letters"),
    (["--sbatch-extra", "--array=0-99"], "set by the generated script"),
    (["--sbatch-extra", "mail-type=END"], "one sbatch long option"),
    (["--sbatch-extra", "--comment=a\nrm -rf /"], "line break or control character"),
])
def test_bad_values_are_refused_before_anything_is_written(ctv_data, tmp_path, extra, message):
    _, splits = ctv_data
    res, out = _slurm(splits, tmp_path, *CPU, *extra)
    assert res.exit_code == 2 and "[bad_option]" in res.output and message in res.output, res.output
    assert not out.exists() and not (out.parent / "runs.tsv").exists()


def test_extra_directives_pass_through_quoted(ctv_data, tmp_path):
    _, splits = ctv_data
    res, out = _slurm(splits, tmp_path, *CPU, "--sbatch-extra", "--mail-type=END,FAIL", "--sbatch-extra",
                      "--comment=CTV study, run 2", "--sbatch-extra", "--exclusive")
    assert res.exit_code == 0, res.output
    assert _directives(out.read_text())[-3:] == ["#SBATCH --mail-type=END,FAIL", "#SBATCH --comment='CTV study, run 2'",
                                                 "#SBATCH --exclusive"]


def test_missing_weights_fail_when_the_script_is_written(ctv_data, tmp_path):
    """--preset paper starts from ImageNet weights: without them every task would stop with weights_missing."""
    _, splits = ctv_data
    for extra, says in (([], "no --weights-dir or --weights was given"),
                        (["--weights-dir", str(tmp_path / "nowhere")], "no such folder"),
                        (["--weights-dir", str(tmp_path)], "no densenet121.tv_in1k.safetensors")):
        res, out = _slurm(splits, tmp_path, *extra)
        assert res.exit_code == 2 and "[weights_missing]" in res.output and says in res.output, res.output
        assert not out.exists()
    weights = tmp_path / "w"
    weights.mkdir()
    for name in ("densenet121.tv_in1k", "swin_tiny_patch4_window7_224.ms_in1k"):
        (weights / f"{name}.safetensors").write_bytes(b"")
    res, out = _slurm(splits, tmp_path, "--weights-dir", str(weights))
    assert res.exit_code == 0, res.output
    assert f"--weights-dir {weights.resolve()}" in out.read_text()


def test_splits_and_runs_folder_are_checked_with_the_runs_codes(ctv_data, tmp_path):
    root, splits = ctv_data
    res, _ = _slurm(tmp_path / "nosplits", tmp_path, *CPU)
    assert res.exit_code == 2 and "[splits_missing]" in res.output
    bad = tmp_path / "splits2"
    (bad / "toto").mkdir(parents=True)
    (bad / "toto" / "alpha.csv").write_text((splits / "toto" / "alpha.csv").read_text())
    res, _ = _slurm(bad, tmp_path, *CPU, "--protocols", "toto")
    assert res.exit_code == 1 and "[folds_json_invalid]" in res.output
    res, _ = _slurm(bad, tmp_path, *CPU, "--protocols", "toto", "--data-root", str(root))
    assert res.exit_code == 0, res.output
    # a finished run of other settings in the runs folder: the task would refuse it
    run = tmp_path / "runs" / "toto" / "tiny_cnn" / "alpha"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"identity_hash": "other", "settings": {}}))
    res, out = _slurm(splits, tmp_path, *CPU, "--overwrite", "--all-runs", out=tmp_path / "b" / "x.sbatch")
    assert res.exit_code == 1 and "[run_config_mismatch]" in res.output and str(run) in res.output


def test_refuses_an_existing_script_or_table_unless_overwrite(ctv_data, tmp_path):
    _, splits = ctv_data
    out = tmp_path / "ctv.sbatch"
    out.write_text("#!/bin/bash\n# my edited script\n")
    res, _ = _slurm(splits, tmp_path, *CPU, out=out)
    assert res.exit_code == 2 and "error [output_exists]" in res.output and "--overwrite" in res.output
    assert out.read_text() == "#!/bin/bash\n# my edited script\n" and not (tmp_path / "runs.tsv").exists()
    res, _ = _slurm(splits, tmp_path, *CPU, "--overwrite", out=out)
    assert res.exit_code == 0 and "#SBATCH --array=" in out.read_text()
    out.unlink()
    res, _ = _slurm(splits, tmp_path, *CPU, out=out)  # the table of the earlier script is not replaced either
    assert res.exit_code == 2 and "runs.tsv" in res.output


def test_time_formats_are_slurms():
    assert [sbatch.time_seconds(t) for t in ("30", "30:15", "4:00:00", "2-12", "2-12:30", "2-12:30:05")] == [
        1800, 1815, 14400, 216000, 217800, 217805]
    for bad in ("4h", "", "1:2:3:4", "-1", "1-", "UNLIMITED", "0", "00:00:00", " 10"):
        with pytest.raises(sbatch.DirectiveError):
            sbatch.time_seconds(bad)


def test_status_joins_each_task_to_its_run_state(ctv_data, tmp_path, monkeypatch):
    _, splits = ctv_data
    res, out = _slurm(splits, tmp_path, *CPU, "--protocols", "toto")
    assert res.exit_code == 0, res.output
    runs = tmp_path / "runs" / "toto" / "tiny_cnn"
    (runs / "alpha").mkdir(parents=True)
    (runs / "alpha" / "run.json").write_text("{}")
    (runs / "beta").mkdir()
    (runs / "beta" / "last.pt").write_bytes(b"")
    # a scheduler that has accounting: a fake sacct on PATH, answering as sacct -P -X does
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "sacct"
    fake.write_text("#!/bin/sh\nprintf '77_0|COMPLETED|0:0|00:00:21\\n77_1|TIMEOUT|0:0|00:10:00\\n"
                    "77_[2]|PENDING|0:0|00:00:00\\n78_1|FAILED|1:0|00:00:01\\n'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    res = _invoke(["status", str(out), "--job", "77", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["tasks"]
    assert [(r["run"], r["run_state"], r["scheduler"]) for r in rows] == [
        ("toto/tiny_cnn/alpha", "done", "COMPLETED"), ("toto/tiny_cnn/beta", "partial", "TIMEOUT"),
        ("toto/tiny_cnn/gamma", "pending", "PENDING")]
    assert {r["source"] for r in rows} == {"sacct"}
    text = _invoke(["status", str(out)]).output
    assert re.search(r"1\s+toto/tiny_cnn/beta\s+partial\s+-", text) and "3 tasks: 1 done, 1 partial, 1 pending" in text
    assert _invoke(["status", str(out), "--job", "7;rm"]).exit_code == 2


def test_status_prints_a_failure_records_text_as_one_inert_line(ctv_data, tmp_path):
    """Issue 56: the error text of failed.json reached the terminal raw; an OSC sequence ending in BEL (a link,
    a window title) survives click's stripping of ANSI colours through a pipe. And a failed.json that is a FIFO,
    huge or deeply nested is read by the one opening rule: refused as '?', never hanging or flooding memory."""
    _, splits = ctv_data
    res, out = _slurm(splits, tmp_path, *CPU, "--protocols", "toto")
    assert res.exit_code == 0, res.output
    runs = tmp_path / "runs" / "toto" / "tiny_cnn"
    for name in ("alpha", "beta", "gamma"):
        (runs / name).mkdir(parents=True)
    hostile = "oom\x1b]0;owned\x07\x1b]8;;http://e.vil\x07click\x1b]8;;\x07\r\x1b[2Kdone"
    (runs / "alpha" / "failed.json").write_text(json.dumps({"error": hostile}))
    os.mkfifo(runs / "beta" / "failed.json")
    (runs / "gamma" / "failed.json").write_text("[" * 100 + "]" * 100)
    text = _invoke(["status", str(out)]).output
    assert not any(c in text for c in "\x1b\x07\r") and "failed (oom%1B]0;owned%07" in text
    assert re.search(r"beta\s+pending", text) and re.search(r"gamma\s+failed \(\?\)", text), text


# --- the trust rule: values are literals wherever they land (DESIGN.md; issue 43) ---------------------------

# quotes, backslashes, newlines, $() and backticks, '#', unicode line separators, NUL, sbatch's '%'
_PIECES = list("ab '\"\\$()`#;&|<>*?~!{}%\n\r\t\u2028\u2029\x00=,-/.:_") + ["$(id)", "`id`", "'\"'\"'"]
HOSTILE = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12).map("".join)


def _argv_of(script: Path, tmp: Path, index: int = 0) -> list[str]:
    """Run the script with a fake agrieval on PATH that records its argv (JSON); the real sbatch shape."""
    fake = tmp / "bin" / "agrieval"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                    "open(os.environ['ARGV_OUT'], 'w').write(json.dumps(sys.argv[1:]))\n")
    fake.chmod(0o755)
    env = {"PATH": f"{fake.parent}{os.pathsep}/usr/bin:/bin", "SLURM_ARRAY_TASK_ID": str(index),
           "SLURM_JOB_ID": "1", "ARGV_OUT": str(tmp / "argv.json"), "TMPDIR": str(tmp)}
    p = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return json.loads((tmp / "argv.json").read_text())


def _script(tmp: Path, value: str) -> str:
    runs = [PlannedRun("toto", "tiny_cnn", value, Path("r"), "pending"),
            PlannedRun("loto", value, "beta", Path("r"), "pending")]
    res = task_resources(0, cpus=2, mem=None, workers=None, preset_workers=0)
    return sbatch_script(runs, common_args=["--splits", f"/data/{value}/splits", "--runs-dir", value],
                         res=res, log_dir=str(tmp / f"logs{value}"), extra=(f"--comment={value}",))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=HOSTILE)
def test_a_hostile_value_stays_one_literal(tmp_path_factory, value):
    """A fold, arch, path or extra value from the hostile alphabet either is refused with a coded error or
    lands as one literal: the same directive lines as a plain value, and the run gets the same argv shape with
    the value back intact."""
    tmp = tmp_path_factory.mktemp("hostile")
    plain = _script(tmp, "plain")
    try:
        text = _script(tmp, value)
    except CTVError as exc:
        assert exc.code == "bad_option"
        assert not value.isprintable() or "%" in value or "\\" in value
        return
    assert value.isprintable() and "%" not in value and "\\" not in value
    keys = [d.split("=")[0] for d in _directives(text)]
    assert keys == [d.split("=")[0] for d in _directives(plain)]
    assert len(text.splitlines()) == len(plain.splitlines())  # no value added a line (or a command)
    comment = next(d for d in _directives(text) if d.startswith("#SBATCH --comment="))
    import shlex
    assert shlex.split(comment.split("=", 1)[1]) == [value]  # sbatch reads quoted values as the shell does
    script = tmp / "job.sbatch"
    script.write_text(text)
    for index, (protocol, arch, fold) in enumerate((("toto", "tiny_cnn", value), ("loto", value, "beta"))):
        argv = _argv_of(script, tmp, index)
        assert argv == ["baselines", "ctv", "run", "--protocol", protocol, "--arch", arch, "--fold", fold,
                        "--splits", f"/data/{value}/splits", "--runs-dir", value, "--num-workers", "0",
                        "--threads", "2"]


def test_a_failed_single_run_leaves_failed_json_for_status(ctv_data, tmp_path):
    """A task's run that stops on an input error records it, as run-all does, so `ctv status` can say why;
    the same run finishing later removes the record."""
    _, splits = ctv_data
    runs = tmp_path / "runs"
    base = ["run", "--splits", str(splits), "--runs-dir", str(runs), "--protocol", "toto", "--fold", "alpha"]
    res = _invoke([*base, "--arch", "swin_tiny"])  # paper preset, no weights
    assert res.exit_code == 2 and "[weights_missing]" in res.output
    failed = runs / "toto" / "swin_tiny" / "alpha" / "failed.json"
    assert json.loads(failed.read_text())["error"] == "weights_missing"
    res = _invoke([*base, "--arch", "tiny_cnn", "--preset", "demo", "--epochs", "1", "--threads", "1",
                   "--bad-flag"])
    assert res.exit_code == 2 and not (runs / "toto" / "tiny_cnn").exists()  # a usage error: no run folder
    (runs / "toto" / "tiny_cnn" / "alpha").mkdir(parents=True)
    (runs / "toto" / "tiny_cnn" / "alpha" / "failed.json").write_text('{"error": "image_unreadable"}')
    res = _invoke([*base, "--arch", "tiny_cnn", "--preset", "demo", "--epochs", "1", "--threads", "1"])
    assert res.exit_code == 0, res.output
    assert not (runs / "toto" / "tiny_cnn" / "alpha" / "failed.json").exists()


def test_without_slurm_the_cluster_tests_skip_with_the_reason_or_fail_when_required(monkeypatch):
    from tests import slurm_cluster as sc

    monkeypatch.setattr(sc.shutil, "which", lambda name: None)  # a laptop: no sbatch
    monkeypatch.delenv("AGRIEVAL_REQUIRE_SLURM", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"no SLURM here .*scripts/slurm/up.sh installs and starts one"):
        sc.cluster()
    monkeypatch.setenv("AGRIEVAL_REQUIRE_SLURM", "1")  # make test where it can install SLURM, and CI
    with pytest.raises(pytest.fail.Exception, match="no SLURM here"):
        sc.cluster()
