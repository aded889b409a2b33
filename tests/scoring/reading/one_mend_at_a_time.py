"""The irregular-file reader as it was before issue 43: the oracle of the one-pass reader's messages.

Blanks after a closing quote were mended one at a time, the record read again after each (quadratic in
the blanks of one record), and every ragged row kept whole. Slow, and kept only to be compared with: with
``one_mend_at_a_time(monkeypatch)`` the tokenizer reads irregular files this way, and the differential
tests require the same problems, ids and labels as the reader of today.
"""

from __future__ import annotations

import csv
import io
import itertools

import numpy as np

from agrieval.scoring.runtime.problems import ProblemLog
from agrieval.scoring.runtime.reading import quote_trouble, tokenize
from agrieval.scoring.runtime.reading.tokenize import Cells, Table, _field_limit, delimiter_name

_CHUNK_ROWS = 4096


def one_mend_at_a_time(monkeypatch) -> None:
    monkeypatch.setattr(tokenize, "_read_irregular", _read_irregular)


def _read_irregular(raw: bytes, header: list[str], delimiter: str, max_rows: int, max_cell_chars: int,
                    log: ProblemLog) -> Table | None:
    """A file the numpy tokenizer does not take, read by the csv module, which names each problem."""
    text = raw.decode("utf-8")
    with _field_limit(max_cell_chars):
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
        try:
            next(reader)  # the header, already checked
        except csv.Error as exc:
            log.error("malformed_csv", f"the header cannot be read as CSV ({exc})", line=1)
            return None
        skipped: list[tuple[int, list[str]]] = []
        rows, lines = _read_rows(reader, text, len(header), max_rows, max_cell_chars, delimiter, log, skipped)
    if rows is None:
        return None
    if not rows and not log.has_errors:
        log.error("header_only", "the file has a header but no data rows", line=1)
        return None
    return Table(header, _cells_of_rows(header, rows, lines), delimiter, skipped)


def _cells_of_rows(header: list[str], rows: list[list[str]], lines: np.ndarray) -> Cells:
    """The rows' fields as ``Cells``: their UTF-8 bytes one after the other (the header's first, as in the
    file, each field followed by a LF), and the spans into them."""
    fields = [f.encode("utf-8") for f in header]
    for row in rows:
        fields.extend(f.encode("utf-8") for f in row)
    length = np.fromiter(map(len, fields), dtype=np.int64, count=len(fields))
    starts = np.zeros(len(fields), dtype=np.int64)
    np.cumsum(length[:-1] + 1, out=starts[1:])
    ends = starts + length
    n_fields = len(header)
    return Cells(b"\n".join(fields) + b"\n", starts[n_fields:].reshape(-1, n_fields),
                 ends[n_fields:].reshape(-1, n_fields), lines)


# csv.field_size_limit is one setting for the whole process: the solution may be read in another thread


