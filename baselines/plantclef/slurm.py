"""Write the PlantCLEF SLURM jobs: an array of ``predict --shard I/N`` tasks and a dependent merge job.

``shard_script``: task I predicts images I, I+N, ... (``agrieval.baselines.plantclef.shards``) into
``WORK/tiles.shard-I-of-N.parquet`` with ``--resume``: a requeued task continues from the tile parts it flushed,
when its saved settings match (``resume_mismatch`` otherwise, never a silent mix), and a task whose shard file is
already written is done. ``merge_script``: ``merge-tiles`` joins the N shard files into ``WORK/tiles.parquet``
(the file one process writes, byte for byte) and ``aggregate`` turns it into ``WORK/submission.csv``, validated
before it is written. ``submit_script`` submits both, the merge with ``--dependency=afterok:<array>`` and
``--kill-on-invalid-dep=yes`` (a failed shard cancels the merge instead of leaving it pending forever).

The array has the CTV script's survival lines (``--requeue``, append-mode logs, the ``--signal=B:USR1``
warning: ``predict`` stops after its current batch, flushes its parts and exits 75, and the task is
requeued). Every value is
checked and quoted by ``agrieval.baselines.sbatch``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agrieval.baselines import sbatch
from agrieval.scoring.text.literals import shell_word

TILES = "tiles.parquet"
SUBMISSION = "submission.csv"


@dataclass(frozen=True)
class ShardJob:
    images: Path          # absolute
    work: Path            # absolute: shard files, merged tiles, submission
    log_dir: Path         # absolute, exists before sbatch runs
    shards: int
    predict_args: tuple[str, ...] = ()    # predict's options (model, tiling, device...), as words
    aggregate_args: tuple[str, ...] = ()  # aggregate's options (strategy, recipe, competition...), as words
    time: str = "04:00:00"
    signal_lead: int = 300
    cpus: int = 4
    mem: str = "16G"
    gpus: int = 0
    partition: str | None = None
    account: str | None = None
    extra: tuple[str, ...] = field(default_factory=tuple)
    setup: str | None = None
    job_name: str = "plantclef"

    def check(self) -> None:
        """``sbatch.DirectiveError`` for a value that cannot go into the scripts."""
        if self.shards < 1:
            raise sbatch.DirectiveError(f"--shards must be >= 1, got {self.shards}")
        seconds = sbatch.time_seconds(self.time)
        if not 0 < self.signal_lead < seconds:
            raise sbatch.DirectiveError(f"--signal-lead {self.signal_lead} s must be above 0 and below --time "
                                        f"{self.time} ({seconds} s)")
        if self.cpus < 1 or self.gpus < 0:
            raise sbatch.DirectiveError("--cpus-per-task must be >= 1 and --gpus-per-task >= 0")
        sbatch.check_mem(self.mem)
        sbatch.check_name(self.job_name, "job-name")
        if self.partition:
            sbatch.check_name(self.partition, "partition", several=True)
        if self.account:
            sbatch.check_name(self.account, "account")
        for e in self.extra:
            sbatch.parse_extra(e)
        if "%" in str(self.log_dir) or "\\" in str(self.log_dir):
            raise sbatch.DirectiveError(f"{self.log_dir}: the log folder's path holds '%' or a backslash, which "
                                        "sbatch reads as a file-name pattern; write the scripts into another folder")

    def shard_file(self, i: int) -> Path:
        return self.work / f"tiles.shard-{i}-of-{self.shards}.parquet"


def _head(job: ShardJob, name: str, log: str, *, array: bool) -> list[str]:
    d = sbatch.directive
    lines = ["#!/bin/bash", d("job-name", name)]
    if array:
        lines.append(d("array", f"0-{job.shards - 1}"))
    if job.gpus and array:
        lines.append(d("gres", f"gpu:{job.gpus}"))
    lines += [d("cpus-per-task", job.cpus if array else 1), d("mem", job.mem), d("time", job.time),
              d("output", str(job.log_dir / log)), d("open-mode", "append"), d("requeue")]
    if array:
        lines.append(d("signal", f"B:USR1@{job.signal_lead}"))
    else:
        lines.append(d("kill-on-invalid-dep", "yes"))
    if job.partition:
        lines.append(d("partition", job.partition))
    if job.account:
        lines.append(d("account", job.account))
    lines += [d(*sbatch.parse_extra(e)) for e in job.extra]
    return lines


def shard_script(job: ShardJob) -> str:
    job.check()
    q = shell_word
    lines = _head(job, job.job_name, "%x-%a.out", array=True)
    lines += ["", "# Written by 'agrieval baselines plantclef slurm': task I predicts shard I of "
              f"{job.shards}; the merge job joins them.", "set -euo pipefail", *sbatch.requeue_trap(),
              sbatch.attempt_header()]
    if job.setup:
        lines.append(job.setup)  # the user's own shell line, run as written
    lines += ["shard_file=" + q(str(job.work)) + '/tiles.shard-"$SLURM_ARRAY_TASK_ID"-of-' + f"{job.shards}.parquet",
              'if [ -f "$shard_file" ]; then',
              f'  echo "shard $SLURM_ARRAY_TASK_ID/{job.shards}: already written ($shard_file); nothing to do"',
              "  exit 0", "fi"]
    words = ["agrieval", "baselines", "plantclef", "predict", str(job.images), *job.predict_args,
             "--save-tile-scores", str(job.work / TILES), "--out", str(job.work / SUBMISSION), "--resume",
             "--quiet"]
    command = " ".join(q(w) for w in words) + f' --shard "$SLURM_ARRAY_TASK_ID/{job.shards}"'
    lines += sbatch.run_with_requeue(command)
    return "\n".join(lines) + "\n"


def merge_script(job: ShardJob) -> str:
    job.check()
    q = shell_word
    lines = _head(job, f"{job.job_name}-merge", "%x.out", array=False)
    lines += ["", "# Written by 'agrieval baselines plantclef slurm': runs after every shard ended well "
              "(afterok), joins them, aggregates, validates.", "set -euo pipefail", sbatch.attempt_header()]
    if job.setup:
        lines.append(job.setup)
    shards = [str(job.shard_file(i)) for i in range(job.shards)]
    lines.append(" ".join(q(w) for w in ["agrieval", "baselines", "plantclef", "merge-tiles", *shards, "--out",
                                         str(job.work / TILES), "--overwrite"]))
    lines.append(" ".join(q(w) for w in ["agrieval", "baselines", "plantclef", "aggregate", str(job.work / TILES),
                                         *job.aggregate_args, "--out", str(job.work / SUBMISSION),
                                         "--overwrite"]))
    return "\n".join(lines) + "\n"


def submit_script(array_script: Path, merge: Path) -> str:
    q = shell_word
    return "\n".join([
        "#!/bin/bash",
        "# Written by 'agrieval baselines plantclef slurm': submits the shard array, then the merge job that",
        "# waits for every shard to end well (a failed shard cancels it: --kill-on-invalid-dep=yes).",
        "set -euo pipefail",
        f"array=$(sbatch --parsable {q(str(array_script))})",
        'array=${array%%;*}',
        f"merge=$(sbatch --parsable --dependency=afterok:$array {q(str(merge))})",
        'echo "submitted shards: job $array; merge: job ${merge%%;*} (after the shards)"',
        "",
    ])


__all__ = ["SUBMISSION", "TILES", "ShardJob", "merge_script", "shard_script", "submit_script"]
