"""``agrieval ctv report``: from run folders to report.md / report.html.

Reads one or several folders (agrieval runs folders and public AgrI script
output trees, side by side) and writes into the output folder (each file
atomically):

* ``runs.csv`` one row per run (accuracies in percent recomputed from the
  predictions, 10 decimals);
* ``cross_check.csv`` every number the runs stored about themselves against the
  recomputed one (``agrieval.scoring.ctv._cross_check``);
* ``team_accuracy.csv`` one row per (run, test team);
* ``results.csv`` the per-team table in ``ctv summarize``'s input format (with several seeds, each team's
  mean over its seeds: the paper's rule, whose tables stay exactly those of one seed);
* ``split_accuracy.csv`` train/val/test mean and std per protocol and arch
  (the paper's Figs 4 and 10); ``learning_curves.csv`` per epoch (Figs 5 and 11);
* ``over_seeds.csv`` per (protocol, arch, selection rule, metric) the mean, standard error and 95 %
  Student-t interval over replicate seeds (``agrieval.scoring.ctv._over_seeds``: test/val accuracy, VTG,
  the gap to the paper's rule, worst target team and worst class accuracy);
* ``team_over_seeds.csv`` every cell of the per-team tables and the cross-team matrices: its seeds' count,
  mean, standard error, std (ddof 1) and 95 % Student-t half-width (``agrieval.scoring.ctv._spread``; the
  tables show mean ± the ``--spread`` one);
* ``on_the_line.csv`` the (val, test) accuracy of every run and epoch, fitted on probit axes
  (``agrieval.scoring.ctv._on_the_line``);
* ``summary.json`` the ``ctv summarize`` statistics plus the above and the
  Pearson r between architectures' TOTO matrices (stable names: docs/ctv_reporting.md);
* ``cross_team_<arch>.csv`` the TOTO matrices with row/column means and ranges;
* ``plots/*.png`` with ``--plots``; ``report.md`` and ``report.html`` (images embedded).

Every std states its ddof; by default TOTO uses 0 and LOTO 1, as the paper's
Tables 6 and 7 (``agrieval.scoring.ctv.summarize.PAPER_DDOF``).

Every file is checked by ``agrieval.scoring.writing.policy`` before the first is
written: an existing one is refused unless ``--overwrite``, none may be a
file the report reads, and none may lie inside a run folder (also through a
link): ``output_in_source``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agrieval.scoring.ctv import _paper_figures as paper_figures
from agrieval.scoring.ctv import _plots as P
from agrieval.scoring.ctv._cross_check import summary_line
from agrieval.scoring.ctv._on_the_line import fit_lines, line_points
from agrieval.scoring.ctv._over_seeds import lacking_warnings, over_seeds
from agrieval.scoring.ctv._records import Records, values
from agrieval.scoring.ctv._seed_sections import on_the_line_section, over_seeds_rows, over_seeds_section
from agrieval.scoring.ctv._selection_rules import PAPER_RULE, rules_for
from agrieval.scoring.ctv._spread import DEFAULT as DEFAULT_SPREAD
from agrieval.scoring.ctv._spread import SPREADS, caption, seed_stats
from agrieval.scoring.ctv._spread import cell as spread_cell
from agrieval.scoring.ctv._summary_markdown import format_pvalue, per_team_tables, summary_tables
from agrieval.scoring.ctv.cross_team_matrix import CrossTeamMatrix, toto_matrices
from agrieval.scoring.ctv.results_table import ResultsTable
from agrieval.scoring.ctv.run_set import RunSet, read_runs
from agrieval.scoring.ctv.runs import SPLITS
from agrieval.scoring.ctv.summarize import Summary, json_safe, summarize
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.runtime.metrics.multiclass import validation_test_gap
from agrieval.scoring.text import markdown as md_text
from agrieval.scoring.text.markdown_html import to_html
from agrieval.scoring.text.tables import csv_text, fmt, markdown_table
from agrieval.scoring.writing.figures import FigureFormat
from agrieval.scoring.writing.policy import OutputPlan

_FULL = 10  # decimals of the CSV outputs: enough to compare with stored numbers at 1e-9


def _slug(text: str) -> str:
    """A file-name part for an arch: letters, digits and ``-_.``; a long name is cut and keeps a hash of the
    whole (names come from run files: a 300-character arch must not make a name the file system refuses)."""
    slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
    if len(slug.encode("utf-8")) <= 80:
        return slug

    head = slug.encode("utf-8")[:64].decode("utf-8", "ignore")
    return f"{head}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def _matrix_rows(m: CrossTeamMatrix, digits: int, spread: str | None = None) -> tuple[list[str], list[list]]:
    """The matrix as table rows; ``spread``: a cell of several seeds shows mean ± that spread
    (``agrieval.scoring.ctv._spread``), None: the means alone (the CSV, whose spreads are in team_over_seeds.csv)."""
    header = [md_text.Markdown("training \\ test")] + m.teams + ["row mean", "row range"]
    rows = []
    rmean, rrange = m.row_mean(), m.row_range()

    def number(i: int, j: int) -> str:
        values = m.seed_values(i, j)
        return fmt(m.values[i, j], digits) if spread is None or len(values) < 2 else \
            spread_cell(seed_stats(values), spread, digits)

    for i, team in enumerate(m.teams):
        # numbers and our diagonal mark: Markdown as they stand (the team names are escaped)
        cells = [md_text.Markdown(number(i, j) + ("*" if i == j and v == v else "")) for j, v in enumerate(m.values[i])]
        rows.append([team] + cells + [fmt(rmean[i], digits), fmt(rrange[i], digits)])
    rows.append(["column mean"] + [fmt(v, digits) for v in m.col_mean()] + ["", ""])
    rows.append(["column range"] + [fmt(v, digits) for v in m.col_range()] + ["", ""])
    return header, rows


def _mean_std_cell(stat: dict, digits: int) -> str:
    if not stat["n_runs"]:
        return ""
    std = fmt(stat["std"], digits)
    return f"{fmt(stat['mean'], digits)} ± {std}" if std else fmt(stat["mean"], digits)


def _planned_files(study: _ReportResult, plots: bool, figures: FigureFormat | None = None) -> list[str]:
    """Every file ``build_report`` writes, known before the first is written (the output policy checks them all)."""
    names = ["runs.csv", "cross_check.csv", "team_accuracy.csv", "results.csv", "split_accuracy.csv",
             "learning_curves.csv", "over_seeds.csv", "team_over_seeds.csv", "on_the_line.csv", "summary.json"]
    names += [f"cross_team_{_slug(m.arch)}.csv" for m in study.matrices]
    names += [name for _, name, _, _ in _figures(study, figures or FigureFormat(), 2)] if plots else []
    return names + ["report.md", "report.html"]


def build_report(runs_dirs: str | Path | Sequence[str | Path], out_dir: Path, *, plots: bool = False,
                 ddof: int | dict | None = None, threshold: float = 95.0, digits: int = 2,
                 progress: Callable[[str], None] | None = None, plan: OutputPlan | None = None,
                 figure_format: FigureFormat | None = None, lodo: str | Path | None = None,
                 spread: str = DEFAULT_SPREAD) -> _ReportResult:
    """Read the runs and compute every number, claim every output before the first is written, then write the
    CSV and JSON tables, the plots (``plots``) and the report pages (module docstring: what each file holds).
    ``lodo``: the held-out runs of leave-one-team-out selection (``agrieval.scoring.ctv.run_set``);
    ``spread``: what follows ± in the tables and bars of means over seeds (``agrieval.scoring.ctv._spread``)."""
    if spread not in SPREADS:
        raise ValueError(f"spread must be one of {', '.join(SPREADS)}, not {spread!r}")
    dirs = [runs_dirs] if isinstance(runs_dirs, (str, Path)) else list(runs_dirs)
    study = _compute(dirs, ddof, threshold, progress, lodo, spread)
    figures = figure_format or FigureFormat()
    out_dir = _claim_outputs(plan or OutputPlan(), dirs + ([lodo] if lodo is not None else []), study, out_dir,
                             plots, figures)

    def write(name: str, text: str) -> None:
        write_text(out_dir / name, text)
        study.files.append(name)

    _write_tables(write, study)
    images = _write_plots(out_dir, study, figures, digits) if plots else {}
    study.files += sorted(images.values())
    text = _markdown(dirs, study, images, digits, study.warnings)
    write("report.md", text)

    # Only the figures written above are embedded: never a path named by the Markdown text.
    write("report.html", to_html(text, "Cross-Team Validation report",
                                 images={name: out_dir / name for name in images.values()}))
    return study


@dataclass
class _ReportResult:
    """Every number the report shows, computed before anything is written, and the files written."""

    runset: RunSet
    table: ResultsTable
    summary: Summary
    matrices: list[CrossTeamMatrix]
    points: list[dict]  # (val, test) accuracy of every run and epoch: the accuracy-on-the-line fit's input
    extra: dict  # split_accuracy, learning_curves, matrix_correlation, selection rules, over_seeds,
    #              accuracy_on_the_line, cross_check, spread (summary.json beside summary)
    files: list[str] = field(default_factory=list)

    @property
    def records(self) -> Records:
        return self.runset.records

    @cached_property
    def runs(self) -> list[dict]:
        return self.records.per_run()

    @property
    def warnings(self) -> list[str]:
        """All the report's warnings: the runs', the held-out runs', the rules' and the statistics'."""
        return self.runset.warnings + self.summary.warnings

    def as_dict(self) -> dict:
        return {"n_runs": len(self.runs), "files": self.files,
                "summary": self.summary.as_dict() | json_safe(self.extra), "warnings": self.warnings}


