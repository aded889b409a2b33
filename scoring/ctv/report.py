"""``agrieval ctv report``: from run folders to report.md / report.html.

Writes into the output folder (each file atomically):

* ``runs.csv`` one row per run (accuracies recomputed from the predictions);
* ``team_accuracy.csv`` one row per (run, test team);
* ``results.csv`` the per-team table in ``ctv summarize``'s input format;
* ``summary.json`` the ``ctv summarize`` statistics;
* ``cross_team_<arch>.csv`` the TOTO matrices with row/column means and ranges;
* ``plots/*.png`` with ``--plots``; ``report.md`` and ``report.html`` (images embedded).

Every file is checked by ``scoring.output_policy`` before the first is
written: an existing one is refused unless ``--overwrite``, and none may be a
file the report reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scoring.atomic import write_text
from scoring.ctv.cross_team_matrix import CrossTeamMatrix, toto_matrices
from scoring.ctv.runs import RunSet, read_runs
from scoring.ctv.summarize import Summary, summarize
from scoring.ctv.summary_markdown import per_team_tables, summary_tables
from scoring.formatting import csv_text, fmt, markdown_table
from scoring.output_policy import OutputPlan


@dataclass
class ReportResult:
    runs: list
    summary: Summary
    matrices: list[CrossTeamMatrix]
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"n_runs": len(self.runs), "files": self.files, "summary": self.summary.as_dict(),
                "warnings": self.warnings}


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def matrix_rows(m: CrossTeamMatrix, digits: int) -> tuple[list[str], list[list]]:
    header = ["training \\ test"] + m.teams + ["row mean", "row range"]
    rows = []
    rmean, rrange = m.row_mean(), m.row_range()
    for i, team in enumerate(m.teams):
        cells = [fmt(v, digits) + ("*" if i == j and v == v else "") for j, v in enumerate(m.values[i])]
        rows.append([team] + cells + [fmt(rmean[i], digits), fmt(rrange[i], digits)])
    rows.append(["column mean"] + [fmt(v, digits) for v in m.col_mean()] + ["", ""])
    rows.append(["column range"] + [fmt(v, digits) for v in m.col_range()] + ["", ""])
    return header, rows


def _planned_files(matrices: list[CrossTeamMatrix], table, plots: bool) -> list[str]:
    names = ["runs.csv", "team_accuracy.csv", "results.csv", "summary.json"]
    names += [f"cross_team_{_slug(m.arch)}.csv" for m in matrices]
    if plots:
        names += [f"plots/cross_team_{_slug(m.arch)}.png" for m in matrices] + ["plots/vtg_distribution.png"]
        names += [f"plots/team_accuracy_{p}.png" for p in table.protocols()]
    return names + ["report.md", "report.html"]


def build_report(runs_dir: str | Path, out_dir: Path, *, plots: bool = False, ddof: int = 1,
                 threshold: float = 95.0, digits: int = 2,
                 progress: Callable[[str], None] | None = None, plan: OutputPlan | None = None) -> ReportResult:
    runset: RunSet = read_runs(runs_dir, progress)
    table = runset.results_table()
    summary = summarize(table, ddof=ddof, threshold=threshold)
    matrices = toto_matrices(runset.runs)
    result = ReportResult(runset.runs, summary, matrices, warnings=runset.warnings + summary.warnings)
    plan = plan or OutputPlan()
    root = Path(runs_dir)
    plan.add_inputs(*[r.source for r in runset.runs], *root.rglob("run.json"), *root.rglob("*_results.json"))
    out_dir = plan.claim_dir(out_dir, what="report folder")
    plan.claim_all([out_dir / n for n in _planned_files(matrices, table, plots)], what="report file")

    def write(name: str, text: str) -> None:
        write_text(out_dir / name, text)
        result.files.append(name)

    runs_header = ["protocol", "arch", "fold", "layout", "n_val", "n_test", "val_acc", "test_acc", "vtg", "source"]
    write("runs.csv", csv_text(runs_header, [[r.protocol, r.arch, r.fold, r.layout, r.n_val, r.n_test,
                                               fmt(100 * r.val_acc, 4), fmt(100 * r.test_acc, 4),
                                               fmt(100 * r.vtg, 4), r.source] for r in runset.runs]))
    write("team_accuracy.csv", csv_text(["protocol", "arch", "fold", "test_team", "n_images", "accuracy"],
                                        [[r.protocol, r.arch, r.fold, t, r.team_n[t], fmt(100 * a, 4)]
                                         for r in runset.runs for t, a in r.team_acc.items()]))
    write("results.csv", csv_text(["protocol", "arch", "team", "val_acc", "test_acc"],
                                  [[t.protocol, t.arch, t.team, fmt(t.val_acc, 4), fmt(t.test_acc, 4)]
                                   for t in table.rows]))
    write("summary.json", json.dumps(summary.as_dict(), indent=2, sort_keys=True) + "\n")
    for m in matrices:
        header, rows = matrix_rows(m, 4)
        write(f"cross_team_{_slug(m.arch)}.csv", csv_text(header, [[c.rstrip("*") for c in r] for r in rows]))

    images: dict[str, str] = {}
    if plots:
        from scoring.ctv import plots as P

        for m in matrices:
            name = f"plots/cross_team_{_slug(m.arch)}.png"
            P.heatmap(m, out_dir / name)
            images[f"heatmap:{m.arch}"] = name
        P.vtg_distribution(table, out_dir / "plots/vtg_distribution.png")
        images["vtg"] = "plots/vtg_distribution.png"
        for protocol in table.protocols():
            name = f"plots/team_accuracy_{protocol}.png"
            P.team_bars(table, protocol, out_dir / name)
            images[f"bars:{protocol}"] = name
        result.files += sorted(images.values())

    md = [f"# Cross-Team Validation report\n\n{len(runset.runs)} runs read from `{runs_dir}`. "
          "Accuracies (%) are recomputed from each run's predictions; VTG = val acc - test acc. "
          f"Std with ddof={ddof}.\n"]
    md.append("## Runs\n\n" + markdown_table(
        ["Protocol", "Arch", "Fold", "Layout", "Val images", "Test images", "Val acc", "Test acc", "VTG"],
        [[r.protocol, r.arch, r.fold, r.layout, r.n_val, r.n_test, fmt(100 * r.val_acc, digits),
          fmt(100 * r.test_acc, digits), fmt(100 * r.vtg, digits)] for r in runset.runs]))
    md.append("## Per-team tables\n\n" + per_team_tables(table, summary, digits))
    for protocol in table.protocols():
        if f"bars:{protocol}" in images:
            md.append(f"![{protocol} per-team accuracy]({images[f'bars:{protocol}']})\n")
    md.append("## Summary\n\n" + summary_tables(summary, digits))
    if "vtg" in images:
        md.append(f"![VTG distribution]({images['vtg']})\n")
    if matrices:
        md.append("## TOTO cross-team matrices\n\nRows: training team; columns: test team; accuracy in %. "
                  "The diagonal (marked *) is the team's own validation accuracy and is left out of the means "
                  "and ranges.\n")
        for m in matrices:
            header, rows = matrix_rows(m, digits)
            md.append(f"### {m.arch}\n\n" + markdown_table(header, rows))
            if f"heatmap:{m.arch}" in images:
                md.append(f"![{m.arch} cross-team heatmap]({images[f'heatmap:{m.arch}']})\n")
    if result.warnings:
        md.append("## Warnings\n\n" + "\n".join(f"> {w}" for w in result.warnings) + "\n")
    text = "\n".join(md)
    write("report.md", text)
    from scoring.ctv.markdown_html import to_html

    write("report.html", to_html(text, out_dir, "Cross-Team Validation report"))
    return result
