"""The own server's former submission log (one CSV row per event, written by ``agrieval grade --log`` before
the store, ``store.py``): read by ``agrieval server import`` so that no competition in flight is lost, and
``LogRow``, the in-memory row every per-team board is computed from (``boards.py`` makes them from the store).

Columns (``COLUMNS``; the first three are the audit's log, so ``agrieval audit`` reads it as it is):

``team``          the team (one printable line, at most ``MAX_TEAM_CHARS`` characters: it lands on pages)
``submitted_at``  when the server received it, ISO 8601 in UTC (``2026-05-01T12:30:00Z``)
``file``          the upload as the server passed it (relative to the log's folder when it lies inside it)
``status``        ``scored``, ``rejected`` (the participant's file), ``error`` (the host's side),
                  ``refused`` (over a submission limit: not graded) or ``selected`` (a final selection)
``submission``    the team's submission number (1, 2, ...: every graded upload, scored or not); empty for
                  ``refused`` and ``selected`` rows
``codes``         the error codes of a rejected, refused or failed upload, space-separated
``public``        the raw public value of the primary metric (host only: what the Ladder may hold back)
``private``       the raw private value of the primary metric (host only; shown at the reveal)
``shown``         the public value the participant was shown (the Ladder's released value, or the rounded one)
``selected``      on a ``selected`` row: the team's selected submission numbers, space-separated

The kit reads this log and never writes it: ``agrieval server import`` reads it once into a store.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Tuple

from agrieval.scoring._server.timeline import parse_utc, utc_text
from agrieval.scoring.analysis_input._log_header import COLUMNS, MAX_LOG_BYTES, is_submission_log
from agrieval.scoring.analysis_input._log_header import HEADER as _HEADER
from agrieval.scoring.runtime.coded_error import CodedError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes
from agrieval.scoring.text.terminal import is_safe

__all__ = ["COLUMNS", "LogRow", "LogError", "MAX_TEAM_CHARS", "is_submission_log", "read_log", "check_team"]

STATUSES = ("scored", "rejected", "error", "refused", "selected")
GRADED = ("scored", "rejected", "error")  # the rows that are uploads the server graded
MAX_TEAM_CHARS = 100


class LogError(CodedError):
    """The log or a value for it cannot be used: a host-side problem (exit 3) unless the caller says."""

    codes = {"log_corrupt": "The submission log cannot be read as agrieval's log (the message names the line).",
             "log_unwritable": "The submission log (or its lock) cannot be written where it was asked.",
             "bad_team": "A team name is empty, too long, or not one printable line.",
             "bad_selection": "A final selection names submissions the team does not have, or too many.",
             "selection_closed": "A final selection came after the store's selection deadline; it was not recorded.",
             "bad_void": ("`server void` named a submission or team the store does not have (or one already "
                          "voided), or gave no printable one-line --reason.")}


@dataclass
class LogRow:
    team: str
    submitted_at: dt.datetime  # timezone-aware, UTC
    file: str = ""
    status: str = "scored"
    submission: Optional[int] = None
    codes: Tuple[str, ...] = ()
    public: float = math.nan
    private: float = math.nan
    shown: float = math.nan
    selected: Tuple[int, ...] = ()
    line: int = field(default=0, compare=False)  # 1-based line in the file (0: not read from one)

    def cells(self) -> List[str]:
        return [self.team, utc_text(self.submitted_at), self.file, self.status,
                "" if self.submission is None else str(self.submission), " ".join(self.codes),
                _number(self.public), _number(self.private), _number(self.shown),
                " ".join(str(s) for s in self.selected)]


def _number(x: float) -> str:
    return "" if x != x else repr(float(x))  # repr: the value read back is the value written


def check_team(team: str) -> str:
    """The team name as given, or a ``LogError``: it lands in CSV, Markdown and HTML boards (escaped there) and
    in this log, so it must be one printable line."""
    if not team or team != team.strip() or len(team) > MAX_TEAM_CHARS or not is_safe(team) or "\n" in team:
        raise LogError("bad_team", f"the team name {team!r} must be 1 to {MAX_TEAM_CHARS} printable characters on "
                                   "one line, without leading or trailing spaces", exit_code=2)
    # a name that reads as another team's on a board would be a second team (its own limits) or an impostor:
    # invisible format characters (zero-width space, soft hyphen, BOM ...) and a decomposed accent are refused
    if any(unicodedata.category(c) == "Cf" for c in team) or unicodedata.normalize("NFC", team) != team:
        raise LogError("bad_team", f"the team name {team!r} holds invisible characters or decomposed accents (it "
                                   "would look like another name); type it again, or use "
                                   f"{unicodedata.normalize('NFC', ''.join(c for c in team if unicodedata.category(c) != 'Cf'))!r}",
                       exit_code=2)
    return team


def read_log(path: Path) -> List[LogRow]:
    """The log's rows in file order; ``[]`` when it does not exist; a ``LogError`` naming the line otherwise."""
    path = Path(path)
    try:  # the opening rule: a FIFO or a device is refused at once, a huge file before it is read
        text = read_bytes(path, max_bytes=MAX_LOG_BYTES, what="submission log").decode("utf-8-sig")
    except FileNotFoundError:
        return []
    except UntrustedFileError as exc:
        raise LogError("log_corrupt", exc.message, file=path) from None
    except UnicodeDecodeError as exc:
        raise LogError("log_corrupt", f"cannot read the submission log: {exc}", file=path) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: List[LogRow] = []
    try:
        header = next(reader, None)
        if header != list(COLUMNS):
            raise ValueError(f"its header is not {_HEADER}")
        for cells in reader:
            if not cells:
                continue
            rows.append(_row(cells, reader.line_num))
    except (ValueError, csv.Error) as exc:
        raise LogError("log_corrupt", f"line {reader.line_num}: {exc}; the log was left as it is", file=path) \
            from None
    return rows


def _row(cells: List[str], line: int) -> LogRow:
    if len(cells) != len(COLUMNS):
        raise ValueError(f"{len(cells)} fields, the header has {len(COLUMNS)}")
    d = dict(zip(COLUMNS, cells))
    if d["status"] not in STATUSES:
        raise ValueError(f"unknown status {d['status']!r}")
    check_team(d["team"])

    def number(key: str) -> float:
        value = float(d[key]) if d[key] else math.nan
        if math.isinf(value):
            raise ValueError(f"{key} is infinite")
        return value

    selected = tuple(int(s) for s in d["selected"].split())
    if any(s < 1 for s in selected):
        raise ValueError(f"selected holds {d['selected']!r}; submission numbers start at 1")
    return LogRow(team=d["team"], submitted_at=parse_utc(d["submitted_at"]), file=d["file"], status=d["status"],
                  submission=int(d["submission"]) if d["submission"] else None, codes=tuple(d["codes"].split()),
                  public=number("public"), private=number("private"), shown=number("shown"),
                  selected=selected, line=line)
