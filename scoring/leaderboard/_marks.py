"""Marks on a leaderboard's entries: a team the audit flagged, a score the Ladder held.

``agrieval leaderboard --audit AUDIT.json`` (the output of ``agrieval audit --json``) marks every
entry of a flagged team ``flagged``; ``--ladder-states DIR`` (one ``<team>.json`` Ladder state per
team, as ``agrieval grade --ladder`` writes them) marks ``held`` each entry the team's Ladder did
not release: the public board showed the team's released submission instead of it. An entry
belongs to team T when its name is T or starts with ``T/`` (a folder per team, ``--recursive``).
"""

from __future__ import annotations

from pathlib import Path

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.leaderboard.build import Entry, Leaderboard
from agrieval.scoring.runtime._ladder import MAX_STATE_BYTES
from agrieval.scoring.runtime.untrusted import read_json

MAX_JSON_BYTES = 256 << 20  # an audit report: kilobytes per team

FLAGGED = "flagged"
HELD = "held"
DESCRIPTIONS = {FLAGGED: "team flagged by the audit", HELD: "held by the Ladder (not released)"}


def _json(path: str | Path, max_bytes: int, what: str):
    """The parsed file, read by the one opening rule (``scoring/runtime/untrusted.py``: a FIFO, a device, an
    over-large or over-deep file is refused with its own code, exit 1); what it holds is checked by the caller."""
    return read_json(path, max_bytes=max_bytes, what=what)


def team_of(entry: Entry, teams: set[str]) -> str | None:
    if entry.name in teams:
        return entry.name
    head = entry.name.split("/", 1)[0]
    return head if head in teams else None


def mark_flagged(board: Leaderboard, audit_json: str | Path) -> set[str]:
    """Mark the entries of the teams ``audit_json`` flags; returns the flagged teams."""
    data = _json(audit_json, MAX_JSON_BYTES, "audit report")
    try:
        teams = {str(t["team"]) for t in data["teams"]}
        flagged = {str(t["team"]) for t in data["teams"] if t["flagged"] is True}
    except (KeyError, TypeError) as exc:
        raise InputError("bad_json", f"not the JSON of `agrieval audit --json`: no teams with team and flagged "
                                     f"({type(exc).__name__}: {exc})", file=str(audit_json)) from None
    for e in board.entries:
        if team_of(e, teams) in flagged and FLAGGED not in e.marks:
            e.marks.append(FLAGGED)
    return flagged


def mark_held(board: Leaderboard, states_dir: str | Path) -> int:
    """Mark the entries whose file a team's Ladder state records as not released; returns how many."""
    held: dict[str, set[str]] = {}
    for path in sorted(Path(states_dir).glob("*.json")):
        state = _json(path, MAX_STATE_BYTES, "Ladder state")  # (a FIFO there must not hang us)
        try:
            held[path.stem] = {Path(h["file"]).name for h in state.get("history", [])
                               if not h.get("released") and h.get("file")}
        except (AttributeError, KeyError, TypeError) as exc:
            raise InputError("bad_json", f"not a Ladder state of `agrieval grade --ladder` ({type(exc).__name__}: "
                                         f"{exc})", file=str(path)) from None
    n = 0
    for e in board.entries:
        team = team_of(e, set(held))
        if team is not None and Path(e.file).name in held[team] and HELD not in e.marks:
            e.marks.append(HELD)
            n += 1
    return n
