"""``agrieval baselines ctv``: plan | run | run-all | slurm | demo.

Every training setting is a flag; a flag left out takes the preset's value
(``--preset paper`` by default, see ``agrieval.baselines.ctv.config.PRESETS``). Under
``torchrun --nproc_per_node=N -m agrieval.baselines.ctv._cli run ...`` one run trains
with DistributedDataParallel.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import click

from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.options import as_flags as _as_flags
from agrieval.baselines.ctv.options import overrides as _overrides
from agrieval.baselines.ctv.options import train_options as _run_settings
from agrieval.scoring.cli.group import ContractGroup, document
from agrieval.scoring.text.literals import shell_word
from agrieval.scoring.text.terminal import cell, one_line

# Imported inside functions, so that importing this module loads only what it needs: each command's own modules,
# loaded when that command runs, so that `agrieval baselines ctv --help` and the light commands load neither torch
# nor pandas.


def train_options(f):
    """The run settings' flags (generated from ``TrainConfig``: ``agrieval.baselines.ctv.options``) and the
    options every training command shares."""
    f = _run_settings(f)
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


RESUME_HINT = ("interrupted: every finished epoch is saved (last.pt in its run folder); rerun the same command to "
               "resume: finished runs are skipped, the interrupted one goes on from its last finished epoch")


def _interrupted():
    click.echo(RESUME_HINT, err=True)
    raise SystemExit(130)  # the shell's code for Ctrl-C (docs: exit codes)


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
    agrieval baselines ctv submit  RUNS/toto/densenet121/team01 --images TEST -o submission.csv
    agrieval baselines ctv demo                                 tiny synthetic sweep + report (CPU)
    agrieval baselines ctv presets --markdown                   what paper and official set differently
    agrieval baselines ctv loader-check --splits SPLITS --protocol toto --fold TEAM   CPUs per GPU
    """


SEEDS_HELP = ("Replicates: a count N (seeds --seed .. --seed + N - 1) or a comma list of seeds; seed S goes to "
              "RUNS_DIR/seed-S/<protocol>/<arch>/<fold>/ [none: one seed, folders directly under RUNS_DIR].")


def _seeds_option(f):
    return click.option("--seeds", "seeds", default=None, metavar="N|S1,S2,...", help=SEEDS_HELP)(f)


def _sweep_options(f):
    f = _seeds_option(f)
    f = click.option("--protocols", default="toto,loto", show_default=True, help="Comma-separated.")(f)
    f = click.option("--archs", default=None, help="Comma-separated arch keys [the preset's archs].")(f)
    f = click.option("--folds", default=None, help="Comma-separated fold names [all].")(f)
    return f


def _seed_list(seeds: str | None, preset: str, seed: int | None) -> list[int] | None:
    from agrieval.baselines.ctv._replicates import parse_seeds
    from agrieval.baselines.ctv.config import make_config

    return parse_seeds(seeds, make_config(preset).seed if seed is None else seed)


def _planned(splits, runs_dir, preset, protocols, archs, folds, seeds=None, seed=None):
    from agrieval.baselines.ctv.config import preset_archs
    from agrieval.baselines.ctv.sweep import plan

    return plan(splits, runs_dir, _split_list(protocols, ()), _split_list(archs, preset_archs(preset)),
                _split_list(folds, ()) or None, _seed_list(seeds, preset, seed))


