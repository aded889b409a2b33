"""``agrieval rank-agreement A.csv B.csv --key team --value test_acc``."""

from __future__ import annotations

import json
import math

import click

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.cli._failures import refuse_input
from agrieval.scoring.cli._options import bootstrap_options
from agrieval.scoring.cli.group import epilog
from agrieval.scoring.text.tables import fmt
from agrieval.scoring.text.terminal import cell, one_line

# Imported inside functions, so that importing this module loads only what it needs:
# scoring.leaderboard.rank_agreement (it loads numpy).


def _where(ctx, param, values) -> dict[str, str]:
    out = {}
    for v in values:
        col, sep, want = v.partition("=")
        if not sep or not col.strip():
            raise click.BadParameter(f"{v!r} is not COLUMN=VALUE, e.g. protocol=LOTO")
        out[col.strip()] = want.strip()
    return out


@click.command("rank-agreement", epilog=epilog("agrieval rank-agreement ctv-report/results.csv ctv-report/results.csv --key team --value test_acc --where protocol=LOTO --where-a arch=densenet121 --where-b arch=swin_tiny", "Exit codes: 0 done; 1 a file is rejected, a filter keeps no row or the two files do not rank the same keys; 2 usage error (bad option, missing file)."))
@click.argument("a_csv", type=click.Path(exists=True, dir_okay=False))
@click.argument("b_csv", type=click.Path(exists=True, dir_okay=False))
@click.option("--key", required=True, help="Column that names the ranked items (team, submission...).")
@click.option("--value", required=True, help="Score column (in both files unless --value-b is given).")
@click.option("--value-b", default=None, help="Score column of B.csv when it differs from --value.")
@click.option("--where", multiple=True, callback=_where, metavar="COLUMN=VALUE",
              help="Keep only the rows of both files whose COLUMN holds VALUE (repeatable), e.g. protocol=LOTO "
                   "on a `ctv report`'s results.csv.")
@click.option("--where-a", multiple=True, callback=_where, metavar="COLUMN=VALUE",
              help="Like --where, for A_CSV only (e.g. arch=densenet121).")
@click.option("--where-b", multiple=True, callback=_where, metavar="COLUMN=VALUE",
              help="Like --where, for B_CSV only (e.g. arch=swin_tiny).")
@bootstrap_options("Bootstrap resamples of the keys for the intervals (0: none).",
                   "Seed of the bootstrap.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def rank_agreement(a_csv, b_csv, key, value, value_b, where, where_a, where_b, resamples, seed, confidence, as_json):
    """Spearman, Pearson and Kendall agreement between the rankings in A_CSV and B_CSV.

    Ties get average ranks (Spearman) and tau-b (Kendall). The p-values are those of `ctv summarize` and
    `ctv report` (one computation; exact permutation up to 8 items, else scipy's asymptotic), and the
    output names the method. Exit code 1 when a file is rejected or the two files do not hold the same keys.
    """
    from agrieval.scoring.leaderboard.rank_agreement import rank_agreement as compute
    from agrieval.scoring.leaderboard.rank_agreement import read_scores

    try:
        a = read_scores(a_csv, key, value, where | where_a)
        b = read_scores(b_csv, key, value_b or value, where | where_b)
        res = compute(a, b, n_resamples=resamples, seed=seed, confidence=confidence, names=(a_csv, b_csv))
    except InputError as exc:
        refuse_input(exc, as_json)
    if as_json:
        click.echo(json.dumps({"status": "ok", "key": key, "a": a_csv, "b": b_csv} | res.as_dict(), sort_keys=True))
        return
    click.echo(one_line(f"{len(res.keys)} {key}s; {value} in {a_csv} vs {value_b or value} in {b_csv}"))
    click.echo(f"p-values: {res.pvalue_method}")
    pct = f"{confidence:.0%}"
    click.echo(f"{'statistic':<10} {'value':>8} {'p-value':>10}   {pct} bootstrap interval ({resamples} resamples, seed {seed})")
    for name, c in res.stats.items():
        ci = f"[{fmt(c.ci_low)}, {fmt(c.ci_high)}]" if c.n_valid_resamples else "-"
        click.echo(f"{cell(name, 10)} {fmt(c.statistic):>8} {cell(_p(c.pvalue), 10, '>')}   {ci}")
    for w in res.warnings:
        click.echo(one_line(f"warning: {w}"), err=True)


def _p(p: float) -> str:
    if math.isnan(p):
        return ""
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"
