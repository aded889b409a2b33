"""``agrieval baselines ctv status``: each task of a written array, its run's state and the scheduler's.

The run's state comes from its folder (``done``: ``run.json``; ``partial``: ``last.pt``; ``failed``:
``failed.json``; else ``pending``), the scheduler's from ``sacct`` where the cluster keeps accounting (every
state, finished tasks included), else from ``squeue`` (tasks still pending or running; a task squeue no
longer lists shows ``-``). The two together say what to do: ``TIMEOUT``/``FAILED``/``CANCELLED`` with a
``partial`` run resumes when the script is submitted again (finished runs are skipped).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.runner import run_status
from agrieval.baselines.ctv.slurm import RUNS_TSV, read_runs_table
from agrieval.baselines.ctv.sweep import FAILED, MAX_FAILED_JSON_BYTES
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_json
from agrieval.scoring.text.terminal import cell, one_line

_TASK = re.compile(r"^(?P<job>\d+)_(?:(?P<i>\d+)|\[(?P<ranges>[0-9,\-%]+)\])$")


def _indices(m: re.Match) -> list[int]:
    if m["i"] is not None:
        return [int(m["i"])]
    out = []
    for part in m["ranges"].split("%")[0].split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def parse_states(text: str, job: str) -> dict[int, dict]:
    """``JobID|State|...`` lines (sacct -P, squeue -o) -> {array index: {"state": ..., "job": ...}}; job steps
    (``123_4.batch``) are left out, the last line of an index wins (a requeued task's latest attempt)."""
    out: dict[int, dict] = {}
    for line in text.splitlines():
        fields = line.strip().split("|")
        if len(fields) < 2:
            continue
        m = _TASK.match(fields[0])
        if not m or m["job"] != job:
            continue
        state = fields[1].split()[0] if fields[1].strip() else "?"
        for i in _indices(m):
            out[i] = {"state": state, "exit_code": fields[2] if len(fields) > 2 else "",
                      "elapsed": fields[3] if len(fields) > 3 else ""}
    return out


def scheduler_states(job: str) -> tuple[str, dict[int, dict]]:
    """(source, states): ``sacct`` when it answers, else ``squeue``, else ``none``."""
    if not job.isdigit():
        raise CTVError("bad_option", f"--job {job!r}: the array's numeric job id, as sbatch printed it")
    if shutil.which("sacct"):
        p = subprocess.run(["sacct", "-j", job, "-n", "-P", "-X", "-o", "JobID,State,ExitCode,Elapsed"],
                           capture_output=True, text=True, timeout=60)
        if p.returncode == 0:
            return "sacct", parse_states(p.stdout, job)
    if shutil.which("squeue"):
        p = subprocess.run(["squeue", "-j", job, "-r", "-h", "-o", "%i|%T||%M"], capture_output=True, text=True,
                           timeout=60)
        if p.returncode == 0:
            return "squeue", parse_states(p.stdout, job)
        if "Invalid job id" in p.stderr:
            return "squeue", {}  # the scheduler has forgotten the job: every task ended
    return "none", {}


def task_status(script: str | Path, job: str | None = None) -> list[dict]:
    table = Path(script).resolve().parent / RUNS_TSV
    if not table.is_file():
        raise CTVError("splits_missing", f"{table}: no run table beside the script; write the script again with "
                       "'agrieval baselines ctv slurm'")
    source, states = scheduler_states(job) if job else ("none", {})
    rows = []
    for row in read_runs_table(table):
        path = Path(row["path"])
        state = run_status(path)
        failed = path / FAILED
        error = ""
        if state != "done" and failed.is_file():
            state = "failed"
            try:  # the one opening rule: a regular file of a failure record's size, shallow JSON
                record = read_json(failed, max_bytes=MAX_FAILED_JSON_BYTES, max_depth=4, what="failure record",
                                   max_containers=16, max_values=64)
                error = str(record.get("error", "")) if isinstance(record, dict) else "?"
            except (OSError, UntrustedFileError):
                error = "?"
        sched = states.get(int(row["index"]), {})
        rows.append({"index": int(row["index"]), "run": row["run"], "run_state": state, "error": error,
                     "scheduler": sched.get("state", "-"), "exit_code": sched.get("exit_code", ""),
                     "elapsed": sched.get("elapsed", ""), "source": source, "log": row["log"]})
    return rows


def format_status(rows: list[dict]) -> str:
    lines = [f"{'index':>5}  {'run':40}  {'run state':9}  {'scheduler':12}  log"]
    for r in rows:
        state = r["run_state"] + (f" ({r['error']})" if r["error"] else "")
        lines.append(f"{r['index']:>5d}  {cell(r['run'], 40)}  {cell(state, 9)}  {cell(r['scheduler'], 12)}  "
                     f"{one_line(r['log'])}")
    counts = {}
    for r in rows:
        counts[r["run_state"]] = counts.get(r["run_state"], 0) + 1
    source = rows[0]["source"] if rows else "none"
    lines.append(f"{len(rows)} tasks: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
                 + f"; scheduler states from {source}")
    return "\n".join(lines) + "\n"


__all__ = ["format_status", "parse_states", "scheduler_states", "task_status"]
