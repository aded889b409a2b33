"""Plain-text renderings of reports for the terminal (JSON is ``ScoreReport.to_json``)."""

from __future__ import annotations

from agrieval.scoring.text.tables import fmt as _fmt
from agrieval.scoring.runtime.report import ScoreReport
from agrieval.scoring.text.terminal import one_line


def fmt(x: float | None, digits: int = 4) -> str:
    """``agrieval.scoring.text.tables.fmt`` for the terminal: a visible '-' where a table file leaves the cell empty."""
    return _fmt(x, digits) or "-"


def render_problems(report: ScoreReport) -> str:
    out = []
    for kind, items in (("error", report.errors), ("warning", report.warnings)):
        for p in items:
            where = p.file or ""
            if p.line is not None:
                where += f":{p.line}" + (f":{p.column}" if p.column is not None else "")
            # a file name is the participant's choice: one printable line, whatever it holds
            out.append(one_line(f"{where}: {kind} [{p.code}] {p.message}" if where else f"{kind} [{p.code}] {p.message}"))
    return "\n".join(out)


def render_report(report: ScoreReport, *, submission: str = "") -> str:
    lines = [f"competition: {one_line(report.competition)}   submission: {one_line(submission)}   rows: {report.n_rows}   "
             f"status: {report.status}"]
    if report.status == "scored":
        names = list(report.metrics.public)
        splits = [("public", report.metrics.public)]
        if report.metrics.private is not None:
            splits.append(("private", report.metrics.private))
        width = max(len(n) for n in names + ["metric"]) + 2
        header = "metric".ljust(width) + "".join(s.rjust(10) for s, _ in splits)
        lines += ["", header, "-" * len(header)]
        for n in names:
            star = " *" if n == report.primary_metric else ""
            lines.append(n.ljust(width) + "".join(fmt(vals.get(n)).rjust(10) for _, vals in splits) + star)
        lines.append(f"(* primary metric: {report.primary_metric})")
        pub = report.details.get("public", {})
        if "grouping" in pub:
            g = pub["grouping"]
            lines.append(f"{g['unit']}s: {g['n_groups']} from {g['source']} (no official rule exists; see "
                         "`agrieval competitions show`)")
        if "per_group_accuracy" in pub:
            lines += ["", f"accuracy per {pub['group_unit']} (public):"]
            for name, acc in pub["per_group_accuracy"].items():
                lines.append(f"  {name:<20}{fmt(acc)}")
        if "per_class" in pub:
            lines += ["", f"{'class (public)':<16}{'precision':>10}{'recall':>10}{'f1':>10}{'support':>9}"]
            for c, s in pub["per_class"].items():
                lines.append(f"{c:<16}{fmt(s['precision']):>10}{fmt(s['recall']):>10}{fmt(s['f1']):>10}"
                             f"{s['support']:>9}")
            labels = pub["labels"]
            widths = [max(9, len(c) + 2) for c in labels]  # whole class names: never cut to 8 characters
            lines += ["", "confusion matrix (rows: true, columns: predicted):",
                      " " * 16 + "".join(f"{c:>{width}}" for c, width in zip(labels, widths))]
            for c, row in zip(labels, pub["confusion_matrix"]):
                lines.append(f"{c:<16}" + "".join(f"{v:>{width}}" for v, width in zip(row, widths)))
    problems = render_problems(report)
    if problems:
        lines += ["", problems]
    return "\n".join(lines)
