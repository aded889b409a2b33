"""``agrieval server export``: what an organizer publishes, from the store.

``leaderboard.{csv,json,md,html}`` (the per-team board of ``team_board``) and ``submissions.{csv,json,md,html}``
(every upload: team, its number, time, status, the value the team was shown, voided or not). Nothing
private unless ``reveal_private`` (the private board; the command allows it from the timeline's reveal on).
Team names and file names are the participants' text: CSV through the one formula-neutralising writer
(``agrieval.scoring.text.tables.csv_text``), Markdown and HTML escaped (``text.markdown``, ``text.html``),
JSON verbatim.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

from agrieval.scoring._server.boards import store_board, store_rows
from agrieval.scoring._server.store import Store
from agrieval.scoring._server.timeline import utc_text
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.text import html
from agrieval.scoring.text.tables import csv_text, fmt, json_number, markdown_table

# Imported inside functions, so that importing this module loads only what it needs: scoring.leaderboard.team_board
# (it loads concurrent, concurrent.futures, pandas).

__all__ = ["export", "submission_rows", "OUTPUT_NAMES", "SUBMISSION_COLUMNS"]

SUBMISSION_COLUMNS = ("team", "submission", "submitted_at", "status", "shown", "voided")
OUTPUT_NAMES = tuple(f"{stem}.{ext}" for stem in ("leaderboard", "submissions") for ext in ("csv", "json", "md", "html"))


def submission_rows(store: Store) -> List[list]:
    """One row per graded upload (refused and pending ones are not submissions), in the order received."""
    voided = {(t, n) for t, n in store.conn.execute(
        "SELECT team, number FROM uploads WHERE voided_reason IS NOT NULL AND number IS NOT NULL")}
    teams = {t for (t,) in store.conn.execute("SELECT name FROM teams WHERE voided_reason IS NOT NULL")}
    out = []
    for r in store_rows(store, include_voided=True):
        if r.status in ("refused", "selected"):
            continue
        out.append([r.team, "" if r.submission is None else r.submission, utc_text(r.submitted_at), r.status,
                    None if r.shown != r.shown else r.shown, r.team in teams or (r.team, r.submission) in voided])
    return out


def _markdown(rows: List[list]) -> str:
    cells = [[r[0], r[1], r[2], r[3], fmt(r[4]), "voided" if r[5] else ""] for r in rows]
    return "# Submissions\n\n" + markdown_table(["Team", "Submission", "Received (UTC)", "Status", "Shown", "Voided"],
                                                cells, align=["l", "r", "l", "l", "r", "l"])


def _html(rows: List[list]) -> str:
    lines = ["<!DOCTYPE html>", '<html lang="en">', '<head><meta charset="utf-8"><title>Submissions</title></head>',
             "<body>", "<h1>Submissions</h1>", "<table>", "<thead><tr>"
             + "".join(f"<th>{html.text(h)}</th>" for h in SUBMISSION_COLUMNS) + "</tr></thead>", "<tbody>"]
    for r in rows:
        cells = [r[0], r[1], r[2], r[3], fmt(r[4]), "voided" if r[5] else ""]
        lines.append("<tr>" + "".join(f"<td>{html.text(c)}</td>" for c in cells) + "</tr>")
    return "\n".join(lines + ["</tbody>", "</table>", "</body>", "</html>"]) + "\n"


def export(store: Store, definition, out_dir: Path, *, rule: str, reveal_private: bool = False) -> List[Path]:
    """Write ``OUTPUT_NAMES`` into ``out_dir`` (the command claims them through the output policy first)."""
    from agrieval.scoring._server.team_board import write_team_board

    written = write_team_board(store_board(store, definition, rule, reveal_private=reveal_private), out_dir)
    rows = submission_rows(store)
    as_json = [dict(zip(SUBMISSION_COLUMNS, r[:4] + [json_number(r[4]), r[5]])) for r in rows]
    texts = {"submissions.csv": csv_text(SUBMISSION_COLUMNS, [r[:5] + ["voided" if r[5] else ""] for r in rows]),
             "submissions.json": json.dumps({"submissions": as_json}, indent=2, sort_keys=True) + "\n",
             "submissions.md": _markdown(rows), "submissions.html": _html(rows)}
    for name, text in texts.items():
        write_text(Path(out_dir) / name, text)
        written.append(Path(out_dir) / name)
    return written
