"""``agrieval bundle PLATFORM``: write exactly what one grading platform consumes, ready to upload."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from agrieval.scoring.authoring._bundles import PLATFORMS
from agrieval.scoring.authoring._bundles.competition_pages import (
    DEFAULT_DEV_START,
    DEFAULT_END,
    DEFAULT_FINAL_START,
    Options,
)
from agrieval.scoring.authoring._bundles.files import BUNDLE_HOLE, check_inputs, write
from agrieval.scoring.authoring._bundles.starting_kit import VALIDATOR_NAME, validator_py
from agrieval.scoring.authoring._bundles.submission_limits import readme_section as limits_section
from agrieval.scoring.authoring._public_precision import readme_section, with_public_precision
from agrieval.scoring.cli._failures import EXIT_OK, CommandError
from agrieval.scoring.cli._options import check_solution_pair, competition_option, load_definition
from agrieval.scoring.cli._output import held
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.text.literals import shell_word

PLATFORM_NAMES = ("codabench", "codalab", "evalai", "hf", "kaggle")
ALIASES = {"huggingface": "hf"}  # accepted on the command line, written as the canonical name


@click.command()
@click.argument("platform", type=click.Choice(PLATFORM_NAMES + tuple(ALIASES)),
                callback=lambda ctx, param, value: ALIASES.get(value, value))
@competition_option
@click.option("--solution", "-s", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Ground truth CSV; checked (it must score perfectly against itself) and copied into the bundle.")
@click.option("--split", type=click.Choice(["public", "private"]), default="public", show_default=True,
              help="codabench/codalab: the split of the scoring_program/ folder copy (the upload holds both).")
@click.option("--title", default=None, help="Competition title (default: the definition's title).")
@click.option("--description", default="", help="A paragraph for the overview page, under the title: what the "
              "competition is about (shown as text, never markup).")
@click.option("--dev-start", default=DEFAULT_DEV_START, show_default=True, help="Development phase start (UTC).")
@click.option("--final-start", default=DEFAULT_FINAL_START, show_default=True,
              help="Final phase start (UTC); the development phase ends one minute before.")
@click.option("--end", default=DEFAULT_END, show_default=True, help="End of the competition (UTC).")
@click.option("--dev-phase-name", default="Development", show_default=True,
              help="Name of the phase scored on the public split.")
@click.option("--final-phase-name", default="Final", show_default=True,
              help="Name of the phase whose submissions are ranked on the private split after the end.")
@click.option("--reveal-phase-name", default="Private leaderboard", show_default=True,
              help="codabench: name of the phase that shows the private ranking (it starts one minute after --end).")
@click.option("--public-precision", default="off", show_default=True, metavar="off|auto|DECIMALS",
              callback=lambda ctx, param, value: _precision(value),
              help="Round the public scores the program reports: auto = to the public split's noise level "
                   "(decimals from the number of public units, docs/ladder.md), or a number of decimals. A "
                   "stateless platform's defence against probing; weaker than `agrieval grade --ladder`.")
@click.option("--reveal-end", default="", help="codabench: end of the private leaderboard phase (UTC; default: "
              "365 days after it starts). Codabench shows no status for a phase without an end.")
@click.option("--order-key", default="", help="Key of the order of the published ids (sample_submission.csv): "
              "sha256(KEY + newline + id); default: the competition's name. The README records it.")
@click.option("--require-approval/--auto-approve", default=True, show_default=True,
              help="codabench: each registration waits for the organizer's approval. --auto-approve approves "
                   "everyone on registering, latecomers too: someone who registers after the end can then be "
                   "ranked on the private leaderboard unless you remove the entry by hand (README).")
@click.option("--per-day", "per_day", type=click.IntRange(min=1), default=None,
              help="Submissions per participant and day [default: the platform's own; the README names it].")
@click.option("--total", "total", type=click.IntRange(min=1), default=None,
              help="Submissions per participant in all [default: the platform's own; hf has no such setting].")
@click.option("--time-limit", "time_limit", type=click.IntRange(min=1), default=None,
              help="Seconds one grading may take: the platform's setting and the scorer's own guard [default: "
                   "the platform's, and the definition's limits.max_seconds].")
@click.option("--selection-limit", "selection_limit", type=click.IntRange(min=1), default=None,
              help="Final submissions each team may select: hf's SELECTION_LIMIT, kaggle's host setting [default: "
                   "the platform's, 2; the other platforms have no selection and their README says which counts].")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@held
def bundle(platform: str, competition: str, solution: Path, split: str, title: str | None, description: str,
           dev_start: str,
           final_start: str, end: str, dev_phase_name: str, final_phase_name: str, reveal_phase_name: str,
           public_precision: str, reveal_end: str, order_key: str, require_approval: bool, per_day: int | None,
           total: int | None, time_limit: int | None, selection_limit: int | None, out_dir: Path) -> int:
    """Write OUT_DIR: the one file the organizer uploads to PLATFORM, a README of the remaining clicks, a
    sample_submission.csv (every id, no label) and the parts of the upload, to read or try.

    \b
    codabench  codabench_competition.zip (competition.yaml v2, pages, logo, tasks, phases, starting kit)
    codalab    codalab_competition.zip (competition.yaml v1, html pages, logo, phases, leaderboard)
    evalai     evalai_challenge.zip (challenge_config.yaml, HTML pages, evaluation_script.zip, annotations)
    hf         the dataset repository's files: conf.json, metric.py, solution.csv, *_DESC.md, RULES.md
    kaggle     agrieval_metric.py (a utility script), metric_notebook.py, solution.csv, pages/*.md

    \b
    Example:
      agrieval bundle codabench -c plantclef2025 -s reference_submissions/plantclef2025/solution.csv cb/

    OUT_DIR must be new or empty. Exit codes: 0 written, 2 usage error (OUT_DIR not empty, dates out of order),
    3 bad solution or definition (nothing written).
    """
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        # No --overwrite here: a file left from an older bundle would ship with the new one.
        raise CommandError("output_exists", f"{out_dir} exists and is not an empty folder; choose a new folder "
                                            "(nothing was written)", file=str(out_dir))

    options = Options(title=title, description=description, dev_start=dev_start, final_start=final_start, end=end,
                      dev_name=dev_phase_name, final_name=final_phase_name, reveal_name=reveal_phase_name,
                      require_approval=require_approval, reveal_end=reveal_end, per_day=per_day, total=total,
                      time_limit=time_limit, selection_limit=selection_limit)
    try:
        options.dates()
        options.reveal_end_text()
    except HostError as exc:  # the command line's dates: a usage error, before anything is read or written
        raise CommandError("bad_option", str(exc)) from None



    definition = load_definition(competition)
    if time_limit is not None:  # the guard in the bundled scorer gets the same limit as the platform
        definition = dataclasses.replace(definition, limits=dataclasses.replace(definition.limits,
                                                                                max_seconds=float(time_limit)))
    check_solution_pair(solution, definition)
    inputs = check_inputs(definition, solution, splits=("public", "private"), order_key=order_key)
    for warning in inputs.warnings:
        click.echo(f"{solution}: warning [{warning.code}] {warning.message}", err=True)
    inputs = dataclasses.replace(inputs, definition=with_public_precision(inputs.definition, inputs.solution,
                                                                            public_precision))
    made = PLATFORMS[platform](inputs, split=split, options=options)
    made.files["README.md"] += readme_section(inputs.definition, platform).encode("utf-8")
    made.files["README.md"] += limits_section(platform, options).encode("utf-8")
    made.files[VALIDATOR_NAME] = validator_py(inputs).encode("utf-8")  # for participants, beside the sample
    made.files["README.md"] += (f"\n`{VALIDATOR_NAME}` (give it to participants with `sample_submission.csv`): "
                                "`python validate.py submission.csv` checks a file's format and ids as the "
                                "grader reads them, with Python 3.8+ and numpy alone.\n").encode("utf-8")
    written = write(made, out_dir)
    size = sum(p.stat().st_size for p in written)
    click.echo(f"wrote {len(written)} files ({size / 1e6:.1f} MB) to {out_dir} for {platform}: "
               f"{definition.name}, {len(inputs.solution.ids):,} solution rows, leaderboard keys "
               f"{', '.join(inputs.keys)}")
    here = shell_word(str(out_dir.resolve()))
    for i, step in enumerate(made.next_steps, start=1):
        click.echo(f"next {i}: {step.replace(BUNDLE_HOLE, here)}")
    click.echo(f"details: {out_dir / 'README.md'}")
    return EXIT_OK


def _precision(value: str) -> str:
    """``off``, ``auto`` or a number of decimals 0..15 (a usage error otherwise)."""
    if value in ("off", "auto") or (value.isdigit() and int(value) <= 15):
        return value
    raise click.BadParameter(f"{value!r} is neither off, auto nor a number of decimals from 0 to 15")