@ctv.command("plan")
@click.option("--splits", type=click.Path(file_okay=False), required=True, help='Folder of fold manifests: SPLITS/<protocol>/<fold>.csv (from `agrieval data splits`).')
@click.option("--runs-dir", type=click.Path(file_okay=False), default="runs", show_default=True, help='Folder of run outputs: RUNS_DIR/<protocol>/<arch>/<fold>/.')
@click.option("--preset", default="paper", show_default=True, help='Named defaults: paper, official, demo.')
@_sweep_options
@click.option("--seed", type=int, default=None, help="Base seed of --seeds N [the preset's: 42].")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def plan_cmd(splits, runs_dir, preset, protocols, archs, folds, seeds, seed, as_json):
    """List the runs of a sweep ([seeds x] protocols x archs x folds) and their state."""
    try:
        runs = _planned(splits, runs_dir, preset, protocols, archs, folds, seeds, seed)
    except CTVError as exc:
        _fail(exc)
    counts = {s: sum(r.status == s for r in runs) for s in ("done", "partial", "pending")}
    if as_json:
        click.echo(json.dumps({"runs": [r.as_dict() for r in runs], "counts": counts}, indent=2))
        return
    seeded = any(r.seed is not None for r in runs)
    click.echo(("seed  " if seeded else "") + f"{'protocol':8}  {'arch':14}  {'fold':20}  status")
    for r in runs:
        click.echo((f"{cell(r.seed, 4)}  " if seeded else "") + f"{cell(r.protocol, 8)}  {cell(r.arch, 14)}  "
                   f"{cell(r.fold, 20)}  {one_line(r.status)}")
    click.echo(f"{len(runs)} runs: {counts['done']} done, {counts['partial']} partial, {counts['pending']} pending")


@ctv.command("run")
@train_options
@click.option("--protocol", type=click.Choice(["toto", "loto"]), required=True, help='TOTO (train on one team) or LOTO (leave one team out).')
@click.option("--arch", required=True, help="Arch key (densenet121, swin_tiny, swin_base, tiny_cnn...) or timm name.")
@click.option("--fold", required=True, help="Fold name (the manifest's stem, e.g. the team).")
@_seeds_option
def run_cmd(preset, splits, runs_dir, data_root, weights_dir, protocol, arch, fold, seeds, **params):
    """Train one run (skipped if finished, resumed if interrupted); with --seeds, one per seed."""
    from agrieval.baselines.ctv._replicates import parse_seeds, seed_root
    from agrieval.baselines.ctv._run_folders import run_dir
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.runner import EXIT_REQUEUE, StopRequested, run_fold
    from agrieval.baselines.ctv.sweep import FAILED

    cfg = failure_at = None
    try:
        cfg = make_config(preset, protocol=protocol, arch=arch, fold=fold, **_overrides(params))
        replicates = parse_seeds(seeds, cfg.seed)
        for seed in replicates or [None]:
            if seed is None:
                one, root = cfg, runs_dir
            else:
                _log(f"seed {seed}")
                one, root = dataclasses.replace(cfg, seed=seed), seed_root(runs_dir, seed)
            failure_at = (one, root)
            run_fold(one, splits, root, data_root=data_root, weights_dir=weights_dir, log=_log)
            if os.environ.get("RANK", "0") == "0":
                (run_dir(root, one) / FAILED).unlink(missing_ok=True)  # our record of an earlier failure
    except CTVError as exc:
        if failure_at is not None and os.environ.get("RANK", "0") == "0":
            _record_failure(*failure_at, exc)  # failed.json, as run-all writes: `ctv status` shows the code
        _fail(exc)
    except KeyboardInterrupt:
        _interrupted()
    except StopRequested as exc:  # a scheduler's warning: the job script requeues this run, which resumes
        _log(f"stopped: {exc}")
        raise SystemExit(EXIT_REQUEUE) from None


