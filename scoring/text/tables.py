"""Rendering of output tables: stable numbers, safe cells, CSV and Markdown.

Every table written by the leaderboard, rank-agreement and CTV commands goes
through here so that the same inputs give the same bytes, and so that a
submission name such as ``=HYPERLINK(...)`` can never become a live formula
when an organizer opens the CSV in a spreadsheet.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence

# Imported inside functions, so that importing this module loads only what it needs: scoring.text.markdown
# (`agrieval score` does not need them).

# A spreadsheet evaluates a cell starting with one of these as a formula
# (OWASP "CSV injection"); tab and carriage return start one in some programs.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def safe_cell(text: object) -> str:
    """Prefix a single quote to text a spreadsheet would evaluate as a formula.

    A plain number such as ``-1`` or ``+0.5`` is left alone: a spreadsheet reads
    it as a number, not a formula. Anything else starting with = + - @ is quoted.
    """
    s = "" if text is None else str(text)
    if s.startswith(_FORMULA_START) and not _PLAIN_NUMBER.match(s):
        return "'" + s
    return s


def fmt(x: float | int | None, digits: int = 4) -> str:
    """Fixed-point text for a number: ``fmt(0.5) == '0.5000'``; NaN/None -> ``''``.

    ``-0.0000`` is written ``0.0000`` so that platform rounding noise never
    changes the bytes of a table.
    """
    if x is None:
        return ""
    x = float(x)
    if math.isnan(x):
        return ""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = f"{x:.{digits}f}"
    if s.startswith("-") and float(s) == 0.0:
        s = s[1:]
    return s


def json_number(x: float | None, digits: int = 10) -> float | None:
    """Round for JSON output (stable across platforms); NaN becomes null."""
    if x is None:
        return None
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return None
    r = round(x, digits)
    return 0.0 if r == 0 else r


def csv_text(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """CSV with ``\\n`` line ends; text cells are neutralised, numbers kept."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([safe_cell(h) for h in header])
    for row in rows:
        w.writerow([c if isinstance(c, (int, float)) and not isinstance(c, bool) else safe_cell(c) for c in row])
    return buf.getvalue()


def _md_cell(value: object) -> str:
    from agrieval.scoring.text import markdown

    if isinstance(value, markdown.Markdown):  # our own markup (bold row labels)
        return value
    # escaped: text, never markup. The spreadsheet formula guard is CSV's (csv_text): here its apostrophe would
    # only be shown, in front of every negative cell such as '-1.43 ± 0.20'
    return markdown.text("" if value is None else str(value))


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]],
                   align: Sequence[str] | None = None) -> str:
    """A GitHub Markdown table; ``align`` holds 'l' or 'r' per column (default: l then r).

    Every cell is text (``agrieval.scoring.text.markdown.text``) unless it is ``agrieval.scoring.text.markdown.Markdown``.
    """
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = [":---" if a == "l" else "---:" for a in align]
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "| " + " | ".join(sep) + " |"]
    for row in rows:
        lines.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"