def _compute(dirs: list, ddof: int | dict | None, threshold: float, progress: Callable[[str], None] | None,
             lodo: str | Path | None = None, spread: str = DEFAULT_SPREAD) -> _ReportResult:
    runset: RunSet = read_runs(dirs, progress, lodo)
    rec = runset.records
    table = runset.results_table()
    summary = summarize(table, ddof=ddof, threshold=threshold)
    points = line_points(rec)
    matrices = toto_matrices(rec)
    seeds = over_seeds(rec)
    runset.warnings += lacking_warnings(seeds)  # the report's Warnings and summary.json's name those runs
    extra = {"split_accuracy": paper_figures.split_accuracy(rec, summary.ddof),
             "learning_curves": paper_figures.learning_curves(rec, summary.ddof),
             "matrix_correlation": paper_figures.matrix_correlation(matrices),
             "selection_rules": rules_for(rec.frame), "paper_rule": PAPER_RULE,
             "over_seeds": seeds,
             "accuracy_on_the_line": {"fits": fit_lines(points)},
             "cross_check": {"n_checked": len(runset.checks), "n_disagree": sum(not c.ok for c in runset.checks)},
             "spread": spread}
    return _ReportResult(runset, table, summary, matrices, points, extra)


def _claim_outputs(plan: OutputPlan, dirs: list, study: _ReportResult, out_dir: Path, plots: bool,
                   figures: FigureFormat) -> Path:
    """The output folder and every file to write in it, checked by the output policy (module docstring)."""
    plan.add_sources(*dirs)  # the run folders are other people's outputs: nothing is written among them
    plan.add_inputs(*study.runset.files)  # every file the reader read
    out_dir = plan.claim_dir(out_dir, what="report folder")
    planned = _planned_files(study, plots, figures)
    plan.claim_all([out_dir / n for n in planned], what="report file")
    return out_dir