def _record_failure(cfg, runs_dir, exc: CTVError) -> None:
    from agrieval.baselines.ctv._run_folders import run_dir
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
def run_all_cmd(preset, splits, runs_dir, data_root, weights_dir, protocols, archs, folds, seeds, keep_going,
                **params):
    """Run a sweep in order; finished runs are skipped, partial ones resume."""
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.sweep import run_all

    try:
        runs = _planned(splits, runs_dir, preset, protocols, archs, folds, seeds, params.get("seed"))
        base = make_config(preset, fold="-", **_overrides(params))
        if keep_going is None:
            keep_going = preset == "official"
        records = run_all(base, runs, splits, runs_dir, keep_going=keep_going, data_root=data_root,
                          weights_dir=weights_dir, log=_log)
    except CTVError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        _interrupted()
    failed = [r for r in records if r.get("status") == "failed"]
    _log(f"{len(records)} runs: {len(records) - len(failed)} finished, {len(failed)} failed")
    if failed:
        _log("next: fix what failed.json says in each failed run's folder, then rerun this command (finished runs "
             "are skipped)")
        raise SystemExit(1)
    _log(f"next: agrieval ctv report {shell_word(str(runs_dir))} --out ctv-report --plots")


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
def slurm_cmd(preset, splits, runs_dir, data_root, weights_dir, protocols, archs, folds, seeds, output, partition,
              account, time_limit, signal_lead, gpus_per_task, ranks_per_task, cpus_per_task, mem, setup,
              max_parallel, sbatch_extra, all_runs, overwrite, **params):
    """Write an sbatch array script, one task per run of the sweep (of each seed), and runs.tsv beside it."""
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.slurm import RUNS_TSV, preflight, runs_table, sbatch_script, task_resources
    from agrieval.scoring.runtime.atomic import write_text
    from agrieval.scoring.writing.policy import OutputPlan, OutputRefused

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
        runs = _planned(splits, runs_dir, preset, protocols, archs, folds, seeds, params.get("seed"))
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
        seeded = any(r.seed is not None for r in runs)
        common = ["--preset", preset, "--splits", str(Path(splits).resolve())]
        if seeded:  # each task's --seed and --runs-dir RUNS_DIR/seed-S come from its line of the run list
            params.pop("seed", None)
        else:
            common += ["--runs-dir", str(Path(runs_dir).resolve())]
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
                             pass_threads=explicit_threads is None,
                             runs_root=str(Path(runs_dir).resolve()) if seeded else None)
    except CTVError as exc:
        _fail(exc)
    log_dir.mkdir(parents=True, exist_ok=True)
    write_text(table, runs_table(runs, log_dir))
    write_text(output, text)
    click.echo(f"wrote {output}: {len(runs)} array tasks of {res.gpus} GPU(s), {res.cpus} CPUs, {res.mem} "
               f"({res.ranks} process(es) x ({res.workers} loader workers + {res.threads} threads)), logs in "
               f"{log_dir}/, index -> run in {table}; submit with: sbatch {shell_word(str(output))}")
    if gpus_defaulted and res.gpus:
        click.echo("note: 1 GPU per task by default; a CPU partition: --gpus-per-task 0 (or --device cpu)", err=True)


