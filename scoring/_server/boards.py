"""The per-team boards of a store: its rows as ``LogRow`` for the rules of ``selection.py``, ranked by
``agrieval.scoring._server.team_board``.

What a board sees: every upload that is not voided, in the order the store received them, with the scores of
the **published** score version (``rescore.py`` adds versions; only a confirmed one is published); a voided
submission is left out (it never counts, not even as the team's best), a voided team is listed, marked,
and never ranked; the final selections in the order they were made (the latest counts).
"""

from __future__ import annotations

import datetime as dt
import os
from typing import List, Optional

from agrieval.scoring._server.store import Store
from agrieval.scoring._server.submission_log import LogRow
from agrieval.scoring._server.timeline import parse_utc
from agrieval.scoring.text.tables import json_number

# Imported inside functions, so that importing this module loads only what it needs: scoring.leaderboard.team_board
# (it loads concurrent, concurrent.futures, pandas).

__all__ = ["store_rows", "store_board", "board_json", "voided_teams"]

_NAN = float("nan")


def _or_nan(x: Optional[float]) -> float:
    return _NAN if x is None else float(x)


def store_rows(store: Store, version: Optional[int] = None, *, include_voided: bool = False) -> List[LogRow]:
    """The store's uploads and selections as board rows (scores of ``version``, default the published one)."""
    conn = store.conn
    if version is None:
        version = conn.execute("SELECT score_version FROM competition WHERE id = 1").fetchone()[0]
    times: dict = {}

    def when(text: str) -> dt.datetime:  # (many rows share few distinct seconds: parse each once)
        got = times.get(text)
        if got is None:
            got = times[text] = parse_utc(text)
        return got

    rows = []
    voided = "" if include_voided else "AND u.voided_reason IS NULL"
    for team, at, name, status, number, codes, public, private, shown in conn.execute(
            "SELECT u.team, u.submitted_at, u.name, u.status, u.number, u.codes, s.public, s.private, s.shown "
            "FROM uploads u LEFT JOIN scores s ON s.upload = u.id AND s.version = ? "
            f"WHERE u.status != 'pending' {voided} ORDER BY u.id", (version,)):
        rows.append(LogRow(team, when(at), os.fsdecode(bytes(name)), status, number, tuple(codes.split()),
                           _or_nan(public), _or_nan(private), _or_nan(shown)))
    for team, at, numbers in conn.execute("SELECT team, selected_at, numbers FROM selections ORDER BY id"):
        rows.append(LogRow(team, when(at), "", "selected", selected=tuple(int(n) for n in numbers.split())))
    return rows


def voided_teams(store: Store) -> List[str]:
    return [t for (t,) in store.conn.execute("SELECT name FROM teams WHERE voided_reason IS NOT NULL ORDER BY name")]


def store_board(store: Store, definition, rule: str, *, reveal_private: bool = False, title: Optional[str] = None,
                version: Optional[int] = None, k: Optional[int] = None):
    """The ``TeamBoard`` of the store under ``rule`` (the selection limit is the store's unless ``k``)."""
    from agrieval.scoring._server.team_board import team_board

    if k is None:
        k = store.conn.execute("SELECT selection_limit FROM competition WHERE id = 1").fetchone()[0]
    return team_board(store_rows(store, version), definition, rule=rule, k=k, reveal_private=reveal_private,
                      title=title, voided_teams=set(voided_teams(store)))


def board_json(board, timeline: dict) -> dict:
    """``server board --json``: one object whose ``rows`` each have ``team``, ``rank`` (null when not ranked),
    ``voided``, ``submissions`` and the values shown (``public``; ``private`` at the reveal)."""
    rows = []
    for r in board.rows:
        rank = r.private_rank if board.reveal_private else r.public_rank
        row = {"team": r.team, "rank": rank, "voided": r.voided, "submissions": r.choice.n_scored,
               "public": json_number(r.choice.public), "public_rank": r.public_rank}
        if board.reveal_private:
            row.update({"private": json_number(r.choice.private), "counted_submissions": list(r.choice.counted)})
        rows.append(row)
    return {"competition": board.competition, "metric": board.metric, "rule": board.rule,
            "board": "private" if board.reveal_private else "public", "selection_limit": board.selection_limit,
            "timeline": timeline, "rows": rows}
