"""Write the PlantCLEF SLURM jobs: an array of ``predict --shard I/N`` tasks and a dependent merge job.

``shard_script``: task I predicts images I, I+N, ... (``agrieval.baselines.plantclef._shards``) into
``WORK/tiles.shard-I-of-N.parquet`` with ``--resume``: a requeued task continues from the tile parts it flushed,
when its saved settings match (``resume_mismatch`` otherwise, never a silent mix), and a task whose shard file is
already written is done. ``merge_script``: ``merge-tiles`` joins the N shard files into ``WORK/tiles.parquet``
(the file one process writes, byte for byte) and ``aggregate`` turns it into ``WORK/submission.csv``, validated
before it is written. ``submit_script`` submits both, the merge with ``--dependency=afterok:<array>`` and
``--kill-on-invalid-dep=yes`` (a failed shard cancels the merge instead of leaving it pending forever).

The array has the CTV script's survival lines (``--requeue``, append-mode logs, the ``--signal=B:USR1``
warning: ``predict`` stops after its current batch, flushes its parts and exits 75, and the task is
requeued). Every value is
checked and quoted by ``agrieval.baselines._sbatch``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agrieval.baselines import _sbatch as sbatch

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


def _directives(job: ShardJob, name: str, log: str, *, array: bool) -> list:
    """The (option, value) pairs of a script's ``#SBATCH`` lines, checked (``sbatch.checked``)."""
    out = [("job-name", name)]
    if array:
        out.append(("array", f"0-{job.shards - 1}"))
    if job.gpus and array:
        out.append(("gres", f"gpu:{job.gpus}"))
    out += [("cpus-per-task", job.cpus if array else 1), ("mem", job.mem), ("time", job.time),
            ("output", str(job.log_dir / log)), ("open-mode", "append"), ("requeue", None)]
    out.append(("signal", f"B:USR1@{job.signal_lead}") if array else ("kill-on-invalid-dep", "yes"))
    if job.partition:
        out.append(("partition", job.partition))
    if job.account:
        out.append(("account", job.account))
    out += [sbatch.parse_extra(e) for e in job.extra]
    return sbatch.checked(out)


def shard_script(job: ShardJob) -> str:
    job.check()
    words = ["agrieval", "baselines", "plantclef", "predict", str(job.images), *job.predict_args,
             "--save-tile-scores", str(job.work / TILES), "--out", str(job.work / SUBMISSION), "--resume",
             "--quiet"]
    command = sbatch.script("plantclef_predict.sh", words=words, shards=job.shards)
    return sbatch.script("plantclef_shards.sh", directives=_directives(job, job.job_name, "%x-%a.out", array=True),
                         shards=job.shards, requeue_trap=sbatch.requeue_trap(), attempt_header=sbatch.attempt_header(),
                         setup=sbatch.setup_line(job.setup), work=str(job.work), run=sbatch.run_with_requeue(command))


def merge_script(job: ShardJob) -> str:
    job.check()
    shards = [str(job.shard_file(i)) for i in range(job.shards)]
    return sbatch.script(
        "plantclef_merge.sh", directives=_directives(job, f"{job.job_name}-merge", "%x.out", array=False),
        attempt_header=sbatch.attempt_header(), setup=sbatch.setup_line(job.setup),
        merge=["agrieval", "baselines", "plantclef", "merge-tiles", *shards, "--out", str(job.work / TILES),
               "--overwrite"],
        aggregate=["agrieval", "baselines", "plantclef", "aggregate", str(job.work / TILES), *job.aggregate_args,
                   "--out", str(job.work / SUBMISSION), "--overwrite"])


def submit_script(array_script: Path, merge: Path) -> str:
    return sbatch.script("plantclef_submit.sh", array_script=str(array_script), merge_script=str(merge))


__all__ = ["SUBMISSION", "TILES", "ShardJob", "merge_script", "shard_script", "submit_script"]