def _write_tables(write: Callable[[str, str], None], study: _ReportResult) -> None:
    """runs.csv, cross_check.csv, team_accuracy.csv, results.csv, split_accuracy.csv, learning_curves.csv,
    summary.json and one cross_team_<arch>.csv per matrix, every number with ``FULL`` decimals."""
    checks, extra = study.runset.checks, study.extra
    write("runs.csv", csv_text(
        ["protocol", "arch", "arch_as_written", "fold", "seed", "layout", "n_train", "n_val", "n_test", "train_acc",
         "val_acc", "test_acc", "vtg", "source"],
        [[r["protocol"], r["arch"], r["arch_raw"], r["fold"], "" if r["seed"] is None else r["seed"], r["layout"],
          *_run_cells(r, _FULL), r["source"]] for r in study.runs]))
    write("cross_check.csv", csv_text(["file", "quantity", "stored", "recomputed", "difference", "agrees"],
                                      [c.cells() + ["yes" if c.ok else "no"] for c in checks]))
    teams = study.records.team_cells()
    write("team_accuracy.csv", csv_text(["protocol", "arch", "fold", "test_team", "n_images", "accuracy"],
                                        [[*row[:5], fmt(row[5], _FULL)] for row in zip(
                                            *(values(teams, c) for c in ("protocol", "arch", "fold", "team", "n",
                                                                         "acc")))]))
    write("results.csv", csv_text(["protocol", "arch", "team", "val_acc", "test_acc"],
                                  [[t.protocol, t.arch, t.team, fmt(t.val_acc, _FULL), fmt(t.test_acc, _FULL)]
                                   for t in study.table.rows]))
    write("split_accuracy.csv", csv_text(
        ["protocol", "arch", "split", "n_runs", "mean", "std", "ddof"],
        [[g["protocol"], g["arch"], s, g[s]["n_runs"], fmt(g[s]["mean"], _FULL), fmt(g[s]["std"], _FULL), g["ddof"]]
         for g in extra["split_accuracy"] for s in SPLITS]))
    write("learning_curves.csv", csv_text(
        ["protocol", "arch", "epoch", "split", "n_runs", "mean", "std", "ddof"],
        [[g["protocol"], g["arch"], g["epoch"], s, g[s]["n_runs"], fmt(g[s]["mean"], _FULL), fmt(g[s]["std"], _FULL),
          g["ddof"]] for g in extra["learning_curves"] for s in SPLITS if g[s]["n_runs"]]))
    write("over_seeds.csv", csv_text(
        ["protocol", "arch", "rule", "metric", "n_seeds", "mean", "se", "ci_low", "ci_high", "level", "interval"],
        over_seeds_rows(extra["over_seeds"], _FULL)))
    write("team_over_seeds.csv", csv_text(
        ["protocol", "arch", "team", "test_team", "metric", "n_seeds", "mean", "se", "std", "ci95"],
        _team_over_seeds_rows(study)))
    write("on_the_line.csv", csv_text(["protocol", "arch", "fold", "seed", "epoch", "val_acc", "test_acc"],
                                      [[p["protocol"], p["arch"], p["fold"], "" if p["seed"] is None else p["seed"],
                                        "" if p["epoch"] is None else p["epoch"], fmt(p["val"], _FULL),
                                        fmt(p["test"], _FULL)] for p in study.points]))
    write("summary.json", json.dumps(study.summary.as_dict() | json_safe(extra) | {"warnings": study.warnings},
                                     indent=2, sort_keys=True)
          + "\n")
    for m in study.matrices:
        header, rows = _matrix_rows(m, _FULL)
        write(f"cross_team_{_slug(m.arch)}.csv", csv_text(header, [[c.rstrip("*") for c in r] for r in rows]))


