"""``agrieval baselines ctv``: plan | run | run-all | slurm | demo.

Every training setting is a flag; a flag left out takes the preset's value
(``--preset paper`` by default, see ``agrieval.baselines.ctv.config.PRESETS``). Under
``torchrun --nproc_per_node=N -m agrieval.baselines.ctv.cli run ...`` one run trains
with DistributedDataParallel.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import click

from agrieval.baselines.ctv.errors import CTVError
from agrieval.scoring.cli.group import ContractGroup, document

# (flag, config field, click kwargs). Defaults are None: "take the preset's value".
_TRAIN_OPTIONS: list[tuple[str, str, dict]] = [
    ("--head", "head", dict(type=click.Choice(["linear", "mlp"]), help="linear: dropout+linear; mlp: the public script's 512-unit head.")),
    ("--head-dropout", "head_dropout", dict(type=float, help="Dropout before the head's linear layer(s) [paper: 0.3].")),
    ("--head-hidden", "head_hidden", dict(type=int, help="Hidden units of the mlp head [512].")),
    ("--pretrained/--no-pretrained", "pretrained", dict(default=None, help="Start from ImageNet weights (a local file) or random init.")),
    ("--weights", "weights", dict(type=click.Path(dir_okay=False), help="Local .safetensors/.pth weights file for the arch.")),
    ("--allow-download", "allow_download", dict(is_flag=True, default=None, help="Let timm fetch weights from the hub.")),
    ("--epochs", "epochs", dict(type=int, help="Training epochs [20].")),
    ("--batch-size", "batch_size", dict(type=int, help="Global batch size, split over DDP ranks [32].")),
    ("--lr", "lr", dict(type=float, help="AdamW learning rate [1e-4].")),
    ("--weight-decay", "weight_decay", dict(type=float, help="AdamW weight decay [1e-4].")),
    ("--min-lr", "min_lr", dict(type=float, help="Cosine annealing floor, stepped per epoch [1e-6].")),
    ("--grad-clip", "grad_clip", dict(type=float, help="Max gradient L2 norm; 0 = off [1.0].")),
    ("--patience", "patience", dict(type=int, help="Stop after this many epochs without a better val accuracy; 0 = never [paper: 0; official: 30, the script's].")),
    ("--label-smoothing", "label_smoothing", dict(type=float, help="Cross-entropy label smoothing [0].")),
    ("--img-size", "img_size", dict(type=int, help="Input size [224].")),
    ("--resize-size", "resize_size", dict(type=int, help="Resize before the train crop and the eval centre crop [256].")),
    ("--resize-square/--no-resize-square", "resize_square", dict(default=None, help="Resize to (size, size) as the script, or (off) the shorter side for eval and nothing before the train crop [on].")),
    ("--rrc-scale", "rrc_scale", dict(type=float, nargs=2, help="RandomResizedCrop area range [0.8 1.0].")),
    ("--hflip", "hflip", dict(type=float, help="Horizontal flip probability [0.5].")),
    ("--vflip", "vflip", dict(type=float, help="Vertical flip probability [0.3].")),
    ("--rotation", "rotation", dict(type=float, help="Max rotation in degrees [30].")),
    ("--color-jitter", "color_jitter", dict(type=float, nargs=4, help="Brightness contrast saturation hue [0.2 0.2 0.3 0.1].")),
    ("--random-erasing", "random_erasing", dict(type=float, help="Random erasing probability [0.2].")),
    ("--erasing-scale", "erasing_scale", dict(type=float, nargs=2, help="Random erasing area range, fraction of the image [0.02 0.15].")),
    ("--erasing-ratio", "erasing_ratio", dict(type=float, nargs=2, help="Random erasing aspect ratio range [0.3 3.3].")),
    ("--drop-last/--no-drop-last", "drop_last", dict(default=None, help="Drop the last incomplete train batch, as the script [on].")),
    ("--mean", "mean", dict(type=float, nargs=3, help="Normalisation mean [ImageNet].")),
    ("--std", "std", dict(type=float, nargs=3, help="Normalisation std [ImageNet].")),
    ("--seed", "seed", dict(type=int, help="Base seed; each fold's seed derives from it and the fold name [42].")),
    ("--deterministic", "deterministic", dict(is_flag=True, default=None, help="Deterministic kernels: two CPU runs are bit-identical.")),
    ("--eval-test-every-epoch/--no-eval-test-every-epoch", "eval_test_every_epoch", dict(default=None, help="Record test accuracy per epoch, never used for selection (learning curves) [paper, official: on].")),
    ("--predict-train/--no-predict-train", "predict_train", dict(default=None, help="Write train-split predictions after training (train accuracy) [on].")),
    ("--device", "device", dict(help="auto, cpu, cuda [auto].")),
    ("--amp", "amp", dict(type=click.Choice(["auto", "bf16", "fp16", "script", "none"]), help="Autocast: bf16; fp16 with a GradScaler; script: fp16 + GradScaler on CUDA of compute capability >= 7 [paper auto: bf16 on CUDA; official: script].")),
    ("--channels-last", "channels_last", dict(type=click.Choice(["auto", "on", "off"]), help="[auto: on CUDA].")),
    ("--compile/--no-compile", "compile", dict(default=None, help="torch.compile the model [paper: off; official: on, as the script].")),
    ("--transforms", "transforms", dict(type=click.Choice(["kit", "script"]), help="kit: workers decode and resize to uint8, the augmentation runs batched on the device (agrieval.baselines.ctv.augment); script: the script's v1 ops on PIL images in the workers, erasing after Normalize [paper: kit; official: script].")),
    ("--unreadable", "unreadable", dict(type=click.Choice(["error", "black"]), help="An undecodable image: stop, or a black image with one warning per file [paper: error; official: black].")),
    ("--selection", "selection", dict(type=click.Choice(["kit", "script"]), help="Best epoch: kit: highest val accuracy; script: must beat 0 %, else the last epoch [paper: kit; official: script].")),
    ("--seed-stream", "seed_stream", dict(type=click.Choice(["fold", "sweep"]), help="fold: each fold seeded from its name; sweep: the script's one stream, folds in sorted order [paper: fold; official: sweep].")),
    ("--num-workers", "num_workers", dict(type=int, help="DataLoader worker processes [0].")),
    ("--threads", "threads", dict(type=int, help="torch CPU threads; 0 = default [0].")),
    ("--pin-memory", "pin_memory", dict(type=click.Choice(["auto", "on", "off"]), help="[auto: on CUDA].")),
    ("--persistent-workers/--no-persistent-workers", "persistent_workers", dict(default=None, help="[on].")),
    ("--cache", "cache", dict(type=click.Path(file_okay=False), help="Decode images once into a uint8 memmap in DIR.")),
    ("--cache-size", "cache_size", dict(type=int, help="Side of the cached images [336].")),
    ("--keep-last", "keep_last", dict(is_flag=True, default=None, help="Keep last.pt after the run finishes.")),
    ("--dist-timeout", "dist_timeout", dict(type=float, help="Under torchrun: seconds a collective (barrier, gather, gradient all-reduce) waits for the other ranks before the run fails with collective_failed naming the rank and step [900].")),
]
_FIELDS = {name.split("/")[0].lstrip("-").replace("-", "_"): field for name, field, _ in _TRAIN_OPTIONS}


def train_options(f):
    for flag, field, kw in reversed(_TRAIN_OPTIONS):
        decl = [flag]
        kw = dict(kw)
        kw.setdefault("default", None)
        f = click.option(*decl, field, **kw)(f)
    f = click.option("--weights-dir", type=click.Path(file_okay=False),
                     help="Folder with <timm name>.safetensors files (one per arch).")(f)
    f = click.option("--data-root", type=click.Path(file_okay=False),
                     help="Override the data root recorded in folds.json.")(f)
    f = click.option("--runs-dir", type=click.Path(file_okay=False), default="runs", show_default=True,
                     help="Output: RUNS_DIR/<protocol>/<arch>/<fold>/.")(f)
    f = click.option("--splits", "splits", type=click.Path(file_okay=False), required=True,
                     help="Split folder: SPLITS/<protocol>/<fold>.csv and folds.json.")(f)
    f = click.option("--preset", default="paper", show_default=True, help="Named defaults: paper, official, demo.")(f)
    return f


def _overrides(params: dict) -> dict:
    return {field: params[field] for _, field, _ in _TRAIN_OPTIONS if params.get(field) is not None}


def _as_flags(params: dict) -> list[str]:
    """The given training flags, back as command-line words (for the sbatch script)."""
    words: list[str] = []
    for flag, field, kw in _TRAIN_OPTIONS:
        v = params.get(field)
        if v is None:
            continue
        on, _, off = flag.partition("/")
        if off:
            words.append(on if v else off)
        elif kw.get("is_flag"):
            if v:
                words.append(on)
        elif isinstance(v, (tuple, list)):
            words += [on, *map(str, v)]
        else:
            words += [on, str(v)]
    return words


def _fail(exc: CTVError):
    click.echo(exc.render(), err=True)
    raise SystemExit(exc.exit_code)


def _split_list(value: str | None, default: tuple[str, ...]) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else list(default)


@click.group(cls=ContractGroup, context_settings={"help_option_names": ["-h", "--help"]})
def ctv() -> None:
    """Cross-Team Validation baselines: DenseNet121 / Swin trained per fold of TOTO and LOTO.

    \b
    agrieval baselines ctv plan    --splits SPLITS              list the runs of a sweep
    agrieval baselines ctv run     --splits SPLITS --protocol toto --arch densenet121 --fold TEAM
    agrieval baselines ctv run-all --splits SPLITS               the sweep, in order, with resume
    agrieval baselines ctv slurm   --splits SPLITS -o ctv.sbatch one SLURM array task per run
    agrieval baselines ctv status  ctv.sbatch --job JOBID       each task's run and scheduler state
    agrieval baselines ctv demo                                 tiny synthetic sweep + report (CPU)
    agrieval baselines ctv presets --markdown                   what paper and official set differently
    agrieval baselines ctv loader-check --splits SPLITS --protocol toto --fold TEAM   CPUs per GPU
    """


def _sweep_options(f):
    f = click.option("--protocols", default="toto,loto", show_default=True, help="Comma-separated.")(f)
    f = click.option("--archs", default=None, help="Comma-separated arch keys [the preset's archs].")(f)
    f = click.option("--folds", default=None, help="Comma-separated fold names [all].")(f)
    return f


def _planned(splits, runs_dir, preset, protocols, archs, folds):
    from agrieval.baselines.ctv.config import preset_archs
    from agrieval.baselines.ctv.sweep import plan

    return plan(splits, runs_dir, _split_list(protocols, ()), _split_list(archs, preset_archs(preset)),
                _split_list(folds, ()) or None)


@ctv.command("plan")
@click.option("--splits", type=click.Path(file_okay=False), required=True, help='Folder of fold manifests: SPLITS/<protocol>/<fold>.csv (from `agrieval data splits`).')
@click.option("--runs-dir", type=click.Path(file_okay=False), default="runs", show_default=True, help='Folder of run outputs: RUNS_DIR/<protocol>/<arch>/<fold>/.')
@click.option("--preset", default="paper", show_default=True, help='Named defaults: paper, official, demo.')
@_sweep_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def plan_cmd(splits, runs_dir, preset, protocols, archs, folds, as_json):
    """List the runs of a sweep (protocols x archs x folds) and their state."""
    try:
        runs = _planned(splits, runs_dir, preset, protocols, archs, folds)
    except CTVError as exc:
        _fail(exc)
    counts = {s: sum(r.status == s for r in runs) for s in ("done", "partial", "pending")}
    if as_json:
        click.echo(json.dumps({"runs": [r.as_dict() for r in runs], "counts": counts}, indent=2))
        return
    click.echo(f"{'protocol':8}  {'arch':14}  {'fold':20}  status")
    for r in runs:
        click.echo(f"{r.protocol:8}  {r.arch:14}  {r.fold:20}  {r.status}")
    click.echo(f"{len(runs)} runs: {counts['done']} done, {counts['partial']} partial, {counts['pending']} pending")


@ctv.command("run")
@train_options
@click.option("--protocol", type=click.Choice(["toto", "loto"]), required=True, help='TOTO (train on one team) or LOTO (leave one team out).')
@click.option("--arch", required=True, help="Arch key (densenet121, swin_tiny, swin_base, tiny_cnn...) or timm name.")
@click.option("--fold", required=True, help="Fold name (the manifest's stem, e.g. the team).")
def run_cmd(preset, splits, runs_dir, data_root, weights_dir, protocol, arch, fold, **params):
    """Train one run (skipped if finished, resumed if interrupted)."""
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.runner import EXIT_REQUEUE, StopRequested, run_fold

    cfg = None
    try:
        cfg = make_config(preset, protocol=protocol, arch=arch, fold=fold, **_overrides(params))
        run_fold(cfg, splits, runs_dir, data_root=data_root, weights_dir=weights_dir, log=_log)
        if os.environ.get("RANK", "0") == "0":
            from agrieval.baselines.ctv.runner import run_dir
            from agrieval.baselines.ctv.sweep import FAILED

            (run_dir(runs_dir, cfg) / FAILED).unlink(missing_ok=True)  # our record of an earlier failure
    except CTVError as exc:
        if cfg is not None and os.environ.get("RANK", "0") == "0":
            _record_failure(cfg, runs_dir, exc)  # failed.json, as run-all writes: `ctv status` shows the code
        _fail(exc)
    except StopRequested as exc:  # a scheduler's warning: the job script requeues this run, which resumes
        _log(f"stopped: {exc}")
        raise SystemExit(EXIT_REQUEUE) from None


def _record_failure(cfg, runs_dir, exc: CTVError) -> None:
    from agrieval.baselines.ctv.runner import run_dir
    from agrieval.baselines.ctv.sweep import PlannedRun, _failed

    try:
        path = run_dir(runs_dir, cfg)
    except CTVError:
        return  # an arch that does not resolve has no run folder
    _failed(PlannedRun(cfg.protocol, path.parent.name, cfg.fold, path, "failed"), exc.code, exc.message)


@ctv.command("run-all")
@train_options
@_sweep_options
@click.option("--keep-going/--stop-on-error", default=None, help="Report a failed run and go on with the next (exit 1 at the end) [paper: stop; official: keep going, as the script].")
def run_all_cmd(preset, splits, runs_dir, data_root, weights_dir, protocols, archs, folds, keep_going, **params):
    """Run a sweep in order; finished runs are skipped, partial ones resume."""
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.sweep import run_all

    try:
        runs = _planned(splits, runs_dir, preset, protocols, archs, folds)
        base = make_config(preset, fold="-", **_overrides(params))
        if keep_going is None:
            keep_going = preset == "official"
        records = run_all(base, runs, splits, runs_dir, keep_going=keep_going, data_root=data_root,
                          weights_dir=weights_dir, log=_log)
    except CTVError as exc:
        _fail(exc)
    failed = [r for r in records if r.get("status") == "failed"]
    _log(f"{len(records)} runs: {len(records) - len(failed)} finished, {len(failed)} failed")
    if failed:
        raise SystemExit(1)


@ctv.command("slurm")
@train_options
@_sweep_options
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, help="sbatch script to write (runs.tsv and slurm-logs/ go beside it).")
@click.option("--partition", help="Slurm partition(s) (#SBATCH --partition); default: the cluster's.")
@click.option("--account", help='Slurm account to charge (#SBATCH --account).')
@click.option("--time", "time_limit", default="04:00:00", show_default=True, help='Wall-clock limit of one attempt of a task (#SBATCH --time); a run that needs longer checkpoints and requeues itself.')
@click.option("--signal-lead", type=int, default=600, show_default=True, help="Seconds before --time at which SLURM warns the task (#SBATCH --signal=B:USR1@N): more than one epoch's time, so the run reaches a checkpoint.")
@click.option("--gpus-per-task", type=int, default=None, help="GPUs per task; 0: a CPU partition (no --gres line); >1 launches torchrun, one rank per GPU [1; 0 with --device cpu].")
@click.option("--ranks-per-task", type=int, default=None, help="CPU tasks only: DDP ranks per task, under torchrun (no GPU asked for) [1].")
@click.option("--cpus-per-task", type=int, default=None, help="CPU cores per task [ranks x (--num-workers + 1)]; given alone, each rank gets the preset's loader workers and the rest as torch threads.")
@click.option("--mem", default=None, help="Memory per task (#SBATCH --mem) [4G per CPU + 8G per GPU].")
@click.option("--setup", help="Shell line run before training, e.g. 'source .venv/bin/activate'.")
@click.option("--max-parallel", type=int, help="At most this many array tasks at once.")
@click.option("--sbatch-extra", multiple=True, help="One more #SBATCH line, --name=value or --name (repeatable), e.g. --mail-type=END, --qos=long.")
@click.option("--all-runs", is_flag=True, help="Include finished runs (they are skipped at run time anyway).")
@click.option("--overwrite", is_flag=True, help="Replace an existing --output script (and its runs.tsv).")
def slurm_cmd(preset, splits, runs_dir, data_root, weights_dir, protocols, archs, folds, output, partition,
              account, time_limit, signal_lead, gpus_per_task, ranks_per_task, cpus_per_task, mem, setup,
              max_parallel, sbatch_extra, all_runs, overwrite, **params):
    """Write an sbatch array script, one task per run of the sweep, and runs.tsv beside it."""
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.slurm import RUNS_TSV, preflight, runs_table, sbatch_script, task_resources
    from agrieval.scoring.writing.policy import OutputPlan, OutputRefused
    from agrieval.scoring.runtime.atomic import write_text

    table = Path(output).resolve().parent / RUNS_TSV
    try:
        OutputPlan(overwrite=overwrite).claim(output, what="sbatch script")
        OutputPlan(overwrite=overwrite).claim(str(table), what="run table")
    except OutputRefused as exc:
        click.echo(exc.render(), err=True)
        raise SystemExit(2) from None

    try:
        cfg = make_config(preset, fold="-", **_overrides(params))  # reject bad values now, not on the cluster
        if cfg.seed_stream == "sweep":
            raise CTVError("bad_option", "--seed-stream sweep (the official preset's) runs the folds one after "
                           "another in one random stream, which an array of parallel tasks cannot; use run-all, or "
                           "pass --seed-stream fold")
        runs = _planned(splits, runs_dir, preset, protocols, archs, folds)
        on_cpu = cfg.device == "cpu" or gpus_per_task == 0 or ranks_per_task is not None
        if ranks_per_task is not None and gpus_per_task:
            raise CTVError("bad_option", "--ranks-per-task is for CPU tasks; with GPUs there is one rank per GPU "
                           "(--gpus-per-task)")
        gpus_defaulted = gpus_per_task is None
        if on_cpu:
            if cfg.device not in ("cpu", "auto"):
                raise CTVError("bad_option", f"--device {cfg.device} on a task with no GPU; pass --device cpu")
            # CPU ranks: `--gpus-per-task 2 --device cpu` (the old spelling) means 2 ranks, no GPU asked for
            cpu_ranks = ranks_per_task or max(1, gpus_per_task or 0)
            gpus_per_task = 0
        else:
            cpu_ranks = None
            if gpus_defaulted:
                gpus_per_task = 1
        explicit_threads = params.get("threads")
        res = task_resources(gpus_per_task, cpus=cpus_per_task, mem=mem, workers=params.pop("num_workers", None),
                             preset_workers=cfg.num_workers, cpu_ranks=cpu_ranks)
        if res.gpus == 0 and params.get("device") is None:
            params["device"] = "cpu"
        if not all_runs:
            runs = [r for r in runs if r.status != "done"]
        if not runs:
            click.echo("nothing to do: every run of the sweep is finished", err=True)
            return
        preflight(cfg, runs, splits, runs_dir, weights_dir=weights_dir, data_root=data_root)
        common = ["--preset", preset, "--splits", str(Path(splits).resolve()), "--runs-dir",
                  str(Path(runs_dir).resolve())]
        if data_root:
            common += ["--data-root", str(Path(data_root).resolve())]
        if weights_dir:
            common += ["--weights-dir", str(Path(weights_dir).resolve())]
        # Slurm opens --output before the job starts: the log folder must exist at submission, so it is made
        # now, next to the script, and named by its absolute path (sbatch may be run from another folder).
        log_dir = Path(output).resolve().parent / "slurm-logs"
        text = sbatch_script(runs, common_args=common + _as_flags(params), res=res, partition=partition,
                             account=account, time=time_limit, signal_lead=signal_lead, setup=setup,
                             max_parallel=max_parallel, log_dir=str(log_dir), extra=tuple(sbatch_extra),
                             pass_threads=explicit_threads is None)
    except CTVError as exc:
        _fail(exc)
    log_dir.mkdir(parents=True, exist_ok=True)
    write_text(table, runs_table(runs, log_dir))
    write_text(output, text)
    click.echo(f"wrote {output}: {len(runs)} array tasks of {res.gpus} GPU(s), {res.cpus} CPUs, {res.mem} "
               f"({res.ranks} process(es) x ({res.workers} loader workers + {res.threads} threads)), logs in "
               f"{log_dir}/, index -> run in {table}; submit with: sbatch {shlex.quote(str(output))}")
    if gpus_defaulted and res.gpus:
        click.echo("note: 1 GPU per task by default; a CPU partition: --gpus-per-task 0 (or --device cpu)", err=True)


@ctv.command("status")
@click.argument("script", type=click.Path(dir_okay=False, exists=True))
@click.option("--job", "job_id", help="The array's job id (sbatch printed it) to join the scheduler's states.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def status_cmd(script, job_id, as_json):
    """Each task of a written array (its runs.tsv): the run's state (done/partial/pending/failed) and, with
    --job, the scheduler's (sacct where accounting runs, else squeue)."""
    from agrieval.baselines.ctv.slurm_status import format_status, task_status

    try:
        rows = task_status(script, job_id)
    except CTVError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps({"tasks": rows}, indent=2, sort_keys=True))
    else:
        click.echo(format_status(rows), nl=False)


