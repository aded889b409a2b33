"""Strict reading of the small CSV tables the analysis commands take as input
(per-team results, rankings, run predictions): UTF-8 (a BOM is accepted),
a header with the required columns, one dict per data row with its line number.
"""

from __future__ import annotations

import csv
import difflib
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agrieval.scoring.analysis_input._json_input import read_regular
from agrieval.scoring.analysis_input.input_error import InputError

MAX_TABLE_BYTES = 1024**3  # results, rankings and matrices are kilobytes


@dataclass
class CsvRows:
    path: str
    header: list[str]
    rows: list[dict[str, str]]
    lines: list[int]  # 1-based line of each data row

    def column_index(self, name: str) -> int:
        """1-based column number, for messages."""
        return self.header.index(name) + 1


def read_csv_rows(path: str | Path, required: Sequence[str]) -> CsvRows:
    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise InputError("file_not_found", f"no such file: {name}", file=name)

    data = read_regular(path, MAX_TABLE_BYTES, "table")  # not a link to /dev/zero or a FIFO
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("unreadable_csv", f"the file is not UTF-8 (byte {exc.start}); save it as UTF-8", file=name) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        records = [(reader.line_num, r) for r in reader]
    except csv.Error as exc:
        raise InputError("unreadable_csv", f"the CSV cannot be read: {exc}", file=name, line=reader.line_num) from None
    # line_num is the line on which a record ends; for one-line records it is its line.
    records = [(ln, r) for ln, r in records if r and any(c.strip() for c in r)]
    if not records:
        raise InputError("empty_table", "the file is empty; it needs a header line", file=name)
    header = [h.strip() for h in records[0][1]]
    for col in required:
        if col not in header:
            close = difflib.get_close_matches(col, header, n=1)
            hint = f" (found {close[0]!r}; rename it)" if close else f" (the header is {', '.join(header)})"
            raise InputError("missing_column", f"required column {col!r} is missing{hint}", file=name, line=records[0][0])
    rows, lines = [], []
    for ln, r in records[1:]:
        if len(r) != len(header):
            raise InputError("unreadable_csv", f"the row has {len(r)} fields, the header has {len(header)}",
                             file=name, line=ln)
        rows.append(dict(zip(header, r)))
        lines.append(ln)
    if not rows:
        raise InputError("empty_table", "the file has a header but no data rows", file=name)
    return CsvRows(name, header, rows, lines)


def number_cell(table: CsvRows, i: int, col: str) -> float:
    """The float in row ``i`` column ``col``; empty, NaN and inf are rejected."""
    raw = table.rows[i][col].strip()
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
        ok = False
    else:
        ok = math.isfinite(value)
    if not raw or not ok:
        raise InputError("bad_number", f"column {col!r} needs a finite number, found {raw!r}",
                         file=table.path, line=table.lines[i], column=table.column_index(col))
    return value


def key_cell(table: CsvRows, i: int, col: str) -> str:
    raw = table.rows[i][col].strip()
    if not raw:
        raise InputError("empty_cell", f"column {col!r} is empty", file=table.path,
                         line=table.lines[i], column=table.column_index(col))
    return raw
