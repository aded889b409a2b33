"""Write an ``sbatch`` array script: one array task per run of a sweep.

Task ``i`` runs line ``i`` of the embedded run list through ``agrieval
baselines ctv run`` (or ``torchrun --nproc_per_node=G -m baselines.ctv.cli``
when a task has several GPUs). Finished runs are skipped and interrupted ones
resume, so resubmitting the same script after a pre-emption is safe.
"""

from __future__ import annotations

import shlex

from baselines.ctv.sweep import PlannedRun


def sbatch_script(runs: list[PlannedRun], *, common_args: list[str], job_name: str = "ctv",
                  partition: str | None = None, account: str | None = None, time: str = "04:00:00",
                  gpus_per_task: int = 1, cpus_per_task: int = 16, mem: str = "64G",
                  setup: str | None = None, log_dir: str = "slurm-logs", max_parallel: int | None = None) -> str:
    n = len(runs)
    array = f"0-{n - 1}" + (f"%{max_parallel}" if max_parallel else "")
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name={job_name}",
             f"#SBATCH --array={array}",
             f"#SBATCH --gres=gpu:{gpus_per_task}",
             f"#SBATCH --cpus-per-task={cpus_per_task}",
             f"#SBATCH --mem={mem}",
             f"#SBATCH --time={time}",
             f"#SBATCH --output={log_dir}/%x-%A_%a.out"]  # the folder must exist before sbatch (made by the CLI)
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    if account:
        lines.append(f"#SBATCH --account={account}")
    lines += ["", "# Written by 'agrieval baselines ctv slurm'. One array task per run:",
              "# protocol arch fold. Resubmitting skips finished runs and resumes partial ones.",
              "set -euo pipefail", f"mkdir -p {shlex.quote(log_dir)}"]
    if setup:
        lines.append(setup)
    lines.append("RUNS=(")
    lines += [f"  {shlex.quote(f'{r.protocol} {r.arch} {r.fold}')}" for r in runs]
    lines += [")", 'read -r PROTOCOL ARCH FOLD <<< "${RUNS[$SLURM_ARRAY_TASK_ID]}"']
    if gpus_per_task > 1:
        launcher = f"torchrun --standalone --nproc_per_node={gpus_per_task} -m baselines.ctv.cli run"
    else:
        launcher = "agrieval baselines ctv run"
    args = " ".join(shlex.quote(a) for a in common_args)
    lines += [f'{launcher} --protocol "$PROTOCOL" --arch "$ARCH" --fold "$FOLD" \\',
              f"  --num-workers {max(0, cpus_per_task - 2)} {args}", ""]
    return "\n".join(lines)