@ctv.command("loader-check")
@click.option("--splits", type=click.Path(file_okay=False), required=True, help="Split folder: SPLITS/<protocol>/<fold>.csv and folds.json.")
@click.option("--protocol", type=click.Choice(["toto", "loto"]), required=True, help="TOTO or LOTO.")
@click.option("--fold", required=True, help="Fold whose train images are timed.")
@click.option("--preset", default="paper", show_default=True, help="Named defaults: paper, official, demo (its pipeline and sizes).")
@click.option("--data-root", type=click.Path(file_okay=False), help="Override the data root recorded in folds.json.")
@click.option("--threads", type=int, default=1, show_default=True, help="torch CPU threads while timing (a loader worker runs 1).")
@click.option("--target", type=float, default=2500.0, show_default=True, help="Training images/s to feed (DenseNet121 on one H200: 2,500).")
@click.option("--limit", type=int, help="Time only the first N train images.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def loader_check_cmd(splits, protocol, fold, preset, data_root, threads, target, limit, as_json):
    """Time the fold's train images through the preset's pipeline: per-image CPU time and the loader workers
    needed for --target images/s, with the whole pipeline on the CPU and with the augmentation on a device."""
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.loader_check import format_report, loader_check

    try:
        cfg = make_config(preset, protocol=protocol, fold=fold)
        report = loader_check(cfg, splits, data_root=data_root, threads=threads, target=target, limit=limit)
    except CTVError as exc:
        _fail(exc)
    click.echo(json.dumps(report, indent=2) if as_json else format_report(report), nl=as_json)


@ctv.command("presets")
@click.option("--markdown", is_flag=True, help="The README's table.")
def presets_cmd(markdown):
    """What --preset paper and --preset official set differently, and why."""
    from agrieval.baselines.ctv.preset_table import preset_table

    click.echo(preset_table(markdown=markdown), nl=False)


@ctv.command("demo")
@click.option("--out", type=click.Path(file_okay=False), default="ctv-demo", show_default=True, help='Folder for the pool, splits, runs and report.')
@click.option("--teams", type=int, default=4, show_default=True, help='Teams in the synthetic pool.')
@click.option("--per-class", type=int, default=6, show_default=True, help='Photos per team and class.')
@click.option("--epochs", type=int, default=2, show_default=True, help='Training epochs per fold.')
@click.option("--arch", default="tiny_cnn", show_default=True, help='Architecture of every fold (tiny_cnn runs in seconds on a CPU).')
@click.option("--threads", type=int, default=1, show_default=True, help="torch CPU threads (0 = torch default).")
def demo_cmd(out, teams, per_class, epochs, arch, threads):
    """Synthetic pool -> TOTO/LOTO splits -> tiny model per fold on CPU -> 'agrieval ctv report'."""
    from agrieval.baselines.ctv.demo import run_demo

    try:
        code = run_demo(Path(out), teams=teams, per_class=per_class, epochs=epochs, arch=arch, threads=threads,
                        log=_log)
    except CTVError as exc:
        _fail(exc)
    raise SystemExit(code)


def _log(msg: str) -> None:
    if os.environ.get("RANK", "0") != "0":
        return  # under torchrun rank 0 speaks for all (errors still reach stderr from every rank)
    click.echo(msg)
    sys.stdout.flush()  # keep the order with tqdm on stderr and with sbatch logs


if __name__ == "__main__":  # torchrun --nproc_per_node=N -m agrieval.baselines.ctv.cli run ...
    ctv()


document(ctv, {name: (example, "Exit codes: 0 done; 1 an input was rejected (a manifest, an image, a run folder made with other settings); 2 usage error (bad option, missing file or weights, a device that is not there); 3 host-side problem (missing 'baselines' extra, internal error).") for name, example in {
    "": "agrieval baselines ctv demo --out ctv-demo",
    "plan": "agrieval baselines ctv plan --splits splits --runs-dir runs",
    "run": "agrieval baselines ctv run --splits splits --weights-dir weights --protocol toto --arch densenet121 --fold team01",
    "run-all": "agrieval baselines ctv run-all --splits splits --weights-dir weights --runs-dir runs",
    "slurm": "agrieval baselines ctv slurm --splits splits --weights-dir weights --runs-dir runs -o ctv.sbatch",
    "status": "agrieval baselines ctv status ctv.sbatch --job 1234",
    "demo": "agrieval baselines ctv demo --out ctv-demo",
    "presets": "agrieval baselines ctv presets --markdown",
    "loader-check": "agrieval baselines ctv loader-check --splits splits --protocol toto --fold team01 --json",
}.items()})