def _read_rows(reader, text: str, n_fields: int, max_rows: int, max_cell_chars: int, delimiter: str,
               log: ProblemLog, skipped: list[tuple[int, list[str]]]) -> tuple[list[list[str]] | None, np.ndarray]:
    """Data rows and the line each starts on.

    Fast path: read every record at C speed; when there are as many records as
    lines and all have the right width, record i starts on line i + 2. Anything
    else (blank lines, fields spanning lines, ragged rows, lone CR line ends) is
    re-read record by record to locate each problem.
    """
    rows: list | None = []
    try:
        # In chunks, stopping at the first chunk with a ragged row: a file whose rows all have many fields
        # must not be held as lists of strings (~50 bytes per 2-byte field) before it is refused.
        while len(rows) <= max_rows:
            chunk = list(itertools.islice(reader, min(_CHUNK_ROWS, max_rows + 1 - len(rows))))
            if not chunk:
                break
            if not all(len(r) == n_fields for r in chunk):
                rows = None  # located below, one record at a time, ragged rows not kept
                break
            rows.extend(chunk)
    except csv.Error:
        rows = None  # located below
    n_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if (rows is not None and len(rows) <= max_rows and len(rows) == n_lines - 1
            and "\r" not in text.replace("\r\n", "")):
        return rows, np.arange(2, len(rows) + 2, dtype=np.int64)
    source = _Lines(list(io.StringIO(text, newline="")))  # the lines as the csv module splits them
    reader = csv.reader(source, delimiter=delimiter, strict=True)
    next(reader)
    rows, lines = [], []
    prev_end = source.i
    while True:
        try:
            rec = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            msg = str(exc)
            if "field larger than field limit" in msg:
                log.error("malformed_csv", f"a field is longer than {max_cell_chars:,} characters",
                          line=prev_end + 1)
                return None, np.zeros(0, dtype=np.int64)
            if not _mend_quote(source, prev_end, delimiter, msg, log):
                return None, np.zeros(0, dtype=np.int64)
            reader = csv.reader(source, delimiter=delimiter, strict=True)  # the same record again, mended
            continue
        start = prev_end + 1
        prev_end = source.i
        if not rec:
            log.warning("blank_line", "empty line skipped", line=start)
            continue
        if len(rec) != n_fields:
            log.error("ragged_row", f"this row has {len(rec)} fields but the header has {n_fields} "
                      f"(separator {delimiter_name(delimiter)}; a list with commas must be quoted)",
                      line=start, column=n_fields + 1 if len(rec) > n_fields else len(rec) + 1)
            skipped.append((start, rec))
            continue
        if len(rows) >= max_rows:
            log.error("too_many_rows", f"the file has more than {max_rows:,} data rows, the limit of this competition",
                      line=start)
            return None, np.zeros(0, dtype=np.int64)
        rows.append(rec)
        lines.append(start)
    return rows, np.asarray(lines, dtype=np.int64)


class _Lines:
    """The file's lines for ``csv.reader``, with the position of the next one (``i``, the lines read so
    far): a record the reader refused can be mended in place and read again from its first line."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.i >= len(self.lines):
            raise StopIteration
        self.i += 1
        return self.lines[self.i - 1]


def _mend_quote(source: _Lines, first: int, delimiter: str, msg: str, log: ProblemLog) -> bool:
    """Name the problem of the record starting at line ``first + 1`` that the csv module refused (``msg``).
    Blanks after a closing quote are an error of their own, with line and column: they are removed from the
    lines and ``source`` is set back to the record, so the rest of the file is still checked (True).
    Anything else stops the reading (False)."""
    record_lines = source.lines[first:source.i]
    trouble = quote_trouble.after_closing_quote("".join(record_lines), delimiter)
    if trouble is None:
        log.error("malformed_csv", f"the CSV cannot be read from here on ({msg}); "
                  "check for an unterminated or stray double quote", line=first + 1)
        return False
    k, offset = 0, trouble.start
    while offset >= len(record_lines[k]):  # the line of the record holding the trouble
        offset -= len(record_lines[k])
        k += 1
    line, column = first + 1 + k, offset + 1
    if trouble.kind == "text" and k > 0:
        # the record ran on over line ends inside quotes: most likely a quote left open on its first line
        after = record_lines[k][offset:].rstrip("\r\n")[:20]
        log.error("malformed_csv", f"a double quote on this line is never closed on it: the quoted field runs on "
                  f"to line {line}, where {after!r} follows its closing quote; close the quote (a quote inside a "
                  "quoted field is written twice: \"\"); the CSV cannot be read from here on", line=first + 1)
        return False
    if trouble.kind == "text":
        after = record_lines[k][offset:].rstrip("\r\n")[:20]
        log.error("malformed_csv", f"{after!r} follows the closing quote of field {trouble.field} (character "
                  f"{column} of the line); after a quoted field comes {delimiter_name(delimiter)} or the end of "
                  "the line (a quote inside a quoted field is written twice: \"\"); the CSV cannot be read from "
                  "here on", line=line, column=trouble.field)
        return False
    log.error("space_after_quote", quote_trouble.space_message(trouble, column), line=line, column=trouble.field)
    text = record_lines[k]
    source.lines[first + k] = text[:offset] + text[offset + trouble.length:]
    source.i = first
    return True
