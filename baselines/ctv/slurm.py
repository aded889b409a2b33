"""Write an ``sbatch`` array script: one array task per run of a sweep.

Task ``i`` runs line ``i`` of the embedded run list through ``agrieval baselines ctv run``; with several
GPUs per task the same command runs under ``torchrun --no-python`` (one rank per GPU), so there is one
entry point, the installed ``agrieval``, whatever the task's size. Finished runs are skipped and
interrupted ones resume, so resubmitting the same script after a pre-emption is safe.

Sizing (``task_resources``): ``ranks = max(1, gpus)``; each rank has ``workers`` loader processes
(``--num-workers``, else the preset's) and needs one CPU for itself, so ``--cpus-per-task`` defaults to
``ranks * (workers + 1)``, and a given ``--cpus-per-task`` without ``--num-workers`` sets
``workers = cpus // ranks - 1``. ``--mem`` defaults to 4 GB per CPU plus 8 GB per GPU (pinned host
buffers). No ``--gres`` line when no GPU is asked for (some sites reject ``--gres=gpu:0``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.sweep import PlannedRun

MEM_PER_CPU_GB = 4
MEM_PER_GPU_GB = 8


@dataclass(frozen=True)
class TaskResources:
    gpus: int
    cpus: int
    mem: str
    workers: int  # loader workers per rank

    @property
    def ranks(self) -> int:
        return max(1, self.gpus)


def task_resources(gpus: int, *, cpus: int | None, mem: str | None, workers: int | None,
                   preset_workers: int) -> TaskResources:
    if gpus < 0:
        raise CTVError("bad_option", f"--gpus-per-task must be >= 0, got {gpus}")
    ranks = max(1, gpus)
    if workers is None:
        workers = max(0, cpus // ranks - 1) if cpus is not None else preset_workers
    need = ranks * (workers + 1)
    if cpus is None:
        cpus = need
    elif cpus < need:
        raise CTVError("bad_option", f"--cpus-per-task {cpus} is fewer than {ranks} rank(s) x ({workers} loader "
                       f"workers + 1) = {need}; raise it or lower --num-workers")
    if mem is None:
        mem = f"{MEM_PER_CPU_GB * cpus + MEM_PER_GPU_GB * gpus}G"
    return TaskResources(gpus, cpus, mem, workers)


def sbatch_script(runs: list[PlannedRun], *, common_args: list[str], res: TaskResources, job_name: str = "ctv",
                  partition: str | None = None, account: str | None = None, time: str = "04:00:00",
                  setup: str | None = None, log_dir: str = "slurm-logs", max_parallel: int | None = None,
                  runs_root: str | None = None) -> str:
    """``runs_root``: replicates (``--seeds``): each line of the run list also names its seed, and the task
    trains it with ``--seed S --runs-dir RUNS_ROOT/seed-S`` (``agrieval.baselines.ctv.replicates``)."""
    n = len(runs)
    array = f"0-{n - 1}" + (f"%{max_parallel}" if max_parallel else "")
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name={job_name}",
             f"#SBATCH --array={array}"]
    if res.gpus:
        lines.append(f"#SBATCH --gres=gpu:{res.gpus}")
    lines += [f"#SBATCH --cpus-per-task={res.cpus}",
              f"#SBATCH --mem={res.mem}",
              f"#SBATCH --time={time}",
              f"#SBATCH --output={log_dir}/%x-%A_%a.out"]  # the folder must exist before sbatch (made by the CLI)
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    if account:
        lines.append(f"#SBATCH --account={account}")
    gpu_text = f"{res.gpus} GPU(s)" if res.gpus else "no GPU"
    lines += ["", "# Written by 'agrieval baselines ctv slurm'. One array task per run:",
              "# protocol arch fold. Resubmitting skips finished runs and resumes partial ones.",
              f"# Each task: {gpu_text}, {res.ranks} process(es) x ({res.workers} loader workers + 1) CPUs.",
              "set -euo pipefail", f"mkdir -p {shlex.quote(log_dir)}"]
    if setup:
        lines.append(setup)
    seeded = runs_root is not None
    if seeded:
        lines.append(f"RUNS_ROOT={shlex.quote(runs_root)}")
    lines.append("RUNS=(")
    lines += [f"  {shlex.quote(f'{r.protocol} {r.arch} {r.fold}' + (f' {r.seed}' if seeded else ''))}" for r in runs]
    lines += [")", f'read -r PROTOCOL ARCH FOLD{" SEED" if seeded else ""} <<< "${{RUNS[$SLURM_ARRAY_TASK_ID]}}"']
    launcher = "agrieval baselines ctv run"
    if res.ranks > 1:  # the same command, one process per GPU
        launcher = f"torchrun --standalone --nproc_per_node={res.ranks} --no-python {launcher}"
    args = " ".join(shlex.quote(a) for a in common_args)
    replicate = ' --seed "$SEED" --runs-dir "$RUNS_ROOT/seed-$SEED"' if seeded else ""
    lines += [f'{launcher} --protocol "$PROTOCOL" --arch "$ARCH" --fold "$FOLD"{replicate} \\',
              f"  --num-workers {res.workers} {args}", ""]
    return "\n".join(lines)
