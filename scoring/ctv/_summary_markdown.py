"""Markdown rendering of a CTV summary, in the layout of the paper's tables.

Per protocol, one per-team table: a row per team, then Val, Test and VTG
columns for each architecture, closed by Mean and Std rows (the std's ddof is
named in the row label). Then the group statistics, the cross-architecture
agreement and the TOTO -> LOTO change.
"""

from __future__ import annotations

from agrieval.scoring.ctv._spread import caption, seed_stats
from agrieval.scoring.ctv._spread import cell as spread_cell
from agrieval.scoring.ctv.results_table import ResultsTable
from agrieval.scoring.ctv.summarize import Summary
from agrieval.scoring.text import markdown as md_text
from agrieval.scoring.text.markdown import Markdown
from agrieval.scoring.text.tables import fmt, markdown_table

_TEAM_ROLE = {"TOTO": "training team", "LOTO": "held-out team"}


def format_pvalue(p: float | None) -> str:
    """Three significant digits, scientific below 1e-3: 0.0833, 0.00139 -> 1.39e-03; never a false 0."""
    if p is None or p != p:
        return ""
    return f"{p:.2e}" if p < 1e-3 else f"{p:.3g}"


def per_team_tables(table: ResultsTable, summary: Summary, digits: int = 2, spread: str | None = None) -> str:
    """``spread`` (``se``, ``std``, ``ci95``; ``agrieval.scoring.ctv._spread``): the rows hold each team's mean over
    its seeds (run folders) and a cell of several seeds shows mean ± that spread, the caption saying which;
    None: a table read as it is (``ctv summarize``'s RESULTS.csv, whose seeds are unknown)."""
    parts = []
    for protocol in table.protocols():
        archs = table.archs(protocol)
        teams = sorted({r.team for r in table.rows if r.protocol == protocol})
        header = [f"Team ({_TEAM_ROLE[protocol]})"]
        for arch in archs:
            header += [f"{arch} Val", f"{arch} Test", f"{arch} VTG"]
        rows = []
        cell = {(r.arch, r.team): r for r in table.rows if r.protocol == protocol}
        counts = set()
        for team in teams:
            row = [team]
            for arch in archs:
                r = cell.get((arch, team))
                if r is None:
                    row += ["", "", ""]
                elif spread is None:
                    row += [fmt(r.val_acc, digits), fmt(r.test_acc, digits), fmt(r.vtg, digits)]
                else:
                    stats = [seed_stats(r.seed_values(m)) for m in ("val_acc", "test_acc", "vtg")]
                    counts.add(stats[0]["n_seeds"])
                    row += [spread_cell(s, spread, digits) for s in stats]
            rows.append(row)
        for label, key in ((Markdown("**Mean**"), "mean"), (Markdown(f"**Std** (ddof={summary.ddof[protocol]})"), "std")):
            row = [label]
            for arch in archs:
                g = summary.group(protocol, arch)
                row += [fmt(g[m][key], digits) for m in ("val_acc", "test_acc", "vtg")]
            rows.append(row)
        note = "" if spread is None else caption(spread, counts) + " Mean and Std rows: over the teams' means.\n\n"
        parts.append(f"### {protocol}: per-team accuracy (%)\n\n" + note + markdown_table(header, rows))
    return "\n".join(parts)


def summary_tables(summary: Summary, digits: int = 2) -> str:
    thr = fmt(summary.threshold, 1)
    header = ["Protocol", "Arch", "Teams", "Val mean", "Val std", "Test mean", "Test std", "VTG mean", "VTG std",
              "Test min (team)", "Test max (team)", Markdown(f"Share > {thr}%")]
    rows = [[g["protocol"], g["arch"], g["n_teams"], fmt(g["val_acc"]["mean"], digits), fmt(g["val_acc"]["std"], digits),
             fmt(g["test_acc"]["mean"], digits), fmt(g["test_acc"]["std"], digits), fmt(g["vtg"]["mean"], digits),
             fmt(g["vtg"]["std"], digits), f"{fmt(g['test_acc_min'], digits)} ({g['test_acc_min_team']})",
             f"{fmt(g['test_acc_max'], digits)} ({g['test_acc_max_team']})", fmt(g["share_above_threshold"], 3)]
            for g in summary.groups]
    ddofs = ", ".join(f"{p} ddof={d}" for p, d in summary.ddof.items())
    columns = ("Columns: **Teams** the teams (runs) of the group; **Val / Test / VTG mean, std** over those teams, in % "
               "(VTG: val − test, in points); **Test min / max (team)** the lowest and highest test accuracy and "
               f"whose it is; **Share > {thr}%** the fraction (0 to 1) of the group's teams whose test accuracy is "
               f"above {thr}% (set by the --threshold option).")
    out = [f"### Group statistics (std: {ddofs})\n\n{columns}\n\n" + markdown_table(header, rows)]
    if summary.agreement:
        header = ["Protocol", "Metric", "Arch A", "Arch B", "Teams", "Spearman", "p", "Pearson", "p", "Kendall", "p"]
        rows = [[a["protocol"], a["metric"], a["arch_a"], a["arch_b"], a["n_teams"],
                 fmt(a["spearman"]["statistic"]), format_pvalue(a["spearman"]["pvalue"]),
                 fmt(a["pearson"]["statistic"]), format_pvalue(a["pearson"]["pvalue"]),
                 fmt(a["kendall"]["statistic"]), format_pvalue(a["kendall"]["pvalue"])] for a in summary.agreement]
        methods = sorted({a["pvalue_method"] for a in summary.agreement})
        out.append("### Agreement of team rankings across architectures\n\n"
                   f"Two-sided p-values: {'; '.join(methods)}.\n\n" + markdown_table(header, rows))
    if summary.protocol_change:
        header = ["Arch", "TOTO test mean", "LOTO test mean", "Gain (points)", "TOTO VTG", "LOTO VTG",
                  "VTG reduction (%)", "TOTO test std", "LOTO test std", "Std reduction (%)"]
        rows = [[c["arch"], fmt(c["toto_test_mean"], digits), fmt(c["loto_test_mean"], digits),
                 fmt(c["test_gain_points"], digits), fmt(c["toto_vtg_mean"], digits), fmt(c["loto_vtg_mean"], digits),
                 fmt(c["vtg_reduction_pct"], 1), fmt(c["toto_test_std"], digits), fmt(c["loto_test_std"], digits),
                 fmt(c["std_reduction_pct"], 1)] for c in summary.protocol_change]
        out.append("### From TOTO to LOTO\n\n" + markdown_table(header, rows))
    return "\n".join(out)


def render(table: ResultsTable, summary: Summary, digits: int = 2) -> str:
    text = per_team_tables(table, summary, digits) + "\n" + summary_tables(summary, digits)
    if summary.warnings:
        text += "\n" + "\n".join(f"> warning: {md_text.text(w)}" for w in summary.warnings) + "\n"
    return text