@ctv.command("status")
@click.argument("script", type=click.Path(dir_okay=False, exists=True))
@click.option("--job", "job_id", help="The array's job id (sbatch printed it) to join the scheduler's states.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def status_cmd(script, job_id, as_json):
    """Each task of a written array (its runs.tsv): the run's state (done/partial/pending/failed) and, with
    --job, the scheduler's (sacct where accounting runs, else squeue)."""
    from agrieval.baselines.ctv._slurm_status import format_status, task_status

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
    from agrieval.baselines.ctv._loader_check import format_report, loader_check
    from agrieval.baselines.ctv.config import make_config

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
    from agrieval.baselines.ctv._preset_table import preset_table

    click.echo(preset_table(markdown=markdown), nl=False)


@ctv.command("submit")
@click.argument("run", type=click.Path(file_okay=False))
@click.option("--images", type=click.Path(file_okay=False), required=True, help="Folder of test images: every image under it, id = its path under it without the extension (e.g. team_d/406f31efaefd6435), unless --ids names them.")
@click.option("--ids", "id_file", type=click.Path(dir_okay=False), help="The competition's id list (a CSV with its id column: a sample submission, the organisers' list, a split manifest): these ids in this order, each image found by the file's 'path' column or as <id>.<extension> under --images.")
@click.option("-o", "--out", type=click.Path(dir_okay=False), default="submission.csv", show_default=True, help="Submission to write (checked by the grading reader before it is renamed into place).")
@click.option("-c", "--competition", default="agrichallenge2024", show_default=True, help="A shipped competition or your own TOML: its format and class names.")
@click.option("--device", default="cpu", show_default=True, help="cpu, cuda, cuda:N or auto.")
@click.option("--batch-size", type=click.IntRange(1), default=64, show_default=True, help="Images per forward pass.")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out.")
def submit_cmd(run, images, id_file, out, competition, device, batch_size, overwrite):
    """Turn a trained run (RUN = RUNS/<protocol>/<arch>/<fold>, its best.pt) into the competition's
    submission: the run's eval transform, the definition's class names, validated before written."""
    from agrieval.baselines.ctv.submit import ids_from_file, list_test_images, submit_run
    from agrieval.scoring.cli._options import load_definition
    from agrieval.scoring.writing.policy import OutputPlan, OutputRefused

    try:
        OutputPlan(overwrite=overwrite).claim(out, what="submission")
    except OutputRefused as exc:
        click.echo(exc.render(), err=True)
        raise SystemExit(2) from None
    definition = load_definition(competition)
    try:
        test = (ids_from_file(id_file, images, definition.id_column) if id_file else list_test_images(images))
        summary = submit_run(run, test, out, definition, device=device, batch_size=batch_size,
                             overwrite=overwrite, log=_log)
    except CTVError as exc:
        _fail(exc)
    for warning in summary["warnings"]:
        click.echo(warning, err=True)
    spread = ", ".join(f"{c} {n}" for c, n in summary["per_class"].items())
    _log(f"wrote {out}: {summary['ids']} rows, validated as {definition.name} ({spread})")
    _log(f"next: agrieval validate {shell_word(str(out))} -c {shell_word(competition)}, then upload it")


@ctv.command("demo")
@click.option("--out", type=click.Path(file_okay=False), default="ctv-demo", show_default=True, help='Folder for the pool, splits, runs and report.')
@click.option("--teams", type=int, default=4, show_default=True, help='Teams in the synthetic pool.')
@click.option("--per-class", type=int, default=6, show_default=True, help='Photos per team and class.')
@click.option("--epochs", type=int, default=2, show_default=True, help='Training epochs per fold.')
@click.option("--arch", default="tiny_cnn", show_default=True, help='Architecture of every fold (tiny_cnn runs in seconds on a CPU).')
@click.option("--threads", type=int, default=1, show_default=True, help="torch CPU threads (0 = torch default).")
@click.option("--seeds", "seeds", default=None, metavar="N|S1,S2,...",
              help="Replicates: a count N (seeds 42 .. 42 + N - 1) or a seed list; the report gives intervals over "
                   "them [none: one seed].")
def demo_cmd(out, teams, per_class, epochs, arch, threads, seeds):
    """Synthetic pool -> TOTO/LOTO splits -> tiny model per fold on CPU -> 'agrieval ctv report'."""
    from agrieval.baselines.ctv._replicates import parse_seeds
    from agrieval.baselines.ctv.demo import run_demo

    try:
        code = run_demo(Path(out), teams=teams, per_class=per_class, epochs=epochs, arch=arch, threads=threads,
                        log=_log, seeds=parse_seeds(seeds, 42))
    except CTVError as exc:
        _fail(exc)
    raise SystemExit(code)


def _log(msg: str) -> None:
    if os.environ.get("RANK", "0") != "0":
        return  # under torchrun rank 0 speaks for all (errors still reach stderr from every rank)
    click.echo(msg)
    sys.stdout.flush()  # keep the order with tqdm on stderr and with sbatch logs


if __name__ == "__main__":  # torchrun --nproc_per_node=N -m agrieval.baselines.ctv._cli run ...
    ctv()


document(ctv, {name: (example, "Exit codes: 0 done; 1 an input was rejected (a manifest, an image, a run folder made with other settings); 2 usage error (bad option, missing file or weights, a device that is not there); 3 host-side problem (missing 'baselines' extra, internal error).") for name, example in {
    "": "agrieval baselines ctv demo --out ctv-demo",
    "plan": "agrieval baselines ctv plan --splits splits --runs-dir runs",
    "run": "agrieval baselines ctv run --splits splits --weights-dir weights --protocol toto --arch densenet121 --fold team01",
    "run-all": "agrieval baselines ctv run-all --splits splits --weights-dir weights --runs-dir runs",
    "slurm": "agrieval baselines ctv slurm --splits splits --weights-dir weights --runs-dir runs -o ctv.sbatch",
    "status": "agrieval baselines ctv status ctv.sbatch --job 1234",
    "demo": "agrieval baselines ctv demo --out ctv-demo",
    "submit": "agrieval baselines ctv submit runs/loto/densenet121/team01 --images test_images -o submission.csv",
    "presets": "agrieval baselines ctv presets --markdown",
    "loader-check": "agrieval baselines ctv loader-check --splits splits --protocol toto --fold team01 --json",
}.items()})