def _team_over_seeds_rows(study: _ReportResult) -> list[list]:
    """``team_over_seeds.csv``: every mean over seeds the per-team tables and the matrices show, with all three
    spreads (``test_team`` empty: a per-team table's cell; else a cross-team cell, ``own_val_acc`` its diagonal)."""
    def row(protocol, arch, team, test_team, metric, values):
        s = seed_stats(values)
        return [protocol, arch, team, test_team, metric, s["n_seeds"]] + [fmt(s[k], _FULL)
                                                                          for k in ("mean", "se", "std", "ci95")]

    rows = [row(t.protocol, t.arch, t.team, "", metric, t.seed_values(metric))
            for t in study.table.rows for metric in ("val_acc", "test_acc", "vtg")]
    for m in study.matrices:
        rows += [row("TOTO", m.arch, a, b, "own_val_acc" if i == j else "cross_team_acc", m.seed_values(i, j))
                 for i, a in enumerate(m.teams) for j, b in enumerate(m.teams) if m.seed_values(i, j)]
    return rows


def _figures(study: _ReportResult, figures: FigureFormat, digits: int) -> list[tuple]:
    """Every figure of the report: (what it shows, its file name, the ``plots`` function drawing it, its arguments)."""
    table, extra, spread = study.table, study.extra, study.extra["spread"]
    scale = P.shared_scale(study.matrices)  # one colour scale: the architectures' heatmaps compare by colour
    out = [(f"heatmap:{m.arch}", f"plots/cross_team_{_slug(m.arch)}", P.draw_heatmap, (m, scale, digits, spread))
           for m in study.matrices]
    out.append(("vtg", "plots/vtg_distribution", P.draw_vtg_distribution, (table,)))
    out += [(f"bars:{p}", f"plots/team_accuracy_{p}", P.draw_team_bars, (table, p, spread)) for p in table.protocols()]
    out.append(("splits", "plots/split_accuracy", P.draw_split_bars, (extra["split_accuracy"],)))
    if extra["learning_curves"]:
        out.append(("curves", "plots/learning_curves", P.draw_learning_curves, (extra["learning_curves"],)))
    out.append(("line", "plots/accuracy_on_the_line", P.draw_on_the_line,
                (study.points, extra["accuracy_on_the_line"]["fits"])))
    return [(key, figures.name(stem), draw, args) for key, stem, draw, args in out]


