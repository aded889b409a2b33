"""``slurm``: write the shard array, the dependent merge-and-aggregate job and the script that submits both."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from agrieval.baselines import _sbatch as sbatch
from agrieval.baselines.plantclef._cli.errors import InputProblem, guard
from agrieval.baselines.plantclef._cli.predict import predict
from agrieval.baselines.plantclef._slurm import SUBMISSION, TILES, ShardJob, merge_script, shard_script, submit_script
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.text.literals import shell_word
from agrieval.scoring.writing.policy import OutputPlan


def _words(text: str | None, option: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text or ""))
    except ValueError as exc:
        raise click.BadParameter(f"{exc} (write the options as on a command line)", param_hint=option) from None


def _check_parse(command: click.Command, args: list[str], option: str) -> None:
    """Parse ``args`` with the command's own parser, as each task will: a bad option fails now."""
    try:
        command.make_context(command.name, list(args), resilient_parsing=False).close()
    except click.UsageError as exc:
        raise click.BadParameter(exc.format_message(), param_hint=option) from None


@click.command("slurm")
@click.argument("images", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--shards", type=click.IntRange(min=1), required=True, help="Array tasks; task I predicts images I, I+N, ...")
@click.option("--work", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder of the shard files, the merged tile scores (tiles.parquet) and submission.csv.")
@click.option("--predict-args", default="", help="predict's options for every shard, as on its command line "
              "(model, checkpoint, class mapping, tiling, device...).")
@click.option("--aggregate-args", default="", help="aggregate's options for the merge job (strategy or recipe, "
              "competition...).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The array script; <stem>-merge.sbatch, <stem>-submit.sh and slurm-logs/ go beside it.")
@click.option("--time", "time_limit", default="04:00:00", show_default=True, help="Wall-clock limit of one attempt of a task (#SBATCH --time).")
@click.option("--signal-lead", type=int, default=300, show_default=True, help="Seconds before --time of SLURM's warning: the shard flushes its parts and is requeued.")
@click.option("--cpus-per-task", type=click.IntRange(min=1), default=4, show_default=True, help="CPU cores per shard.")
@click.option("--gpus-per-task", type=click.IntRange(min=0), default=0, show_default=True, help="GPUs per shard (#SBATCH --gres=gpu:N when above 0).")
@click.option("--mem", default="16G", show_default=True, help="Memory per task (#SBATCH --mem).")
@click.option("--partition", help="Slurm partition(s).")
@click.option("--account", help="Slurm account to charge.")
@click.option("--sbatch-extra", multiple=True, help="One more #SBATCH line, --name=value or --name (repeatable).")
@click.option("--setup", help="Shell line run first in each job, e.g. 'source .venv/bin/activate'.")
@click.option("--overwrite", is_flag=True, help="Replace existing scripts.")
@guard
def slurm(images, shards, work, predict_args, aggregate_args, output, time_limit, signal_lead, cpus_per_task,
          gpus_per_task, mem, partition, account, sbatch_extra, setup, overwrite):
    """Write a SLURM array of `predict --shard I/N` tasks (resumed on requeue) and a merge job that joins the
    shards and aggregates them into a validated submission once every shard ended well."""
    output = output.resolve()
    merge_out = output.with_name(f"{output.stem}-merge.sbatch")
    submit_out = output.with_name(f"{output.stem}-submit.sh")
    plan = OutputPlan(overwrite=overwrite)
    for path, what in ((output, "sbatch script"), (merge_out, "merge script"), (submit_out, "submit script")):
        plan.claim(path, what=what)
    p_words, a_words = _words(predict_args, "--predict-args"), _words(aggregate_args, "--aggregate-args")
    reserved = {"--shard", "--save-tile-scores", "--out", "--resume", "--overwrite"}
    for words, option in ((p_words, "--predict-args"), (a_words, "--aggregate-args")):
        taken = sorted(reserved & {w.split("=")[0] for w in words})
        if taken:
            raise click.BadParameter(f"{', '.join(taken)}: set by the generated scripts", param_hint=option)
    work = work.resolve()
    # each task's own parser, on the words it will get: a bad or missing option fails here, not in N tasks
    _check_parse(predict, [str(images), *p_words, "--shard", f"0/{shards}"], "--predict-args")
    # the files every shard reads: there now, and named absolutely (a task runs where sbatch was called)
    p_words = list(p_words)
    for flag in ("--checkpoint", "--class-mapping", "--prior"):
        if flag in p_words[:-1]:
            at = p_words.index(flag) + 1
            path = Path(p_words[at])
            if not path.is_file():
                raise InputProblem(f"{path}: no such file ({flag} in --predict-args); every shard would stop on it",
                                   "checkpoint_missing" if flag == "--checkpoint" else "bad_input")
            p_words[at] = str(path.resolve())
    p_words = tuple(p_words)
    job = ShardJob(images=images.resolve(), work=work, log_dir=output.parent / "slurm-logs", shards=shards,
                   predict_args=p_words, aggregate_args=a_words, time=time_limit, signal_lead=signal_lead,
                   cpus=cpus_per_task, mem=mem, gpus=gpus_per_task, partition=partition, account=account,
                   extra=tuple(sbatch_extra), setup=setup)
    try:
        texts = {output: shard_script(job), merge_out: merge_script(job), submit_out: submit_script(output, merge_out)}
    except sbatch.DirectiveError as exc:
        raise InputProblem(str(exc), "bad_option") from None
    stale = [p for p in [job.shard_file(i) for i in range(shards)] if p.exists()]
    job.log_dir.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    for path, text in texts.items():
        write_text(path, text)
    submit_out.chmod(0o755)
    click.echo(f"wrote {output} ({shards} shards), {merge_out} (merge-tiles + aggregate -> {work / SUBMISSION}, "
               f"via {work / TILES}); submit both with: bash {shell_word(str(submit_out))}")
    if stale:
        click.echo(f"note: {len(stale)} shard file(s) already in {work}: those tasks will do nothing; move them "
                   "away to predict again", err=True)
