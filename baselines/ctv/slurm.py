"""Write an ``sbatch`` array script: one array task per run of a sweep, and ``runs.tsv`` beside it.

Task ``i`` runs line ``i`` of the embedded run lists through ``agrieval baselines ctv run``; with several ranks
per task the same command runs under ``torchrun --no-python``, so there is one entry point, the installed
``agrieval``, whatever the task's size. Finished runs are skipped and interrupted ones resume, so a requeued
task, or the same script submitted again, continues where it stopped.

What the script does to survive a cluster (``docs/cluster.md`` explains it line by line):

- ``--requeue``: a task on a failed node, or one that asks for it, starts again (not left to the site's
  ``JobRequeue``); ``--open-mode=append``: each attempt appends to the task's log ``<job>-<index>.out`` with a
  header line, instead of truncating the previous attempt's;
- ``--signal=B:USR1@N``: N seconds before ``--time`` SLURM warns the batch shell; the run stops at its next
  epoch boundary (``last.pt`` holds the run) and the script requeues the task
  (``agrieval.baselines._sbatch.run_with_requeue``), so a run longer than ``--time`` goes on instead of ending
  ``TIMEOUT``.

Sizing (``task_resources``): ``ranks`` = GPUs per task (or, on CPUs, the ranks asked for; 1 by default); each
rank has ``workers`` loader processes and its torch threads: ``cpus = ranks * (workers + threads)``. Given
``--cpus-per-task`` alone, ``workers`` is the preset's (capped to leave a thread) and ``threads`` what is left
(``cpus // ranks - workers``); the script exports ``OMP_NUM_THREADS`` and passes ``--threads``. ``--mem``
defaults to 4 GB per CPU plus 8 GB per GPU (pinned host buffers); a CPU task has no ``--gres`` line and no GPU
term (sbatch refuses ``--gres=gpu:N`` on a partition without GPUs).

Every value that lands in the script is checked and quoted by ``agrieval.baselines._sbatch``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from dataclasses import dataclass
from pathlib import Path

from agrieval.baselines import _sbatch as sbatch
from agrieval.baselines.ctv._archs import resolve_arch
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.manifest import read_folds_json
from agrieval.baselines.ctv.sweep import PlannedRun
from agrieval.scoring.text.template import prose

# Imported inside functions, so that importing this module loads only what it needs: baselines.ctv.models (it loads
# asyncio, email, http); baselines.ctv.runner (it loads PIL, asyncio, concurrent.futures).

_MEM_PER_CPU_GB = 4
_MEM_PER_GPU_GB = 8
RUNS_TSV = "runs.tsv"
_LOG_NAME = "%x-%a.out"  # one log per array task; attempts and resubmissions append to it


@dataclass(frozen=True)
class TaskResources:
    gpus: int
    ranks: int
    cpus: int
    mem: str
    workers: int  # loader workers per rank
    threads: int  # torch CPU threads per rank


def task_resources(gpus: int, *, cpus: int | None, mem: str | None, workers: int | None,
                   preset_workers: int, cpu_ranks: int | None = None) -> TaskResources:
    """Resources of one task. ``cpu_ranks``: a CPU task of that many ranks (``gpus`` must then be 0)."""
    if gpus < 0:
        raise CTVError("bad_option", f"--gpus-per-task must be >= 0, got {gpus}")
    if cpu_ranks is not None and cpu_ranks < 1:
        raise CTVError("bad_option", f"--ranks-per-task must be >= 1, got {cpu_ranks}")
    ranks = max(1, gpus) if cpu_ranks is None else cpu_ranks
    if cpus is not None and cpus < ranks:
        raise CTVError("bad_option", f"--cpus-per-task {cpus} is fewer than the {ranks} rank(s) of a task")
    if workers is None:
        workers = preset_workers if cpus is None else min(preset_workers, cpus // ranks - 1)
    if workers < 0:
        raise CTVError("bad_option", f"--num-workers must be >= 0, got {workers}")
    threads = 1 if cpus is None else cpus // ranks - workers
    need = ranks * (workers + 1)
    if cpus is None:
        cpus = need
    elif threads < 1:
        raise CTVError("bad_option", f"--cpus-per-task {cpus} is fewer than {ranks} rank(s) x ({workers} loader "
                       f"workers + 1 thread) = {need}; raise it or lower --num-workers")
    if mem is None:
        mem = f"{_MEM_PER_CPU_GB * cpus + _MEM_PER_GPU_GB * gpus}G"
    else:
        _checked(sbatch.check_mem, mem)
    return TaskResources(gpus, ranks, cpus, mem, workers, threads)


def _checked(check, *args, **kw):
    try:
        return check(*args, **kw)
    except sbatch.DirectiveError as exc:
        raise CTVError("bad_option", str(exc)) from None


def sbatch_script(runs: list[PlannedRun], *, common_args: list[str], res: TaskResources, job_name: str = "ctv",
                  partition: str | None = None, account: str | None = None, time: str = "04:00:00",
                  signal_lead: int = 600, setup: str | None = None, log_dir: str = "slurm-logs",
                  max_parallel: int | None = None, extra: tuple[str, ...] = (), pass_threads: bool = True,
                  runs_root: str | None = None) -> str:
    """The script's text. ``common_args``: the run's flags, quoted here; ``extra``: ``--name[=value]``
    directives (``--sbatch-extra``); ``signal_lead``: seconds before ``--time`` of the USR1 warning;
    ``runs_root``: replicates (``--seeds``): each task also gets its run's seed, and trains it with
    ``--seed S --runs-dir RUNS_ROOT/seed-S`` (``agrieval.baselines.ctv._replicates``)."""
    if not runs:
        raise CTVError("bad_option", "no run to write a script for")
    seconds = _checked(sbatch.time_seconds, time)
    if not 0 < signal_lead < seconds:
        raise CTVError("bad_option", f"--signal-lead {signal_lead} s must be above 0 and below --time {time} "
                       f"({seconds} s): the run needs the time to reach its next checkpoint")
    _checked(sbatch.check_name, job_name, "job-name")
    if max_parallel is not None and max_parallel < 1:
        raise CTVError("bad_option", f"--max-parallel must be >= 1, got {max_parallel}")
    extras = [_checked(sbatch.parse_extra, e) for e in extra]
    if "%" in str(log_dir) or "\\" in str(log_dir):
        raise CTVError("bad_option", f"{log_dir}: the log folder's path holds '%' or a backslash, which sbatch "
                       "reads as a file-name pattern; write the script into another folder")
    n = len(runs)
    directives = [("job-name", job_name), ("array", f"0-{n - 1}" + (f"%{max_parallel}" if max_parallel else ""))]
    if res.gpus:
        directives.append(("gres", f"gpu:{res.gpus}"))
    directives += [("cpus-per-task", res.cpus), ("mem", _checked(sbatch.check_mem, res.mem)), ("time", time),
                   ("output", f"{log_dir}/{_LOG_NAME}"),  # the folder must exist before sbatch (the CLI)
                   ("open-mode", "append"), ("requeue", None), ("signal", f"B:USR1@{signal_lead}")]
    if partition:
        directives.append(("partition", _checked(sbatch.check_name, partition, "partition", several=True)))
    if account:
        directives.append(("account", _checked(sbatch.check_name, account, "account")))
    directives += extras
    seeded = runs_root is not None
    launcher = sbatch.script("ctv_torchrun.sh", ranks=res.ranks) if res.ranks > 1 else prose("")  # one per rank
    args = list(common_args) + ["--num-workers", str(res.workers)]
    if pass_threads:
        args += ["--threads", str(res.threads)]
    replicate = prose(' --seed "${SEEDS[$i]}" --runs-dir "$RUNS_ROOT/seed-${SEEDS[$i]}"') if seeded else prose("")
    command = sbatch.script("ctv_run.sh", launcher=launcher, replicate=replicate, args=args)
    return sbatch.script(
        "ctv_array.sh", directives=_checked(sbatch.checked, directives),
        gpu_text=sbatch.script("ctv_gpus.sh", gpus=res.gpus) if res.gpus else prose("no GPU"), ranks=res.ranks,
        workers=res.workers, threads=res.threads, requeue_trap=sbatch.requeue_trap(),
        attempt_header=sbatch.attempt_header(), setup=sbatch.setup_line(setup),
        runs_root=sbatch.script("ctv_runs_root.sh", runs_root=runs_root) if seeded else prose(""),
        protocols=[r.protocol for r in runs], archs=[r.arch for r in runs], folds=[r.fold for r in runs],
        seeds=sbatch.script("ctv_seeds.sh", seeds=[str(r.seed) for r in runs]) if seeded else prose(""),
        run=sbatch.run_with_requeue(command))


def runs_table(runs: list[PlannedRun], log_dir: str | Path, job_name: str = "ctv") -> str:
    """``runs.tsv``: array index, run (protocol/arch/fold), run folder, log file; a header line first."""
    buf = io.StringIO()
    w = csv.writer(buf, delimiter="\t", lineterminator="\n")
    w.writerow(["index", "run", "path", "log"])
    for i, r in enumerate(runs):
        seed = "" if getattr(r, "seed", None) is None else f"seed-{r.seed}/"
        w.writerow([i, f"{seed}{r.protocol}/{r.arch}/{r.fold}", str(Path(r.path).resolve()),
                    str(Path(log_dir) / _LOG_NAME.replace("%x", job_name).replace("%a", str(i)))])
    return buf.getvalue()


def read_runs_table(path: str | Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def preflight(cfg, runs: list[PlannedRun], splits: str, runs_dir: str, *, weights_dir: str | None,
              data_root: str | None) -> None:
    """The checks a task would make first, made when the script is written, with the codes a run gives:
    ``weights_missing`` (pretrained weights not found for an arch), ``folds_json_invalid``,
    ``run_config_mismatch`` (a finished run of other settings in the runs folder), ``bad_option``."""

    from agrieval.baselines.ctv.models import find_weights, weights_hint
    from agrieval.baselines.ctv.runner import finished_run

    if cfg.pretrained and not cfg.allow_download:
        if weights_dir and not Path(weights_dir).is_dir():
            raise CTVError("weights_missing", f"{weights_dir}: no such folder (--weights-dir); every task would "
                           "stop with weights_missing")
        for key in sorted({r.arch for r in runs}):
            spec = resolve_arch(key)
            found = find_weights(spec, cfg.weights, weights_dir)
            if found is None or not Path(found).is_file():
                if found:
                    where = f"{found}: no such file"
                elif weights_dir:
                    where = f"{weights_dir}: no {spec.timm_name}.safetensors (or .pth)"
                else:
                    where = f"{spec.key} starts from ImageNet weights and no --weights-dir or --weights was given"
                raise CTVError("weights_missing", f"{where}; {weights_hint(spec)}; or --no-pretrained, or "
                               "--allow-download")
    if data_root is None:
        for protocol in sorted({r.protocol for r in runs}):
            read_folds_json(splits, protocol)
    if Path(runs_dir).exists() and not Path(runs_dir).is_dir():
        raise CTVError("bad_option", f"{runs_dir}: --runs-dir is a file, not a folder")
    for r in runs:
        seed = {} if r.seed is None else {"seed": r.seed}  # a replicate's run.json records its own seed
        finished_run(r.path, dataclasses.replace(cfg, protocol=r.protocol, arch=r.arch, fold=r.fold, **seed))


__all__ = ["RUNS_TSV", "TaskResources", "preflight", "read_runs_table", "runs_table", "sbatch_script",
           "task_resources"]