def _write_plots(out_dir: Path, study: _ReportResult, figures: FigureFormat, digits: int) -> dict[str, str]:
    """Every figure, written under ``plots/``; returns {what it shows: its file name} for the report pages."""
    images = {}
    for key, name, draw, args in _figures(study, figures, digits):
        P.write(draw, out_dir / name, figures, *args)
        images[key] = name
    return images


def _markdown(dirs: list, study: _ReportResult, images: dict[str, str], digits: int, warnings: list[str]) -> str:
    """report.md: its sections in order, each figure under the table it draws.
    Every name below comes from the run files: text, never markup (agrieval.scoring.text.markdown)."""
    runs, extra = study.runs, study.extra
    seeded = study.runset.seeds_per_fold() > 1  # replicates (the two layouts side by side are not)
    md = [_opening(dirs, study, seeded), _checks_section(study.runset.checks), _runs_section(runs, digits, seeded),
          _splits_section(extra["split_accuracy"], digits)]
    if "splits" in images:
        md.append(f"![Train, val and test accuracy]({images['splits']})\n")
    md.append(_curves_section(extra["learning_curves"], study, digits))
    if "curves" in images:
        md.append(f"![Mean learning curves]({images['curves']})\n")
    md.append("## Per-team tables\n\n" + per_team_tables(study.table, study.summary, digits, extra["spread"]))
    for protocol in study.table.protocols():
        if f"bars:{protocol}" in images:
            md.append(f"![{md_text.text(protocol)} per-team accuracy]({images[f'bars:{protocol}']})\n")
    md.append("## Summary\n\n" + summary_tables(study.summary, digits))
    if "vtg" in images:
        md.append(f"![VTG distribution]({images['vtg']})\n")
    if study.matrices:
        md += _matrices_section(study.matrices, extra["matrix_correlation"], images, digits, extra["spread"])
    md.append(over_seeds_section(extra["over_seeds"], study.summary, digits, extra["spread"]))
    md.append(on_the_line_section(extra["accuracy_on_the_line"]["fits"], len(study.points), digits))
    if "line" in images:
        md.append(f"![Accuracy on the line]({images['line']})\n")
    if warnings:
        md.append("## Warnings\n\n" + "\n".join(f"> {md_text.text(w)}" for w in warnings) + "\n")
    return "\n".join(md)


