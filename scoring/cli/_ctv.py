"""``agrieval ctv summarize`` and ``agrieval ctv report``: the CTV study's tables and figures.

Exit codes: 0 done; 1 an input was rejected (the message names the file, line
and column); 2 usage error, including an output path that the output policy
refuses (``agrieval.scoring.writing.policy``: existing without ``--overwrite``, or a
file the command reads).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.cli._failures import refuse_input, require
from agrieval.scoring.cli._options import chosen_figure_format, figure_options
from agrieval.scoring.cli.group import ContractGroup, document
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.text.file_names import display_name
from agrieval.scoring.text.terminal import one_line
from agrieval.scoring.writing.policy import OutputPlan, OutputRefused

# Imported inside functions, so that importing this module loads only what it needs: scoring.ctv.results_table,
# scoring.ctv.summarize, scoring.ctv.summary_markdown, scoring.ctv.report (they load numpy).


@click.group("ctv", cls=ContractGroup)
def ctv() -> None:
    """Cross-Team Validation (TOTO/LOTO) tables, matrices, ranking checks and reports."""


def _refused(exc: OutputRefused, as_json: bool) -> None:
    """An output path refused by the output policy: a usage error (exit 2), in the style of ``_fail``."""
    if as_json:
        click.echo(json.dumps({"status": "error", "errors": [{"code": exc.code, "message": display_name(exc.message),
                                                             "file": display_name(exc.path or "")}]}, sort_keys=True))
    else:
        click.echo(display_name(f"{exc.path}: error [{exc.code}] {exc.message}"), err=True)
    raise SystemExit(2)


@ctv.command("summarize")
@click.argument("results_csv", type=click.Path(exists=True, dir_okay=False))
@click.option("--ddof", type=click.Choice(["paper", "0", "1"]), default="paper", show_default=True,
              help="Delta degrees of freedom of the std: paper = TOTO 0, LOTO 1 (the paper's Tables 6 and 7); "
                   "or 0 (population, the public script) / 1 (sample) for both.")
@click.option("--threshold", type=float, default=95.0, show_default=True,
              help="Report the share of teams whose test accuracy is above this (percent).")
@click.option("--digits", type=click.IntRange(0, 10), default=2, show_default=True, help="Decimals in the tables.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of Markdown tables.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Also write the output (Markdown or JSON) to this file, atomically.")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out file (never RESULTS_CSV itself).")
def summarize_cmd(results_csv, ddof, threshold, digits, as_json, out, overwrite):
    """Summarize a per-team RESULTS.csv (protocol,arch,team,val_acc,test_acc in percent).

    Prints the paper-style per-team tables (Val, Test, VTG per arch; Mean and
    Std rows), the per-group statistics, the agreement of team rankings across
    architectures, and the TOTO -> LOTO change.
    """
    from agrieval.scoring.ctv._summary_markdown import render
    from agrieval.scoring.ctv.results_table import read_results
    from agrieval.scoring.ctv.summarize import summarize

    if out:  # checked before any work, and before anything is printed
        try:
            OutputPlan(overwrite=overwrite, inputs=[results_csv]).claim(out, what="--out file")
        except OutputRefused as exc:
            _refused(exc, as_json)
    try:
        table = read_results(results_csv)
    except InputError as exc:
        refuse_input(exc, as_json)
    summary = summarize(table, ddof=None if ddof == "paper" else int(ddof), threshold=threshold)
    if as_json:
        text = json.dumps({"status": "ok", "source": results_csv} | summary.as_dict(), indent=2, sort_keys=True) + "\n"
    else:
        text = render(table, summary, digits)
    click.echo(text, nl=False)
    if out:
        write_text(out, text)
    if not as_json:
        for w in summary.warnings:
            click.echo(one_line(f"warning: {w}"), err=True)


@ctv.command("report")
@click.argument("runs_dirs", metavar="RUNS_DIR...", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="ctv-report", show_default=True,
              help="Folder for report.md, report.html, tables and plots (by default outside the run folders, "
                   "which may be read-only).")
@click.option("--plots/--no-plots", default=False, show_default=True,
              help="Draw the figures (needs matplotlib), as PNG unless --format says otherwise.")
@figure_options
@click.option("--ddof", type=click.Choice(["paper", "0", "1"]), default="paper", show_default=True,
              help="Std ddof: paper = TOTO 0 and LOTO 1 (the paper's Tables 6 and 7), or one value for both.")
@click.option("--threshold", type=float, default=95.0, show_default=True,
              help="Report the share of teams whose test accuracy is above this (percent).")
@click.option("--digits", type=click.IntRange(0, 10), default=2, show_default=True, help="Decimals in the tables.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object on stdout.")
@click.option("--overwrite", is_flag=True, help="Replace the files of an earlier report in the --out folder.")
@click.option("--lodo", type=click.Path(exists=True, file_okay=False), default=None, metavar="DIR",
              help="Held-out runs for leave-one-team-out selection of the LOTO runs: DIR/<test team>/ is the runs "
                   "folder of the splits made with `agrieval data splits --without-team <test team>` "
                   "(docs/ctv_reporting.md). Adds the rule leave_one_team_out.")
@click.option("--spread", type=click.Choice(["se", "std", "ci95"]), default="se", show_default=True,
              help="What follows ± in every mean over seeds (per-team tables, bars, matrices, replicates): se = "
                   "standard error (DomainBed), std = standard deviation ddof 1 (WILDS), ci95 = half-width of the "
                   "95% Student-t interval. One seed: no spread, n=1.")
def report_cmd(runs_dirs, out_dir, plots, figure_format, dpi, ddof, threshold, digits, as_json, overwrite, lodo,
               spread):
    """Read run outputs under each RUNS_DIR and write the CTV report.

    Reads agrieval baselines runs (<protocol>/<arch>/<fold>/run.json +
    predictions.csv + history.jsonl) and public AgrI script output trees
    (results/*_results.json, predictions/*_predictions.csv, the summary JSON
    and the cross-team matrix), several at once. Accuracies are recomputed
    from the predictions and every number the runs stored is checked against
    them (a difference is a warning naming the file and both values).
    """

    from agrieval.scoring.ctv.report import build_report

    fmt = chosen_figure_format(figure_format, dpi, plots)
    if plots:
        require("agrieval ctv report --plots", "matplotlib")
    out_path = Path(out_dir)
    progress = None if as_json else (lambda msg: click.echo(one_line(msg), err=True))
    try:
        result = build_report(list(runs_dirs), out_path, plots=plots, ddof=None if ddof == "paper" else int(ddof),
                              threshold=threshold, digits=digits, progress=progress,
                              plan=OutputPlan(overwrite=overwrite), figure_format=fmt, lodo=lodo,
                              spread=spread)
    except InputError as exc:
        refuse_input(exc, as_json)
    except OutputRefused as exc:
        _refused(exc, as_json)
    if as_json:
        click.echo(json.dumps({"status": "ok"} | result.as_dict(), indent=2, sort_keys=True))
    else:
        for w in result.warnings:
            click.echo(one_line(f"warning: {w}"), err=True)
        checked = result.extra["cross_check"]
        click.echo(f"{len(result.runs)} runs; {checked['n_checked']} stored numbers checked, "
                   f"{checked['n_disagree']} disagree; report written to {out_path / 'report.md'} and "
                   f"{out_path / 'report.html'}")
        for f in result.files:
            click.echo(f"  {one_line(f)}")
        if not plots:  # the report's figures are one flag away
            click.echo("figures (heatmaps, learning curves, accuracy on the line): add --plots", err=True)
    sys.stdout.flush()


document(ctv, {
    "": ("agrieval ctv summarize examples/ctv/RESULTS.csv --ddof 1", 'Exit codes: 0 done; 1 an input was rejected (file:line:column: error [code] message); 2 usage error (bad option, missing file, refused --out); 3 host-side problem (missing matplotlib for --plots, internal error).'),
    "summarize": ("agrieval ctv summarize examples/ctv/RESULTS.csv --ddof 1 --out summary.md", 'Exit codes: 0 done; 1 an input was rejected (file:line:column: error [code] message); 2 usage error (bad option, missing file, refused --out); 3 host-side problem (missing matplotlib for --plots, internal error).'),
    "report": ("agrieval ctv report examples/ctv/runs --out ctv-report --plots --format svg", 'Exit codes: 0 done; 1 an input was rejected (file:line:column: error [code] message); 2 usage error (bad option, missing file, refused --out); 3 host-side problem (missing matplotlib for --plots, internal error).'),
})
