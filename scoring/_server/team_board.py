"""One row per team: the board an organizer publishes, built from the own server's submission log.

``team_board(rows, rule, ...)`` takes the rows of the own server's store (``agrieval.scoring._server.boards``
makes them, as ``submission_log.LogRow``) and a rule
(``agrieval.scoring._server.selection``: ``best``, ``last``, ``selected``) and ranks the teams: on the
public board by the value each team was shown (the Ladder's released value when the server runs it),
and, at the reveal, on the private board by the private value of the submission the rule lets count.
Ranks are competition ranks, higher is better, ties share the best rank (1, 2, 2, 4); a team with no
scored submission, or one the organizer voided (``agrieval server void --team``), is listed after the
ranked ones, without a rank (a voided one marked so).

Outputs (``write_team_board``): ``leaderboard.csv``, ``.json``, ``.md`` and ``.html``. Team names are
the participants' text: neutralised in CSV (no spreadsheet formula), escaped in Markdown
(``agrieval.scoring.text.markdown``) and HTML (``agrieval.scoring.text.html``), verbatim in JSON. Before
the reveal nothing private is in any of them (no private value, no counted submission), so the files
can be published as they are.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, List, Optional

from agrieval.scoring._server.selection import TeamChoice, choose_all
from agrieval.scoring._server.submission_log import LogRow
from agrieval.scoring.leaderboard.build import competition_ranks
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.text import html, markdown
from agrieval.scoring.text.tables import csv_text, fmt, json_number, markdown_table

__all__ = ["TeamBoard", "TeamRow", "team_board", "to_csv", "to_dict", "to_markdown", "to_html",
           "write_team_board", "OUTPUT_NAMES"]

SCHEMA_VERSION = 1
OUTPUT_NAMES = ("leaderboard.csv", "leaderboard.json", "leaderboard.md", "leaderboard.html")


@dataclass
class TeamRow:
    choice: TeamChoice
    public_rank: Optional[int] = None
    private_rank: Optional[int] = None
    voided: bool = False  # disqualified by the organizer: listed, never ranked

    @property
    def team(self) -> str:
        return self.choice.team

    @property
    def rank_shift(self) -> Optional[int]:
        if self.public_rank is None or self.private_rank is None:
            return None
        return self.public_rank - self.private_rank


@dataclass
class TeamBoard:
    competition: str
    title: str
    metric: str
    rule: str
    selection_limit: int
    reveal_private: bool
    rows: List[TeamRow]  # sorted: by the revealed board's rank (private at the reveal, else public), then name

    @property
    def ranked(self) -> List[TeamRow]:
        return [r for r in self.rows if self._rank(r) is not None]

    @property
    def unranked(self) -> List[TeamRow]:
        return [r for r in self.rows if self._rank(r) is None]

    def _rank(self, row: TeamRow) -> Optional[int]:
        return row.private_rank if self.reveal_private else row.public_rank


def _ranks(rows: List[TeamRow], value, attr: str) -> None:
    have = [r for r in rows if not r.voided and not math.isnan(value(r))]
    for r, rank in zip(have, competition_ranks([value(r) for r in have])):
        setattr(r, attr, rank)


def team_board(log_rows: List[LogRow], definition, *, rule: str = "best", k: int = 2,
               reveal_private: bool = False, title: Optional[str] = None,
               voided_teams: Collection[str] = ()) -> TeamBoard:
    """The per-team board of ``log_rows`` (see the module's docstring); ``voided_teams`` are never ranked."""
    rows = [TeamRow(c, voided=c.team in voided_teams) for c in choose_all(log_rows, rule, k)]
    _ranks(rows, lambda r: r.choice.public, "public_rank")
    if reveal_private:
        _ranks(rows, lambda r: r.choice.private, "private_rank")
    board = TeamBoard(definition.name, title or getattr(definition, "title", None) or definition.name,
                      definition.primary_metric, rule, k, reveal_private, rows)
    big = 1 << 30
    rows.sort(key=lambda r: (board._rank(r) or big, r.public_rank or big, r.team))
    return board


def _describe(board: TeamBoard) -> str:
    what = {"best": "each team's best public submission counts",
            "last": "each team's last scored submission counts",
            "selected": (f"each team's selected submissions count (up to {board.selection_limit}; its "
                         f"{board.selection_limit} best public ones when it selected none), the best private "
                         "of them")}[board.rule]
    if board.reveal_private:
        return f"Private leaderboard (final): ranked on the private split; {what}."
    return "Public leaderboard: ranked on the public split, the score each team was shown."


def to_dict(board: TeamBoard) -> dict:
    teams = []
    for r in board.rows:
        c = r.choice
        d = {"team": c.team, "public_rank": r.public_rank, "public": json_number(c.public),
             "n_submissions": c.n_submissions, "n_scored": c.n_scored, "last_submission_at": c.last_at,
             "voided": r.voided}
        if board.reveal_private:
            d.update({"private_rank": r.private_rank, "private": json_number(c.private), "rank_shift": r.rank_shift,
                      "counted_submissions": list(c.counted), "private_submission": c.private_submission,
                      "selected_by_team": c.selected_by_team})
        teams.append(d)
    return {"schema_version": SCHEMA_VERSION, "competition": board.competition, "title": board.title,
            "metric": board.metric, "board": "private" if board.reveal_private else "public",
            "per_team": board.rule, "selection_limit": board.selection_limit, "description": _describe(board),
            "teams": teams}


def _header(board: TeamBoard) -> List[str]:
    head = ["rank", "team", "public_score", "public_rank"]
    if board.reveal_private:
        head += ["private_score", "rank_shift"]
    return head + ["submissions", "last_submission_at"]


def _cells(board: TeamBoard, r: TeamRow) -> list:
    c = r.choice
    rank = r.private_rank if board.reveal_private else r.public_rank
    row = ["voided" if r.voided else "" if rank is None else rank, c.team, fmt(c.public), "" if r.public_rank is None else r.public_rank]
    if board.reveal_private:
        shift = r.rank_shift
        row += [fmt(c.private), "" if shift is None else (f"+{shift}" if shift > 0 else str(shift))]
    return row + [c.n_submissions, c.last_at or ""]


def to_csv(board: TeamBoard) -> str:
    return csv_text(_header(board), [_cells(board, r) for r in board.rows])


def to_markdown(board: TeamBoard) -> str:
    titles = {"rank": "Rank", "team": "Team", "public_score": "Public", "public_rank": "Public rank",
              "private_score": "Private", "rank_shift": "Shift", "submissions": "Submissions",
              "last_submission_at": "Last (UTC)"}
    head = _header(board)
    align = ["r", "l"] + ["r"] * (len(head) - 2)
    return (f"# {markdown.text(board.title)}: leaderboard\n\n{markdown.text(_describe(board))} Metric "
            f"{markdown.code(board.metric)}, higher is better.\n\n"
            + markdown_table([titles[h] for h in head], [_cells(board, r) for r in board.rows], align=align))


def to_html(board: TeamBoard) -> str:
    """A static page (no script, no external resource) with every cell escaped."""
    titles = {"rank": "Rank", "team": "Team", "public_score": "Public", "public_rank": "Public rank",
              "private_score": "Private", "rank_shift": "Shift", "submissions": "Submissions",
              "last_submission_at": "Last (UTC)"}
    head = _header(board)
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{html.text(board.title)}: leaderboard</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{padding:.3em .8em;border-bottom:1px solid #ccc}td.n{text-align:right}</style>",
             "</head>", "<body>", f"<h1>{html.text(board.title)}: leaderboard</h1>",
             f"<p>{html.text(_describe(board))} Metric <code>{html.text(board.metric)}</code>, higher is better.</p>",
             "<table>", "<thead><tr>" + "".join(f"<th>{html.text(titles[h])}</th>" for h in head) + "</tr></thead>",
             "<tbody>"]
    for r in board.rows:
        cells = _cells(board, r)
        lines.append("<tr>" + "".join(f'<td class="{"l" if h == "team" else "n"}">{html.text(v)}</td>'
                                      for h, v in zip(head, cells)) + "</tr>")
    lines += ["</tbody>", "</table>", "</body>", "</html>"]
    return "\n".join(lines) + "\n"


def write_team_board(board: TeamBoard, out_dir: Path) -> List[Path]:
    """Write ``OUTPUT_NAMES`` into ``out_dir`` (the command checks them against the output policy first)."""
    out_dir = Path(out_dir)
    written = []
    for name, text in zip(OUTPUT_NAMES, (to_csv(board), json.dumps(to_dict(board), indent=2, sort_keys=True) + "\n",
                                         to_markdown(board), to_html(board))):
        write_text(out_dir / name, text)
        written.append(out_dir / name)
    return written