def _opening(dirs: list, study: _ReportResult, seeded: bool) -> str:
    runs = study.runs
    ddofs = ", ".join(f"{p} ddof={d}" for p, d in study.summary.ddof.items())
    layouts = sorted({r["layout"] for r in runs})
    renamed = sorted({f"{md_text.code(r['arch_raw'])} → {md_text.code(r['arch'])}" for r in runs
                      if r["arch_raw"] != r["arch"]})
    text = (f"# Cross-Team Validation report\n\n{len(runs)} runs read from "
            + ", ".join(md_text.code(d) for d in dirs) + f" (layouts: {', '.join(layouts)}). "
            "Accuracies (%) are recomputed from each run's predictions as 100 × correct / images; "
            f"VTG = val acc − test acc. Every std is sqrt(Σ(x − mean)² / (n − ddof)) with {ddofs} "
            "(the paper's Table 6 used ddof 0, its Table 7 ddof 1). "
            f"Model selection: every number is under the **{PAPER_RULE}** rule (each run's epoch with the best "
            "validation accuracy on its training team(s), the paper's) unless its table names another rule; "
            "the rules side by side are in *Replicates, selection rules and worst groups*."
            + (f" With up to {study.runset.seeds_per_fold()} seeds per fold: the per-team tables, the matrices and "
               "the Summary use each team's mean over its seeds; the Runs table lists every run, and the "
               "train/val/test and learning-curve tables are over all runs (folds × seeds)." if seeded else "")
            + "\n")
    if renamed:
        text += "\nArchitecture names in one vocabulary: " + ", ".join(renamed) + ".\n"
    return text


def _checks_section(checks: list) -> str:
    text = ("## Numbers stored by the runs\n\n" + summary_line(checks) + " Every check is in "
            "`cross_check.csv`.\n")
    bad = [c for c in checks if not c.ok]
    if bad:
        text += "\n" + markdown_table(["File", "Quantity", "Stored", "Recomputed", "Difference"],
                                       [c.cells() for c in bad])
    return text


def _runs_section(runs: list, digits: int, seeded: bool) -> str:
    seed_col = ["Seed"] if seeded else []  # a one-seed report keeps the paper's columns
    return "## Runs\n\n" + _RUNS_COLUMNS + "\n\n" + markdown_table(
        ["Protocol", "Arch", "Fold", *seed_col, "Layout", "Train images", "Val images", "Test images", "Train acc",
         "Val acc", "Test acc", "VTG"],
        [[r["protocol"], r["arch"], r["fold"], *([r["seed"]] if seeded else []), r["layout"],
          *_run_cells(r, digits, no_train=_NO_TRAIN)] for r in runs])


def _run_cells(r: dict, digits: int, no_train=0) -> list:
    """A run's images per split (train 0: ``no_train``), accuracy per split and VTG."""
    return [r["n"]["train"] or no_train, r["n"]["val"], r["n"]["test"], *(fmt(r["acc"][s], digits) for s in SPLITS),
            fmt(validation_test_gap(r["acc"]["val"], r["acc"]["test"]), digits)]


