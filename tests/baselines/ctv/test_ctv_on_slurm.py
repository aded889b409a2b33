"""The script ``agrieval baselines ctv slurm`` writes, submitted to a real one-node SLURM (``scripts/slurm/up.sh``):
a task requeued mid-run, one cancelled with TERM then requeued, and one warned before its time limit
(``--signal=B:USR1``) each end with the predictions of one uninterrupted process at the same thread count.

Skipped where no SLURM runs (``tests/slurm_cluster.py`` says how to start one); required under CI.
"""

from __future__ import annotations

import pytest
import slurm_cluster as sc
from click.testing import CliRunner

from agrieval.baselines.ctv.config import make_config
from agrieval.baselines.ctv.runner import run_fold
from agrieval.scoring.cli.main import cli

pytestmark = pytest.mark.slow
FLAGS = ["--preset", "demo", "--archs", "tiny_cnn", "--protocols", "toto", "--device", "cpu", "--deterministic",
         "--cpus-per-task", "1", "--mem", "1G"]


@pytest.fixture(autouse=True)
def _cluster():
    sc.cluster()


def _write(splits, tmp_path, *extra):
    out = tmp_path / "job" / "ctv.sbatch"
    res = CliRunner().invoke(cli, ["baselines", "ctv", "slurm", "--splits", str(splits), "--runs-dir",
                                   str(tmp_path / "runs"), "-o", str(out), *FLAGS, *extra], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out


def _reference(splits, tmp_path, fold: str, epochs: int) -> bytes:
    """One uninterrupted process at the tasks' thread count (1)."""
    cfg = make_config("demo", protocol="toto", arch="tiny_cnn", fold=fold, epochs=epochs, deterministic=True,
                      device="cpu", num_workers=0, threads=1)
    run_fold(cfg, splits, tmp_path / "ref", log=lambda *_: None, progress=False)
    return (tmp_path / "ref" / "toto" / "tiny_cnn" / fold / "predictions.csv").read_bytes()


def _release_until_done(job: str, timeout: float = 900) -> None:
    """Wait for the array to leave the queue, starting each requeued task at once (not after SLURM's 120 s)."""
    import time

    deadline = time.monotonic() + timeout
    pending_since: dict[str, float] = {}
    while sc.states(job):
        assert time.monotonic() < deadline, f"job {job} still queued: {sc.states(job)}"
        now = time.monotonic()
        for task, state in sc.states(job).items():
            if state != "PENDING" or "_" not in task or task.endswith("]"):
                pending_since.pop(task, None)
                continue
            if now - pending_since.setdefault(task, now) >= sc.SETTLE_S:
                sc.scontrol("update", f"jobid={task}", "starttime=now")
                pending_since.pop(task)
        time.sleep(1)


def test_requeue_and_term_mid_run_resume_to_one_process_result(ctv_data, tmp_path):
    _, splits = ctv_data
    epochs = 60
    reference = {fold: _reference(splits, tmp_path, fold, epochs) for fold in ("alpha", "beta")}
    script = _write(splits, tmp_path, "--folds", "alpha,beta", "--epochs", str(epochs), "--time", "10",
                    "--signal-lead", "120")
    job = sc.submit(script)
    runs = tmp_path / "runs" / "toto" / "tiny_cnn"
    # both tasks run at once (one CPU each); each is hit once it has trained 3 epochs
    acted = {0: False, 1: False}

    def hit():
        if not acted[0] and sc.epochs_written(runs / "alpha") >= 3:
            # task 0: requeued while it trains (what a node failure or a pre-emption does): killed, started again
            sc.scontrol("requeue", f"{job}_0")
            acted[0] = True
        if not acted[1] and sc.epochs_written(runs / "beta") >= 3:
            # task 1: TERM to every process of the task (scancel's signal, as at a time-out), later requeued
            sc.scancel("--full", "--signal=TERM", f"{job}_1")  # --full: the batch shell too
            acted[1] = True
        return all(acted.values())

    sc.wait_for(hit, "both tasks to train 3 epochs", poll=0.1)
    assert sc.epochs_written(runs / "beta") < epochs  # TERM came mid-run
    sc.wait_for(lambda: sc.states(job).get(f"{job}_1") in (None, "PENDING"), "task 1 to end on TERM")
    sc.scontrol("requeue", f"{job}_1")
    _release_until_done(job)
    logs = tmp_path / "job" / "slurm-logs"
    for i, fold in enumerate(("alpha", "beta")):
        log = (logs / f"ctv-{i}.out").read_text()
        assert sc.attempts(logs / f"ctv-{i}.out") == ["1", "2"], log  # --open-mode=append: both attempts kept
        assert f"resume toto/tiny_cnn/{fold} from epoch" in log and "done toto/tiny_cnn/" in log
        assert (runs / fold / "predictions.csv").read_bytes() == reference[fold], fold
    res = CliRunner().invoke(cli, ["baselines", "ctv", "status", str(script), "--job", job, "--json"])
    assert res.exit_code == 0, res.output
    assert '"run_state": "done"' in res.output and '"partial"' not in res.output


def test_time_limit_warning_checkpoints_and_requeues(ctv_data, tmp_path):
    """--time 1 with a 45 s lead: SLURM warns each attempt within its first half-minute (its check runs about
    every 30 s); the run stops at the next epoch boundary, the script requeues the task, and the attempts add
    up to the uninterrupted run (no TIMEOUT)."""
    _, splits = ctv_data
    # well over a minute of training on one quiet core: 300 epochs took 16 s on a quiet machine and ended
    # before the first warning, which SLURM may send up to 45 s into an attempt; this many is warned every time
    epochs = 1500
    script = _write(splits, tmp_path, "--folds", "gamma", "--epochs", str(epochs), "--time", "1",
                    "--signal-lead", "45")
    reference = _reference(splits, tmp_path, "gamma", epochs)
    job = sc.submit(script)
    _release_until_done(job)
    log = (tmp_path / "job" / "slurm-logs" / "ctv-0.out").read_text()
    assert "stopped on SLURM's warning (exit 75): requeueing" in log, log
    assert len(sc.attempts(tmp_path / "job" / "slurm-logs" / "ctv-0.out")) >= 2 and "TIME LIMIT" not in log
    assert (tmp_path / "runs" / "toto" / "tiny_cnn" / "gamma" / "predictions.csv").read_bytes() == reference
