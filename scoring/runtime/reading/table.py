"""Bytes to a table of string cells with line numbers, or a list of problems.

This is the format layer shared by submissions and solutions: size limit,
binary and encoding checks, line endings, delimiter, header, ragged rows and
the row limit. It knows nothing about labels (``label_cells.py``) or ids.
"""

from __future__ import annotations

import csv
import difflib
import io
import itertools
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..problems import ProblemLog
from . import cell_keys, csv_spans, digit_lists, quote_trouble

_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"PK\x03\x04": "a zip archive (an .xlsx spreadsheet is one too)",
    b"%PDF": "a PDF document",
    b"\xd0\xcf\x11\xe0": "a legacy Office document (.xls)",
    b"\x1f\x8b": "a gzip archive",
    b"BM": None,  # too short to be sure; decided by the NUL check below
}
_CANDIDATE_DELIMITERS = [",", ";", "\t", "|"]
_DELIM_NAMES = {",": "',' (comma)", ";": "';' (semicolon)", "\t": "a tab", "|": "'|' (pipe)"}


@dataclass
class Table:
    header: list[str]
    lines: np.ndarray  # 1-based line on which each data row starts
    rows: list[list[str]] | None = None  # from the csv module (slow path)
    raw: bytes | None = None  # with spans: from the vectorised tokenizer (fast path)
    spans: csv_spans.Spans | None = None  # data rows only: (starts, ends) shaped (n_rows, n_fields)
    delimiter: str = ","
    # rows left out for having another number of fields than the header (ragged_row): (line, fields)
    skipped: list[tuple[int, list[str]]] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return len(self.lines)

    def column(self, name: str) -> list[str]:
        j = self.header.index(name)
        if self.rows is not None:
            return [r[j] for r in self.rows]
        starts, ends = self.spans.starts, self.spans.ends
        return csv_spans.decode_spans(self.raw, starts[:, j], ends[:, j])

    def byte_cells(self, name: str) -> tuple[bytes, np.ndarray, np.ndarray] | None:
        """(raw bytes, starts, ends) of column ``name`` on the fast path, else None."""
        if self.spans is None:
            return None
        j = self.header.index(name)
        return self.raw, self.spans.starts[:, j], self.spans.ends[:, j]

    def match(self, name: str, values: Sequence[str]) -> np.ndarray:
        """Index into ``values`` of each cell of column ``name`` (exact match), -1 for any other cell."""
        j = self.header.index(name)
        if self.rows is not None:
            position = {v: i for i, v in enumerate(values)}
            return np.fromiter((position.get(r[j], -1) for r in self.rows), dtype=np.int64, count=len(self.rows))
        return cell_keys.match_cells(self.raw, self.spans.starts[:, j], self.spans.ends[:, j],
                                     [v.encode("utf-8") for v in values])

    def cell(self, row: int, name: str) -> str:
        j = self.header.index(name)
        if self.rows is not None:
            return self.rows[row][j]
        return self.raw[self.spans.starts[row, j]:self.spans.ends[row, j]].decode("utf-8")

    def int_lists(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """Fast parse of a column of ``[1, 2]`` lists straight from the bytes, or None."""
        if self.spans is None:
            return None
        j = self.header.index(name)
        # with ',' as the delimiter the tokenizer has counted the commas inside quoted lists (and locates them
        # if asked)
        if self.delimiter == "," and self.spans.structural is not None:
            return digit_lists.int_lists(self.raw, self.spans.starts[:, j], self.spans.ends[:, j],
                                         self.spans.quoted_delimiters, self.spans.quoted_delimiter_counts[:, j])
        return digit_lists.int_lists(self.raw, self.spans.starts[:, j], self.spans.ends[:, j])


def read_limited(path: str | Path, max_bytes: int, log: ProblemLog) -> bytes | None:
    """Read a file, refusing (before reading it) one over ``max_bytes``."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        log.error("file_too_large", f"the file is {size:,} bytes; this competition accepts at most {max_bytes:,} bytes")
        return None
    with path.open("rb") as fh:
        # (read(n) reserves n bytes first: with n = the limit, 10 GB for a solution, that is slow and may fail)
        data = fh.read(min(size, max_bytes) + 1)
        if len(data) > size:  # grew since stat: read on, up to the limit
            data += fh.read(max_bytes + 1 - len(data))
    if len(data) > max_bytes:  # grew while we read it
        log.error("file_too_large", f"the file is larger than {max_bytes:,} bytes")
        return None
    return data


def delimiter_name(d: str) -> str:
    return _DELIM_NAMES.get(d, repr(d))


def decode(data: bytes, log: ProblemLog) -> str | None:
    """Strict UTF-8 decoding; a UTF-8 BOM is accepted with a warning."""
    clean = checked_utf8(data, log)
    return None if clean is None else clean.decode("utf-8")


def checked_utf8(data: bytes, log: ProblemLog) -> bytes | None:
    """``decode``'s checks, giving the bytes without their BOM instead of the text: a text file of ASCII
    needs no decoding to be valid (``parse`` decodes only what it reads as text)."""
    if not data:
        log.error("empty_file", "the file is empty; it needs a header line and one row per test item")
        return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        log.error("wrong_encoding", "the file is UTF-16 encoded; save it as UTF-8 (in Excel: 'CSV UTF-8')")
        return None
    for magic, what in _MAGIC.items():
        if what and data.startswith(magic):
            log.error("not_text", f"the file is {what}, not a CSV text file")
            return None
    if b"\x00" in data[:65536]:
        log.error("not_text", "the file contains NUL bytes: it is binary (or UTF-16 without a BOM), not a UTF-8 CSV text file")
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        log.warning("utf8_bom", "the file starts with a UTF-8 byte-order mark (BOM); it is ignored", line=1)
        data = data[3:]
    if data.isascii():
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start]
        log.error("wrong_encoding",
                  f"byte 0x{byte:02X} is not valid UTF-8; the file seems to be in another encoding "
                  "(Latin-1 / Windows-1252?); save it as UTF-8", line=line, column=col)
        return None
    return data


def report_line_endings(data: bytes, log: ProblemLog, *, crlf_records: int | None = None,
                        n_records: int | None = None) -> None:
    """Warn about CRLF or mixed line endings. ``crlf_records`` of ``n_records`` line ends: what the
    tokenizer found (every CR then ended a record), so the bytes need no second look."""
    if b"\r" not in data:
        return  # LF line ends only: nothing to report
    if crlf_records is not None:
        n_crlf, n_cr, n_lf = crlf_records, 0, n_records - crlf_records
    else:
        a = np.frombuffer(data, dtype=np.uint8)
        cr = np.flatnonzero(a == ord("\r"))
        n_crlf = int((a[cr[cr + 1 < len(a)] + 1] == ord("\n")).sum())
        n_cr = len(cr) - n_crlf
        n_lf = int(np.count_nonzero(a == ord("\n"))) - n_crlf  # (numpy counts bytes faster than bytes.count)
    styles = sum(x > 0 for x in (n_crlf, n_cr, n_lf))
    if styles > 1:
        log.warning("mixed_line_endings", f"the file mixes line endings ({n_crlf} CRLF, {n_lf} LF, {n_cr} CR); accepted")
    elif n_crlf:
        log.warning("crlf_line_endings", "the file has Windows (CRLF) line endings; accepted")


def parse(text: str | None, *, delimiter: str, required: Sequence[str], optional: Sequence[str] = (),
          allow_extra: bool = False, max_rows: int, max_cell_chars: int, log: ProblemLog,
          what: str = "competition", raw: bytes | None = None) -> Table | None:
    """Tokenise CSV text and check the header, the field counts and the row limit; report CRLF line ends.

    With ``raw`` (the UTF-8 bytes of ``text``) a regular file is tokenised by
    numpy (``csv_spans``); otherwise, or when the file is irregular, by ``csv``.
    ``text`` may be None with ``raw`` given (valid UTF-8, ``checked_utf8``): it is then decoded only
    if the csv module has to read the file.
    """
    tab = _parse(text, delimiter=delimiter, required=required, optional=optional, allow_extra=allow_extra,
                 max_rows=max_rows, max_cell_chars=max_cell_chars, log=log, what=what, raw=raw)
    if tab is not None and tab.spans is not None:
        line_ends = tab.n_rows + 1 - (not raw.endswith(b"\n"))  # (a last line may lack its line end)
        report_line_endings(raw, log, crlf_records=tab.spans.crlf_records, n_records=line_ends)
    else:
        report_line_endings(raw if raw is not None else text.encode("utf-8"), log)
    return tab


def _parse(text: str, *, delimiter: str, required: Sequence[str], optional: Sequence[str], allow_extra: bool,
           max_rows: int, max_cell_chars: int, log: ProblemLog, what: str, raw: bytes | None) -> Table | None:
    if text is None:
        end = raw.find(b"\n")
        first_line = (raw if end < 0 else raw[:end]).decode("utf-8").rstrip("\r")
    else:
        end = text.find("\n")
        first_line = (text if end < 0 else text[:end]).rstrip("\r")
    expected_header = delimiter.join(required)
    if not first_line.strip():
        log.error("missing_column", f"the first line is empty; it must be the header {expected_header!r}", line=1)
        return None
    if delimiter not in first_line:
        for cand in _CANDIDATE_DELIMITERS:
            if cand != delimiter and cand in first_line:
                log.error("wrong_delimiter",
                          f"columns are separated by {delimiter_name(cand)} but this {what} expects "
                          f"{delimiter_name(delimiter)}; expected header: {expected_header!r}", line=1)
                return None

    # the header alone first: a regular file never needs the csv module beyond it
    removed = 0  # blanks taken out after closing quotes (each named: space_after_quote)
    while True:
        try:
            with _field_limit(max_cell_chars):
                header = next(csv.reader(io.StringIO(first_line, newline=""), delimiter=delimiter, strict=True))
            break
        except StopIteration:
            log.error("empty_file", "the file has no lines")
            return None
        except csv.Error as exc:
            trouble = quote_trouble.after_closing_quote(first_line, delimiter)
            if trouble is None or trouble.kind != "space":
                log.error("malformed_csv", f"the header cannot be read as CSV ({exc})", line=1)
                return None
            log.error("space_after_quote", quote_trouble.space_message(trouble, trouble.start + 1 + removed),
                      line=1, column=trouble.field)
            first_line = first_line[:trouble.start] + first_line[trouble.start + trouble.length:]
            removed += trouble.length
    if removed:  # read the rest of the file after the mended header
        text = raw.decode("utf-8") if text is None else text
        cut = text.find("\n")
        old_first = text if cut < 0 else text[:cut]
        text = first_line + old_first[len(old_first.rstrip("\r")):] + ("" if cut < 0 else text[cut:])
        raw = text.encode("utf-8")
    if not _check_header(header, required, optional, allow_extra, delimiter, log):
        return None
    n_fields = len(header)
    # Bound the work before tokenising (memory too: numpy's spans cost several int64 per field): with more
    # than twice the row limit in lines, the file has too many rows however many of them are blank or
    # continue a quoted field (those are problems of their own).
    n_lines = csv_spans.count_byte(raw, 10) if raw is not None else text.count("\n")
    if n_lines > 2 * max_rows + 2:
        log.error("too_many_rows", f"the file has {n_lines:,} lines, far more than the {max_rows:,} data rows "
                  "this competition accepts", line=2 * max_rows + 3)
        return None
    if raw is not None and n_fields > 1:
        spans = csv_spans.field_spans(raw, delimiter, n_fields, n_lines)
        if spans is not None:
            starts, ends = spans.starts, spans.ends
            n_rows = len(starts) - 1
            fast_header = csv_spans.decode_spans(raw, starts[0], ends[0])
            if fast_header == header and 0 < n_rows <= max_rows and int((ends - starts).max()) <= max_cell_chars:
                return Table(header=header, lines=np.arange(2, n_rows + 2, dtype=np.int64), raw=raw,
                             spans=spans._replace(starts=starts[1:], ends=ends[1:], quoted_delimiter_counts=(
                                 None if spans.quoted_delimiter_counts is None else spans.quoted_delimiter_counts[1:])),
                             delimiter=delimiter)
    if text is None:
        text = raw.decode("utf-8")
    with _field_limit(max_cell_chars):
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
        try:
            next(reader)  # the header, already checked
        except csv.Error as exc:
            log.error("malformed_csv", f"the header cannot be read as CSV ({exc})", line=1)
            return None
        skipped: list[tuple[int, list[str]]] = []
        rows, lines = _read_rows(reader, text, n_fields, max_rows, max_cell_chars, delimiter, log, skipped)
    if rows is None:
        return None
    if not rows and not log.has_errors:
        log.error("header_only", "the file has a header but no data rows", line=1)
        return None
    return Table(header=header, lines=lines, rows=rows, skipped=skipped)


# csv.field_size_limit is one setting for the whole process: the solution may be read in another thread
# (scorer.read_both) with another limit, so whoever changes it holds this lock until it is put back.
_CSV_LIMIT = threading.Lock()


@contextmanager
def _field_limit(max_cell_chars: int):
    with _CSV_LIMIT:
        old = csv.field_size_limit(max_cell_chars)
        try:
            yield
        finally:
            csv.field_size_limit(old)


_CHUNK_ROWS = 4096


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
                      line=start, column=n_fields + 1 if len(rec) > n_fields else None)
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


# A header wider than this is refused in one message, before any per-field work (a 19 MB header of commas
# would otherwise cost a fuzzy match per field).
MAX_HEADER_FIELDS = 64


def _check_header(header: list[str], required: Sequence[str], optional: Sequence[str], allow_extra: bool,
                  delimiter: str, log: ProblemLog) -> bool:
    if len(header) > MAX_HEADER_FIELDS:
        log.error("missing_column", f"the first line has {len(header):,} fields: it is not the header "
                  f"{delimiter.join(required)!r} the file must start with", line=1)
        return False
    ok = True
    seen: dict[str, int] = {}
    for j, name in enumerate(header, start=1):
        if name in seen:
            log.error("duplicate_column", f"column {name!r} appears twice in the header (columns {seen[name]} and {j})",
                      line=1, column=j)
            ok = False
        seen.setdefault(name, j)
    known = set(required) | set(optional)
    extras = [h for h in header if h not in known]
    folded = {h.strip().lower() for h in header}
    if header and not any(h in known for h in header) and not any(r.lower() in folded for r in required) and not any(
            difflib.get_close_matches(r, header, n=1, cutoff=0.5) for r in required):
        log.error("missing_column", f"the first line reads {delimiter.join(header)[:80]!r}, not a header: the file "
                  f"must start with the header line {delimiter.join(required)!r}", line=1)
        return False
    for name in required:
        if name not in seen:
            close = [h for h in extras if h.strip().lower() == name.lower()] or difflib.get_close_matches(
                name, extras, n=1, cutoff=0.5)
            hint = f"; found {close[0]!r} instead: rename it to {name!r}" if close else ""
            log.error("missing_column", f"required column {name!r} is missing{hint}", line=1)
            ok = False
    if not allow_extra:
        for name in extras:
            close = difflib.get_close_matches(name, [r for r in required if r not in seen], n=1, cutoff=0.5)
            if close or any(name.strip().lower() == r.lower() for r in required if r not in seen):
                continue  # already reported as the misnamed required column
            log.error("extra_column", f"column {name!r} is not accepted; the columns are {', '.join(required)}",
                      line=1, column=seen[name])
            ok = False
    return ok
