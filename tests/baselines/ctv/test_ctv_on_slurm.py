"""The script ``agrieval baselines ctv slurm`` writes, submitted to a real one-node SLURM (``scripts/slurm/up.sh``):
a task requeued mid-run, one cancelled with TERM then requeued, and one warned before its time limit
(``--signal=B:USR1``) each end with the predictions of one uninterrupted process at the same thread count.

Skipped where no SLURM runs (``tests/slurm_cluster.py`` says how to start one); required under CI.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from agrieval.baselines.ctv.config import make_config
from agrieval.baselines.ctv.runner import run_fold
from agrieval.scoring.cli.main import cli
from tests import slurm_cluster as sc

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
    from concurrent.futures import ThreadPoolExecutor

    _, splits = ctv_data
    epochs = 30
    script = _write(splits, tmp_path, "--folds", "alpha,beta", "--epochs", str(epochs), "--time", "10",
                    "--signal-lead", "120")
    job = sc.submit(script)
    # the uninterrupted runs, in this process while the tasks run (one thread: each reference at 1 thread)
    pool = ThreadPoolExecutor(1)
    reference = {fold: pool.submit(_reference, splits, tmp_path, fold, epochs) for fold in ("alpha", "beta")}
    pool.shutdown(wait=False)
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
        assert (runs / fold / "predictions.csv").read_bytes() == reference[fold].result(), fold
    res = CliRunner().invoke(cli, ["baselines", "ctv", "status", str(script), "--job", job, "--json"])
    assert res.exit_code == 0, res.output
    assert '"run_state": "done"' in res.output and '"partial"' not in res.output


def test_time_limit_warning_checkpoints_and_requeues(ctv_data, tmp_path):
    """--time 2 with a 119 s lead: SLURM sends the batch shell USR1 at its first time-limit check of the attempt
    (slurmctld checks about every 30 s). So that the warning finds the run mid-training on any machine, fast or
    loaded, the test pauses the run (SIGSTOP) once it has trained an epoch until the script's trap has created
    the stop file: an epoch longer than the wait for the check. The run then stops at its next epoch boundary
    with its checkpoint (exit 75), the script requeues the task, and the second attempt (its time limit raised
    while it waits, so that no second warning comes) resumes and ends with the uninterrupted run's predictions,
    with no TIMEOUT. (Training 1,500 epochs until the warning came on its own took minutes, and under load an
    attempt's start-up could take most of its time: hundreds of attempts of one epoch each.)"""
    import os
    import signal
    from concurrent.futures import ThreadPoolExecutor
    from contextlib import suppress

    _, splits = ctv_data
    epochs = 30
    script = _write(splits, tmp_path, "--folds", "gamma", "--epochs", str(epochs), "--time", "2",
                    "--signal-lead", "119")
    job = sc.submit(script)
    run = tmp_path / "runs" / "toto" / "tiny_cnn" / "gamma"
    try:
        sc.wait_for(lambda: sc.epochs_written(run) >= 1, "the first epoch", poll=0.02)
        runs = sc.task_processes(job, 0)  # (none if an early warning already stopped it after its first epoch)
        for pid in runs:
            with suppress(ProcessLookupError):  # (it may have ended since)
                os.kill(pid, signal.SIGSTOP)
        try:
            trained = sc.epochs_written(run)
            assert trained < epochs, f"the run ended before the test could pause it ({trained} epochs)"
            with ThreadPoolExecutor(1) as pool:  # the uninterrupted run, while SLURM's check is awaited
                reference = pool.submit(_reference, splits, tmp_path, "gamma", epochs)
                for warned in set(runs.values()):
                    sc.wait_for(warned.exists, "SLURM's USR1 warning (the trap's stop file)", timeout=120)
        finally:
            for pid in runs:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
        sc.wait_for(lambda: sc.states(job).get(f"{job}_0") == "PENDING", "the task to requeue itself", timeout=120)
        sc.scontrol("update", f"jobid={job}_0", "timelimit=10")
        _release_until_done(job)
    finally:
        if sc.states(job):  # a failed check leaves no task behind for the other SLURM tests
            sc.scancel(job)
    log_path = tmp_path / "job" / "slurm-logs" / "ctv-0.out"
    log = log_path.read_text()
    assert "stopped on SLURM's warning (exit 75): requeueing" in log, log
    assert sc.attempts(log_path) == ["1", "2"] and "TIME LIMIT" not in log, log
    assert "resume toto/tiny_cnn/gamma from epoch" in log and "done toto/tiny_cnn/" in log, log
    assert (run / "predictions.csv").read_bytes() == reference.result()
