"""A real one-node SLURM (``scripts/slurm/up.sh``) for the tests that submit the generated job scripts.

``cluster()`` skips the test with the reason where SLURM is not running here (a laptop without root), and fails
it under ``AGRIEVAL_REQUIRE_SLURM=1`` (set by ``make test`` where it can install SLURM, and by CI), so CI
proves what the docs say. The helpers wait on the scheduler's own view (``squeue``), poll files the runs write,
and never sleep a fixed time longer than a poll.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UP = REPO / "scripts" / "slurm" / "up.sh"


def cluster() -> None:
    """Skip (or fail, under AGRIEVAL_REQUIRE_SLURM=1) unless a SLURM answers here."""
    reason = None
    if not shutil.which("sbatch"):
        reason = f"no SLURM here (sbatch not on PATH): as root with apt, {UP.relative_to(REPO)} installs and starts one"
    elif subprocess.run([str(UP), "--check"], capture_output=True).returncode != 0:
        reason = f"SLURM is installed but no node answers (sinfo): start it with {UP.relative_to(REPO)}"
    if reason:
        if os.environ.get("AGRIEVAL_REQUIRE_SLURM") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def environment(**extra: str) -> dict:
    """The environment of a submission: this interpreter's ``agrieval`` first on PATH (sbatch exports it)."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def submit(script: Path, *args: str) -> str:
    p = subprocess.run(["sbatch", "--parsable", *args, str(script)], capture_output=True, text=True,
                       env=environment(), cwd=script.parent, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip().split(";")[0]


def states(job: str) -> dict[str, str]:
    """{task id (``123_4``, or ``123`` for a plain job): state} of the tasks squeue still lists."""
    p = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%i %T"], capture_output=True, text=True, timeout=60)
    return dict(line.split() for line in p.stdout.splitlines() if line.strip())


def scontrol(*args: str) -> None:
    p = subprocess.run(["scontrol", *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr


def scancel(*args: str) -> None:
    p = subprocess.run(["scancel", *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr


# slurmd refuses to launch a task it has just killed ("Job N already killed, do not launch batch job", and the
# task ends FAILED) when the requeued task is started again within a second or so: release after this long.
SETTLE_S = 5.0


def release_requeued(task: str, timeout: float = 120) -> None:
    """A requeued task waits about 120 s before it may start again (SLURM 22.05 sets its begin time); the
    tests start it after ``SETTLE_S`` rather than wait."""
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = states(task.split("_")[0]).get(task)
        if state == "PENDING":
            time.sleep(SETTLE_S)
            scontrol("update", f"jobid={task}", "starttime=now")
            return
        time.sleep(0.5)
    raise AssertionError(f"{task} was not requeued within {timeout} s (state {state})")


def wait_for(predicate, what: str, timeout: float = 240, poll: float = 0.3):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def wait_done(job: str, timeout: float = 600) -> None:
    wait_for(lambda: not states(job), f"job {job} to leave the queue", timeout, poll=1)


def epochs_written(run: Path) -> int:
    path = run / "history.jsonl"
    try:
        return len(path.read_text().splitlines())
    except FileNotFoundError:
        return 0


def attempts(log: Path) -> list[str]:
    return re.findall(r"^== attempt (\d+)", log.read_text(), flags=re.M) if log.is_file() else []



def task_processes(job: str, index: int) -> dict[int, Path]:
    """{pid: the stop file it watches} for the run of array task ``job_index``: the processes whose environment
    has the task's ids and the stop file the job script exports (the run and its children, not the batch
    shell, whose USR1 trap creates that file). The node is this machine, so /proc shows them."""
    want = {b"SLURM_ARRAY_JOB_ID=" + job.encode(), b"SLURM_ARRAY_TASK_ID=" + str(index).encode()}
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            env = set((entry / "environ").read_bytes().split(b"\0"))
        except OSError:  # gone, or not ours
            continue
        stop = [v.partition(b"=")[2] for v in env if v.startswith(b"AGRIEVAL_STOP_FILE=")]
        if want <= env and stop:
            found[int(entry.name)] = Path(stop[0].decode())
    return dict(sorted(found.items()))
