"""The job scripts both baselines write, byte for byte (``tests/fixtures/golden/sbatch_scripts.json``): the CTV array
on CPUs, on GPUs with several ranks and every optional line, and with replicates; the PlantCLEF shard array, its
merge job and the script that submits both. Written when the scripts moved from lines built in Python into
package-data templates (baselines/templates/), to show that the move changed no byte. After a deliberate change,
rewrite the golden file with ``AGRIEVAL_REGEN_GOLDEN=1`` and read its diff."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agrieval.baselines.ctv.slurm import sbatch_script, task_resources
from agrieval.baselines.ctv.sweep import PlannedRun
from agrieval.baselines.plantclef._slurm import ShardJob, merge_script, shard_script, submit_script

GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden" / "sbatch_scripts.json"
RUNS = [PlannedRun("toto", "resnet50", "fold_0", Path("/runs/toto/resnet50/fold_0"), "pending"),
        PlannedRun("loto", "vit_b16", "team 'b'", Path("/runs/loto/vit_b16/team b"), "pending")]
SEEDED = [PlannedRun("toto", "resnet50", "fold_0", Path("/runs/seed-1/toto"), "pending", seed=1),
          PlannedRun("toto", "resnet50", "fold_0", Path("/runs/seed-2/toto"), "pending", seed=2)]
COMMON = ["--splits", "/data/agri splits", "--runs-dir", "/runs", "--epochs", "3"]


def scripts() -> dict:
    cpu = task_resources(0, cpus=4, mem=None, workers=None, preset_workers=2)
    gpu = task_resources(2, cpus=16, mem="96G", workers=3, preset_workers=8)
    ranks = task_resources(0, cpus=None, mem=None, workers=None, preset_workers=1, cpu_ranks=2)
    job = ShardJob(images=Path("/data/plantclef/images"), work=Path("/work/plant clef"), log_dir=Path("/logs"),
                   shards=3, predict_args=("--model", "/models/vit.safetensors", "--device", "cuda"),
                   aggregate_args=("--competition", "plantclef2025"), gpus=1, partition="gpu,gpu2", account="lab",
                   extra=("--qos=long", "--exclusive"), setup="source /opt/venv/bin/activate")
    plain = ShardJob(images=Path("/data/img"), work=Path("/work"), log_dir=Path("/logs"), shards=1)
    return {
        "ctv-cpu": sbatch_script(RUNS, common_args=COMMON, res=cpu),
        "ctv-gpu-every-option": sbatch_script(RUNS, common_args=COMMON, res=gpu, job_name="ctv-study",
                                              partition="gpu", account="lab", time="1-12:00", signal_lead=900,
                                              setup="source .venv/bin/activate", log_dir="/logs/ctv",
                                              max_parallel=4, extra=("--mail-type=END,FAIL", "--exclusive"),
                                              pass_threads=False),
        "ctv-cpu-ranks-seeds": sbatch_script(SEEDED, common_args=COMMON, res=ranks, runs_root="/runs root"),
        "plantclef-shards": shard_script(job),
        "plantclef-merge": merge_script(job),
        "plantclef-shards-plain": shard_script(plain),
        "plantclef-merge-plain": merge_script(plain),
        "plantclef-submit": submit_script(Path("/jobs/shards.sbatch"), Path("/jobs/merge job.sbatch")),
    }


def test_every_job_script_is_the_golden_one():
    made = scripts()
    if os.environ.get("AGRIEVAL_REGEN_GOLDEN"):
        GOLDEN.write_text(json.dumps(made, indent=1, sort_keys=True) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert sorted(made) == sorted(golden)
    for name in golden:
        assert made[name].splitlines() == golden[name].splitlines(), name
        assert made[name] == golden[name], name
