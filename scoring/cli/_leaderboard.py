"""``agrieval leaderboard SUBMISSIONS_DIR --solution SOL --competition NAME``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agrieval.scoring.cli._failures import EXIT_OK, EXIT_USAGE, CommandError, error_line, require
from agrieval.scoring.cli._options import (
    bootstrap_options,
    chosen_figure_format,
    competition_option,
    figure_options,
    json_option,
    load_definition,
)
from agrieval.scoring.cli._output import held
from agrieval.scoring.cli.group import epilog
from agrieval.scoring.text.terminal import one_line
from agrieval.scoring.writing.policy import OutputPlan, OutputRefused

# Imported inside functions, so that importing this module loads only what it needs: scoring.leaderboard.build,
# scoring.leaderboard.marks, scoring.leaderboard.outputs, scoring.leaderboard.plots (they load concurrent,
# concurrent.futures, pandas).


@click.command(epilog=epilog("agrieval leaderboard reference_submissions/agrichallenge2024/submissions -s reference_submissions/agrichallenge2024/solution.csv -c agrichallenge2024 --out lb", "Exit codes: 0 written (rejected files are listed in it); 2 usage error (no CSV files, bad option, missing file, unknown competition, refused --out); 3 host-side problem (bad solution or definition, missing matplotlib for --plots)."))
@click.argument("submissions_dir", metavar="SUBMISSIONS_DIR_OR_LOG", type=click.Path(exists=True, path_type=Path))
@click.option("--solution", "-s", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Ground truth CSV with the public/private split column (a folder of submissions needs it; "
                   "a per-team board reads the scores from the log).")
@competition_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("out/leaderboard"),
              show_default=True, help="Folder for leaderboard.csv/.json/.md (.html for a per-team board; PNGs "
                                      "with --plots).")
@click.option("--per-team", "per_team", type=click.Choice(["best", "last", "selected"]), default=None,
              help="Gone: one row per team is `agrieval server board DB --rule RULE`, from the own server's store "
                   "(see docs/own_server.md).")
@click.option("--selection-limit", default=2, show_default=True, type=click.IntRange(min=1),
              help="With --per-team selected: how many submissions count (those selected, or the best public).")
@click.option("--title", default=None, help="With --per-team: the page's title [default: the competition's].")
@click.option("--reveal-private", is_flag=True,
              help="Also score the private split: private rank, rank shift, public-vs-private agreement.")
@click.option("--metric", default=None, help="Rank by this metric [default: the competition's primary metric].")
@click.option("--unit", type=click.Choice(["group", "row"]), default="group", show_default=True,
              help="Bootstrap sampling unit: group = transect (PlantCLEF) or team (AgrI); row = quadrat/image.")
@bootstrap_options("Bootstrap resamples (0: no intervals, no tests).",
                   "Seed of the bootstrap draws.")
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0.0001, 0.5),
              help="A gap to the leader is called real when the paired test's p-value is below this.")
@click.option("--recursive", is_flag=True, help="Also score CSV files in subfolders (named by relative path).")
@click.option("--plots", is_flag=True, help="Also write the scores chart (and the ranks chart with --reveal-private), "
                                           "scores.png and ranks.png unless --format says otherwise.")
@figure_options
@json_option(help="Print leaderboard.json on stdout, nothing else.")
@click.option("--overwrite", is_flag=True, help="Replace the files of an earlier leaderboard in --out.")
@click.option("--audit", "audit_json", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="The JSON of `agrieval audit --json`: mark the entries of flagged teams (a submission belongs "
                   "to team T when its name is T or starts with T/, a folder per team with --recursive).")
@click.option("--ladder-states", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="A folder of <team>.json Ladder states (`agrieval grade --ladder`): mark the submissions "
                   "their team's Ladder held back.")
@click.option("--no-limits", "no_limits", is_flag=True,
              help="Read and score every file in this process, without the competition's time and memory limits "
                   "(by default each file gets them, as with `agrieval grade`; for trusted files only).")
@held
def leaderboard(submissions_dir: Path, solution: Path, competition: str, out_dir: Path, reveal_private: bool,
                metric: str | None, unit: str, resamples: int, seed: int, confidence: float, alpha: float,
                recursive: bool, plots: bool, figure_format: str, dpi: int, as_json: bool, overwrite: bool,
                audit_json: Path | None, ladder_states: Path | None, no_limits: bool, per_team: str | None,
                selection_limit: int, title: str | None) -> int:
    """Score every *.csv in SUBMISSIONS_DIR into a ranked leaderboard.

    A rejected file is listed with its error codes and never stops the others.
    Exit 0 when the leaderboard is written, 2 usage error (e.g. no CSV files, or
    an --out that the output policy refuses: inside SUBMISSIONS_DIR, or existing
    files without --overwrite), 3 host-side problem (bad solution or definition).
    """
    from agrieval.scoring.leaderboard._marks import mark_flagged, mark_held
    from agrieval.scoring.leaderboard.build import build_leaderboard, list_submissions
    from agrieval.scoring.leaderboard.outputs import OUTPUT_NAMES, to_dict, to_markdown, write_outputs

    fmt = chosen_figure_format(figure_format, dpi, plots)  # (a usage error: exit 2 before anything is read)

    if per_team is not None or submissions_dir.is_file():
        return _per_team_board(submissions_dir, competition, out_dir, per_team or "best", selection_limit,
                               reveal_private, title, as_json, overwrite)
    if solution is None:
        raise click.UsageError("a folder of submissions needs --solution (or --per-team with the server's log)")
    # The submissions are the participants' data, and a leaderboard.csv among them would be scored next time.
    if plots:  # before any work: a missing matplotlib is one line, not a traceback after scoring
        require("agrieval leaderboard --plots", "matplotlib")
    plan = OutputPlan(overwrite=overwrite, sources=[submissions_dir], inputs=[solution])
    charts = ["scores"] + (["ranks"] if reveal_private else []) if plots else []
    if not _claimed(plan, out_dir, list(OUTPUT_NAMES) + [fmt.name(c) for c in charts]):
        return EXIT_USAGE
    definition = load_definition(competition)
    if not list_submissions(submissions_dir, recursive):
        click.echo(error_line("no_submissions", f"no .csv files in {submissions_dir}"
                                       + ("" if recursive else " (try --recursive)")), err=True)
        return EXIT_USAGE
    progress = None if as_json else (lambda msg: click.echo(one_line(msg), err=True))
    try:
        board = build_leaderboard(submissions_dir, solution, definition, reveal_private=reveal_private,
                                  metric=metric, unit=unit, n_resamples=resamples, seed=seed,
                                  confidence=confidence, alpha=alpha, recursive=recursive, progress=progress,
                                  limits=not no_limits)
    except ValueError as exc:
        click.echo(error_line("bad_option", str(exc)), err=True)
        return EXIT_USAGE
    if audit_json is not None or ladder_states is not None:
        if audit_json is not None:
            mark_flagged(board, audit_json)
        if ladder_states is not None:
            mark_held(board, ladder_states)
    written = write_outputs(board, out_dir)
    if plots:
        written += _charts(board, out_dir, fmt, reveal_private)
    return _shown(board, to_dict if as_json else None, to_markdown, written)


def _per_team_board(source: Path, competition: str, out_dir: Path, rule: str, k: int, reveal_private: bool,
                    title: str | None, as_json: bool, overwrite: bool) -> int:
    """The per-team board moved to the store: said as a usage error that names the commands."""
    raise CommandError("bad_option", "per-team boards are built from the own server's store: `agrieval server board "
                                     f"DB --rule {rule}` (a former submission log comes into a store with `agrieval "
                                     "server import DB --log LOG.csv`)")


def _charts(board, out_dir: Path, fmt, reveal_private: bool) -> list:
    """Draw ``--plots``: the scores with their intervals, and the ranks with ``--reveal-private``."""
    from agrieval.scoring.leaderboard.plots import rank_chart, scores_chart

    written = [scores_chart(board, out_dir / fmt.name("scores"), fmt)]
    if reveal_private:
        written.append(rank_chart(board, out_dir / fmt.name("ranks"), fmt))
    return written


def _shown(board, as_dict, as_markdown, written: list) -> int:
    """A board on stdout: its JSON (``as_dict`` given: ``--json``), or its Markdown and the files written."""
    if as_dict is not None:
        click.echo(json.dumps(as_dict(board), indent=2, sort_keys=True))
    else:
        click.echo(as_markdown(board))
        click.echo("written: " + ", ".join(str(p) for p in written))
    return EXIT_OK


def _claimed(plan, out_dir: Path, names) -> bool:
    """Every output file of a board claimed by the output policy before any is written; a refusal is one line
    on stderr (the caller exits 2)."""
    try:
        plan.claim_all([plan.claim_dir(out_dir, what="--out folder") / n for n in names], what="leaderboard file")
    except OutputRefused as exc:
        click.echo(error_line(exc.code, exc.message), err=True)
        return False
    return True
