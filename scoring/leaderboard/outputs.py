"""leaderboard.csv / .json / .md from a ``Leaderboard``.

Names come from file names a participant chose: they are neutralised
(``agrieval.scoring.text.tables.safe_cell``) in CSV and Markdown, and are text, never
markup, in Markdown (``agrieval.scoring.text.markdown``); JSON keeps them verbatim. Numbers are fixed-point (CSV, Markdown) or rounded to 10
decimals (JSON), so the same inputs give the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from agrieval.scoring.leaderboard._marks import DESCRIPTIONS
from agrieval.scoring.leaderboard.build import SCHEMA_VERSION, Leaderboard, SplitScore
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.text import markdown
from agrieval.scoring.text.tables import csv_text, fmt, json_number, markdown_table


def _split_dict(s: SplitScore | None) -> dict | None:
    if s is None:
        return None
    d = {"score": json_number(s.score), "ci_low": json_number(s.ci_low), "ci_high": json_number(s.ci_high),
         "rank": s.rank}
    if s.vs_leader is not None:
        v = s.vs_leader
        d["vs_leader"] = {"gap": json_number(v.delta), "ci_low": json_number(v.ci_low),
                          "ci_high": json_number(v.ci_high), "p_value": json_number(v.p_value),
                          "significant": v.significant}
    return d


def to_dict(board: Leaderboard) -> dict:
    entries = []
    for e in board.scored:
        d = {"name": e.name, "file": e.file, "public": _split_dict(e.public), "n_warnings": e.n_warnings}
        if e.marks:
            d["marks"] = list(e.marks)
        if board.reveal_private:
            d["private"] = _split_dict(e.private)
            d["rank_shift"] = e.rank_shift
        entries.append(d)
    out = {"schema_version": SCHEMA_VERSION, "competition": board.competition, "metric": board.metric,
           "bootstrap": {"unit": board.unit, "unit_name": board.unit_name, "n_units": board.n_units,
                         "n_resamples": board.n_resamples, "seed": board.seed, "confidence": board.confidence,
                         "alpha": board.alpha, "test": "paired bootstrap vs leader, one-sided"},
           "entries": entries,
           "rejected": [{"name": e.name, "file": e.file, "errors": e.errors} for e in board.rejected]}
    if board.reveal_private:
        agr = dict(board.agreement or {})
        for k in ("spearman", "pearson", "kendall"):
            if k in agr:
                agr[k] = {kk: json_number(vv) for kk, vv in agr[k].items()}
        out["public_private_agreement"] = agr
        out["largest_rank_shifts"] = [{"name": e.name, "public_rank": e.public.rank, "private_rank": e.private.rank,
                                       "rank_shift": e.rank_shift} for e in board.largest_shifts()]
    return out


def _gap_cells(s: SplitScore | None) -> list[str]:
    if s is None or s.vs_leader is None:
        return ["", "", "", "", ""]
    v = s.vs_leader
    return [fmt(v.delta), fmt(v.ci_low), fmt(v.ci_high), f"{v.p_value:.4f}", "yes" if v.significant else "no"]


def to_csv(board: Leaderboard) -> str:
    header = ["rank", "name", "public_score", "public_ci_low", "public_ci_high", "gap_to_leader", "gap_ci_low",
              "gap_ci_high", "p_value", "gap_is_real"]
    if board.reveal_private:
        header += ["private_score", "private_ci_low", "private_ci_high", "private_rank", "rank_shift"]
    header += ["status", "error_codes"] + (["marks"] if board.marked else [])
    rows = []
    for e in board.entries:
        if e.status == "scored":
            row = [e.public.rank, e.name, fmt(e.public.score), fmt(e.public.ci_low), fmt(e.public.ci_high),
                   *_gap_cells(e.public)]
            if board.reveal_private:
                p = e.private
                row += [fmt(p.score), fmt(p.ci_low), fmt(p.ci_high), p.rank, e.rank_shift] if p else [""] * 5
            row += ["scored", ""]
        else:
            row = ["", e.name] + [""] * 8 + ([""] * 5 if board.reveal_private else [])
            row += [e.status, " ".join(sorted({x["code"] for x in e.errors}))]
        if board.marked:
            row.append(" ".join(e.marks))
        rows.append(row)
    return csv_text(header, rows)


def _score_ci(s: SplitScore | None) -> str:
    if s is None:
        return ""
    if s.ci_low != s.ci_low:  # no bootstrap
        return fmt(s.score)
    # numbers only: Markdown as it stands (no escaped brackets in the table)
    return markdown.Markdown(f"{fmt(s.score)} [{fmt(s.ci_low)}, {fmt(s.ci_high)}]")


def _p(p: float | None) -> str:
    if p is None or p != p:
        return ""
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"


def _shift(n: int | None) -> str:
    return "" if n is None else (f"+{n}" if n > 0 else str(n))


def to_markdown(board: Leaderboard) -> str:
    pct = f"{board.confidence:.0%}"
    lines = [f"# Leaderboard: {markdown.text(board.competition)}\n",
             f"Metric {markdown.code(board.metric)}, higher is better. Intervals: {pct} percentile bootstrap over "
             f"{markdown.text(board.unit_name)}s ({board.n_resamples} resamples, seed {board.seed}). Gap: leader minus "
             f"submission on the same resamples; a gap is *real* when the one-sided paired bootstrap "
             f"p < {board.alpha}.\n"]
    header = ["Rank", "Submission", f"Public ({pct} CI)", "Gap to leader", "p", "Real gap?"]
    if board.reveal_private:
        header += [f"Private ({pct} CI)", "Private rank", "Shift"]
    if board.marked:
        header.append("Marks")
    rows = []
    for e in board.scored:
        gap = _gap_cells(e.public)
        row = [e.public.rank, e.name, _score_ci(e.public), gap[0], gap[3], gap[4]]
        if board.reveal_private:
            row += [_score_ci(e.private), e.private.rank if e.private else "", _shift(e.rank_shift)]
        if board.marked:
            row.append(", ".join(e.marks))
        rows.append(row)
    align = ["r", "l"] + ["r"] * (len(header) - 2 - board.marked) + (["l"] if board.marked else [])
    lines.append(markdown_table(header, rows, align=align))
    if board.marked:
        used = sorted({m for e in board.entries for m in e.marks})
        lines.append("\nMarks: " + "; ".join(f"*{m}*: {DESCRIPTIONS[m]}" for m in used) + ".\n")
    if board.reveal_private and board.agreement:
        a = board.agreement
        if "spearman" in a:
            lines.append(f"\n## Public vs private ranking ({a['n']} submissions)\n")
            lines.append(markdown_table(["Statistic", "Value", "p-value"],
                                        [[k.capitalize() + (" rho" if k == "spearman" else " tau" if k == "kendall"
                                                            else " r"),
                                          fmt(a[k]["statistic"]), _p(a[k]["pvalue"])]
                                         for k in ("spearman", "kendall", "pearson")]))
        else:
            lines.append(f"\n{a['note']}\n")
        shifts = board.largest_shifts()
        if shifts:
            lines.append("\nLargest rank shifts (public -> private):\n")
            lines.append(markdown_table(["Submission", "Public rank", "Private rank", "Shift"],
                                        [[e.name, e.public.rank, e.private.rank, _shift(e.rank_shift)]
                                         for e in shifts]))
    if board.rejected:
        lines.append(f"\n## Rejected ({len(board.rejected)})\n")
        lines.append(markdown_table(["Submission", "Codes", "First message"],
                                    [[e.name, ", ".join(sorted({x['code'] for x in e.errors})),
                                      e.errors[0]["message"] if e.errors else ""] for e in board.rejected],
                                    align=["l", "l", "l"]))
    return "\n".join(line.rstrip("\n") + "\n" for line in lines)


OUTPUT_NAMES = ("leaderboard.csv", "leaderboard.json", "leaderboard.md")


def write_outputs(board: Leaderboard, out_dir: Path) -> list[Path]:
    """Write ``OUTPUT_NAMES`` into ``out_dir`` (the command checks them against the output policy first)."""
    out_dir = Path(out_dir)
    written = []
    for name, text in (("leaderboard.csv", to_csv(board)),
                       ("leaderboard.json", json.dumps(to_dict(board), indent=2, sort_keys=True) + "\n"),
                       ("leaderboard.md", to_markdown(board))):
        write_text(out_dir / name, text)
        written.append(out_dir / name)
    return written