def _splits_section(split_accuracy: list[dict], digits: int) -> str:
    return ("## Train, val and test accuracy (the paper's Figs 4 and 10)\n\nMean ± std over the runs of each "
            "protocol and architecture; train = the train split predicted after training.\n\n" + markdown_table(
                ["Protocol", "Arch", "Runs", "Train", "Val", "Test", "ddof"],
                [[g["protocol"], g["arch"], g["test"]["n_runs"]]
                 + [_mean_std_cell(g[s], digits) or f"no {s} predictions" for s in SPLITS]
                 + [g["ddof"]] for g in split_accuracy]))


def _matrices_section(matrices: list[CrossTeamMatrix], correlation: list[dict], images: dict[str, str],
                      digits: int, spread: str) -> list[str]:
    counts = {len(m.seed_values(i, j)) for m in matrices for i in range(len(m.teams)) for j in range(len(m.teams))}
    md = ["## TOTO cross-team matrices\n\nRows: training team; columns: test team; accuracy in %. "
          "The diagonal (marked *) is the team's own validation accuracy and is left out of the means "
          f"and ranges. {caption(spread, counts - {0})} Row and column means and ranges: over the cells' "
          "means.\n"]
    for m in matrices:
        header, rows = _matrix_rows(m, digits, spread)
        md.append(md_text.heading(3, m.arch) + "\n\n" + markdown_table(header, rows))
        if f"heatmap:{m.arch}" in images:
            md.append(f"![{md_text.text(m.arch)} cross-team heatmap]({images[f'heatmap:{m.arch}']})\n")
    if correlation:
        md.append("### Agreement of the architectures' matrices\n\nPearson r over the off-diagonal cells both "
                  "matrices have (the paper reports 0.95), two-sided p from scipy.\n\n" + markdown_table(
                      ["Arch A", "Arch B", "Cells", "Pearson r", "p"],
                      [[c["arch_a"], c["arch_b"], c["n_cells"], fmt(c["pearson"]), format_pvalue(c["pvalue"])]
                       for c in correlation]))
    return md


_NO_TRAIN = "no train predictions"  # a run without train-split predictions has no train count, not 0 images
_RUNS_COLUMNS = ("Columns: **Protocol** TOTO (train on one team) or LOTO (leave one team out); **Arch** the "
                "architecture; **Fold** the team the run is named for (TOTO: its training team, LOTO: its held-out "
                "team); **Seed** (only with several seeds) the base seed the run recorded; **Layout** which "
                "files the run was read from (`agrieval` baselines or `agri_script`, the "
                "public script's outputs); **Train images**, **Val images**, **Test images** the images with a "
                f"prediction in that split (\"{_NO_TRAIN}\": the run wrote none for the train split, so its train "
                "accuracy is blank); **Train acc**, **Val acc**, **Test acc** 100 × correct / images of that split, in %; "
                "**VTG** val acc − test acc, in points.")


def _curves_section(curves: list[dict], study: _ReportResult, digits: int) -> str:
    with_history = set(values(study.records.epochs(), "run"))
    no_history = [r for r in study.runs if r["run"] not in with_history]
    head = "## Mean learning curves (the paper's Figs 5 and 11)\n\n"
    note = ""
    if no_history:
        script = sum(r["layout"] == "agri_script" for r in no_history)
        note = (f"{len(no_history)} runs have no per-epoch history"
                + (f" ({script} of the public script, which logs it to Weights & Biases only)" if script else "")
                + ".\n\n")
    if not curves:
        return head + (note or "No run has a per-epoch history.\n")
    rows = [[g["protocol"], g["arch"], g["epoch"], g["test"]["n_runs"] or g["val"]["n_runs"]]
            + [_mean_std_cell(g[s], digits) for s in SPLITS] for g in curves]
    return (head + note + "Mean ± std over the runs that reached each epoch; train = running accuracy during the "
            "epoch; test only for runs made with `--eval-test-every-epoch`.\n\n"
            + markdown_table(["Protocol", "Arch", "Epoch", "Runs", "Train", "Val", "Test"], rows))
