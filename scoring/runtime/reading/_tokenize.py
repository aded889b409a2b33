"""The second layer of the reader: clean UTF-8 bytes to one table of cells, or a list of problems.

The delimiter, the header, ragged rows, quotes and the row limit are checked
here; what a cell means (an id, a list of labels, a class) is the business of
the cell readers (``digit_lists``, ``cell_keys``, ``id_cells``, ``label_cells``).

Whatever the file, its cells come out in one shape, ``Cells``: the bytes that
hold them, each cell's byte span, and the line each row starts on. A regular
file (one record per line, the same number of fields on each, quotes only
around whole fields) is tokenised by numpy (``csv_spans``) and its spans point
into the file itself; so is a file with such quotes but blank lines or ragged
rows (``csv_spans.line_fields``), and one with blanks after closing quotes
(taken out first by ``quote_blanks``), each problem named as the ``csv`` module
path names it. Any other file is read by Python's ``csv`` module, which also
locates each problem, and its cells are laid out one after the other in a
buffer of their own, with the same spans.
"""

from __future__ import annotations

import csv
import difflib
import io
import itertools
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from ..problems import ProblemLog
from . import _cell_keys as cell_keys
from . import _csv_records as csv_records
from . import _csv_spans as csv_spans
from . import _quote_blanks as quote_blanks
from . import _quote_trouble as quote_trouble
from ._bytes_checks import report_line_endings

_CANDIDATE_DELIMITERS = [",", ";", "\t", "|"]
_DELIM_NAMES = {",": "',' (comma)", ";": "';' (semicolon)", "\t": "a tab", "|": "'|' (pipe)"}


class Cells(NamedTuple):
    """The data rows' cells: row i, field j is ``raw[starts[i, j]:ends[i, j]]`` (UTF-8, quotes removed),
    and row i starts on line ``lines[i]`` of the file."""
    raw: bytes
    starts: np.ndarray  # (n_rows, n_fields) int64
    ends: np.ndarray  # (n_rows, n_fields) int64
    lines: np.ndarray  # (n_rows,) int64, 1-based


class SkippedRows:
    """Rows left out for having another number of fields than the header (``ragged_row``): their lines and,
    of their fields, as many as the header has (where the id is). Held flat, one list of all their fields
    and the count of each row's, not a list and a tuple per row: 180,000 one-field rows as containers cost
    the garbage collector more than reading the file (its passes walk every container still alive)."""

    def __init__(self, lines: Sequence[int] = (), fields: Sequence[str] = (), kept: Sequence[int] = ()):
        self._lines, self._fields, self._kept = list(lines), list(fields), list(kept)

    @classmethod
    def of(cls, rows) -> SkippedRows:
        """From (line, fields) pairs."""
        out = cls()
        for line, fields in rows:
            out.append((line, fields))
        return out

    def append(self, row: tuple[int, list[str]]) -> None:
        line, fields = row
        self._lines.append(line)
        self._fields.extend(fields)
        self._kept.append(len(fields))

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self):
        """(line, fields) of each row."""
        bounds = itertools.accumulate(self._kept)
        return ((line, self._fields[b - k:b]) for line, k, b in zip(self._lines, self._kept, bounds))

    def field(self, j: int) -> list[str]:
        """Field ``j`` (0-based) of each row that has it, in file order."""
        kept = np.asarray(self._kept, dtype=np.int64)
        if len(kept) and (kept == kept[0]).all():  # (all rows alike: a stride)
            return self._fields[j::int(kept[0])] if j < kept[0] else []
        first = np.cumsum(kept) - kept
        return [self._fields[i] for i in (first[kept > j] + j).tolist()]


@dataclass
class Table:
    header: list[str]
    cells: Cells
    delimiter: str = ","
    skipped: SkippedRows = field(default_factory=SkippedRows)

    def __post_init__(self) -> None:
        if not isinstance(self.skipped, SkippedRows):
            self.skipped = SkippedRows.of(self.skipped)

    @property
    def lines(self) -> np.ndarray:
        return self.cells.lines

    @property
    def n_rows(self) -> int:
        return len(self.cells.lines)

    def spans(self, name: str) -> tuple[bytes, np.ndarray, np.ndarray]:
        """(raw bytes, starts, ends) of column ``name``."""
        j = self.header.index(name)
        return self.cells.raw, self.cells.starts[:, j], self.cells.ends[:, j]

    def column(self, name: str) -> list[str]:
        return csv_spans.decode_spans(*self.spans(name))

    def cell(self, row: int, name: str) -> str:
        j = self.header.index(name)
        return self.cells.raw[self.cells.starts[row, j]:self.cells.ends[row, j]].decode("utf-8")

    def match(self, name: str, values: Sequence[str]) -> np.ndarray:
        """Index into ``values`` of each cell of column ``name`` (exact match), -1 for any other cell."""
        return cell_keys.match_cells(*self.spans(name), [v.encode("utf-8") for v in values])


def delimiter_name(d: str) -> str:
    return _DELIM_NAMES.get(d, repr(d))


def parse(raw: bytes, *, delimiter: str, required: Sequence[str], optional: Sequence[str] = (),
          allow_extra: bool = False, max_rows: int, max_cell_chars: int, log: ProblemLog,
          what: str = "competition") -> Table | None:
    """Tokenise the clean UTF-8 bytes of a CSV file (``bytes_checks.checked_utf8``) and check the
    delimiter, the header, the field counts and the row limit; report CRLF line ends."""
    table, crlf_records = _parse(raw, delimiter=delimiter, required=required, optional=optional,
                                 allow_extra=allow_extra, max_rows=max_rows, max_cell_chars=max_cell_chars, log=log,
                                 what=what)
    if crlf_records is None:
        report_line_endings(raw, log)
    else:  # what the numpy tokenizer counted (every CR then ended a record): no second look at the bytes
        line_ends = table.n_rows + 1 - (not raw.endswith(b"\n"))  # (a last line may lack its line end)
        report_line_endings(raw, log, crlf_records=crlf_records, n_records=line_ends)
    return table


def _parse(raw: bytes, *, delimiter: str, required: Sequence[str], optional: Sequence[str], allow_extra: bool,
           max_rows: int, max_cell_chars: int, log: ProblemLog, what: str) -> tuple[Table | None, int | None]:
    """``parse``, and the CRLF records the numpy tokenizer counted (None when it did not read the file)."""
    end = raw.find(b"\n")
    first_line = (raw if end < 0 else raw[:end]).decode("utf-8").rstrip("\r")
    expected_header = delimiter.join(required)
    if not first_line.strip():
        log.error("missing_column", f"the first line is empty; it must be the header {expected_header!r}", line=1)
        return None, None
    expected_delimiter = delimiter  # (messages name the header the competition expects)
    if delimiter not in first_line:
        for cand in _CANDIDATE_DELIMITERS:
            if cand != delimiter and cand in first_line:
                log.error("wrong_delimiter",
                          f"columns are separated by {delimiter_name(cand)} but this {what} expects "
                          f"{delimiter_name(delimiter)}; expected header: {expected_header!r}", line=1)
                # read on with the delimiter the file has: its other problems are named in the same round
                delimiter = cand
                break

    # the header alone first: a regular file never needs the csv module beyond it
    removed = 0  # blanks taken out after closing quotes (each named: space_after_quote)
    header_blanks = []  # their (offset, length, field), as ``_say_blanks`` keys them
    while True:
        try:
            with _field_limit(max_cell_chars):
                header = next(csv.reader(_cr_lines(first_line), delimiter=delimiter, strict=True))
            break
        except StopIteration:
            log.error("empty_file", "the file has no lines")
            return None, None
        except csv.Error as exc:
            trouble = quote_trouble.after_closing_quote(first_line, delimiter)
            if trouble is None or trouble.kind != "space":
                log.error("malformed_csv", f"the header cannot be read as CSV ({exc})", line=1)
                return None, None
            log.error("space_after_quote", quote_trouble.space_message(trouble, trouble.start + 1 + removed),
                      line=1, column=trouble.field)
            header_blanks.append((trouble.start + removed, trouble.length, trouble.field))
            first_line = first_line[:trouble.start] + first_line[trouble.start + trouble.length:]
            removed += trouble.length
    if removed:  # read the rest of the file after the mended header
        first_bytes = raw if end < 0 else raw[:end]
        raw = first_line.encode("utf-8") + raw[len(first_bytes.rstrip(b"\r")):]
    read_as = header  # the names the rows are read under
    ok, stands_for = _check_header(header, required, optional, allow_extra, expected_delimiter, log)
    if not ok:
        has_rows = end >= 0 and bool(raw[end + 1:].strip())
        if stands_for is None:
            if has_rows:
                _rows_not_checked(log)
            return None, None
        # every required column has a column standing for it: the rows are checked under the names they stand
        # for, so that one round names the header's problems and the rows' (the file stays rejected)
        read_as = [stands_for.get(h, h) for h in header]
        if has_rows:
            _rows_checked_as(log, stands_for)
    n_fields = len(header)
    # Bound the work before tokenising (memory too: numpy's spans cost several int64 per field): with more
    # than twice the row limit in lines, the file has too many rows however many of them are blank or
    # continue a quoted field (those are problems of their own).
    # Every kind of line end counts (LF, CRLF and a lone CR each end a line for the csv module): a file of
    # lone CRs must meet this bound as a file of LFs does.
    n_lines = csv_spans.count_byte(raw, 10)
    lone_crs = 0
    if b"\r" in raw:
        lone_crs = csv_spans.count_byte(raw, 13) - csv_spans.count_crlf(raw)
        n_lines += lone_crs
    if n_lines > 2 * max_rows + 2:
        log.error("too_many_rows", f"the file has {n_lines:,} lines, far more than the {max_rows:,} data rows "
                  "this competition accepts", line=2 * max_rows + 3)
        return None, None
    # Blanks typed after closing quotes (never in a regular file) are taken out by numpy, each named as the
    # csv path names it. Looked for before the regular tokenizer where the file's first 4 KiB has a quote
    # followed by a blank (a file of them: one scan of the file fewer), after it otherwise (a regular file:
    # no search of the whole file for them); the outcome is the same either way.
    # A file with lone CRs (old Mac line ends) is neither regular nor of simple quotes: straight to
    # ``csv_records``, which takes any line end.
    probe = raw[:1 << 12]
    blanks_first = n_fields > 1 and not lone_crs and (b'" ' in probe or b'"\t' in probe)
    blanks = quote_blanks.take_out(raw, delimiter) if blanks_first else None
    # (each line of a regular file holds a delimiter per field but the last and its line end: a file of
    # shorter lines, blank ones say, is not looked at as one)
    maybe_regular = not lone_crs and len(raw) + 1 >= n_lines * n_fields
    if blanks is None and maybe_regular:
        regular = _regular(raw, header, read_as, delimiter, max_rows, max_cell_chars)
        if regular is not None:
            return regular
        if n_fields > 1 and not blanks_first and b'"' in raw:
            blanks = quote_blanks.take_out(raw, delimiter)
    # blank lines, ragged rows, lone CRs, doubled quotes, quoted fields over several lines (and what blanks
    # were taken out of): tokenised by numpy too
    source = raw if blanks is None else blanks.mended
    lines = _lines(source, header, delimiter, max_cell_chars, simple=not lone_crs) if n_fields > 1 else None
    if lines is not None:
        return _read_lines(lines, read_as, delimiter, max_rows, blanks, header_blanks, log), None
    del blanks, source  # (not held while the csv module reads the file)
    return _read_irregular(raw, read_as, delimiter, max_rows, max_cell_chars, log), None


def _cr_lines(text: str):
    """The lines of ``text``, which holds no LF, as ``io.StringIO(text, newline="")`` gives them, one at a time:
    the csv module reads the header from the first few (a file of lone CRs is all one LF-less "first line": a
    StringIO of it was 4 bytes per character, 76 MB for 19 MB, and 0.2 s)."""
    start = 0
    while start < len(text):
        end = text.find("\r", start) + 1 or len(text)
        yield text[start:end]
        start = end


def _regular(raw: bytes, header: list[str], read_as: list[str], delimiter: str, max_rows: int, max_cell_chars: int
             ) -> tuple[Table, int] | None:
    """The table of a regular file (``csv_spans``) and its CRLF records; None for any other file."""
    spans = csv_spans.field_spans(raw, delimiter, len(header)) if len(header) > 1 else None
    if spans is None:
        return None
    starts, ends = spans.starts, spans.ends
    n_rows = len(starts) - 1
    if (0 < n_rows <= max_rows and int((ends - starts).max()) <= max_cell_chars
            and csv_spans.decode_spans(raw, starts[0], ends[0]) == header):
        return Table(read_as, Cells(raw, starts[1:], ends[1:], np.arange(2, n_rows + 2, dtype=np.int64)),
                     delimiter), spans.crlf_records
    return None


class _LineNumbers:
    """Line numbers held as a numpy array, read by ``ProblemLog.add_on_lines`` as a list of ints: it looks at
    a few and counts the rest (a file of 2 million blank lines as a list would be ~70 MB of ints)."""

    def __init__(self, numbers: np.ndarray):
        self._numbers = numbers

    def __len__(self) -> int:
        return len(self._numbers)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return _LineNumbers(self._numbers[k])
        return int(self._numbers[k])

    def __iter__(self):
        return iter(self._numbers.tolist())


def _lines(raw: bytes, header: list[str], delimiter: str, max_cell_chars: int, *, simple: bool
           ) -> csv_records.Records | None:
    """The records of a file whose first record is ``header`` and no field longer than the csv module takes
    (bytes: a longer field in fewer characters is left to the csv module); else None. ``csv_spans.line_fields``
    where quotes are simple and lines end in LF or CRLF (``simple``: no lone CR), else ``csv_records``."""
    simple_lines = csv_spans.line_fields(raw, delimiter) if simple else None
    if simple_lines is not None:
        found = csv_records.Records(raw, *simple_lines, np.arange(1, len(simple_lines.counts) + 1, dtype=np.int64))
    else:
        found = csv_records.records(raw, delimiter)
    if (found is None or found.counts[0] != len(header) or found.blank[0]
            or int((found.ends - found.starts).max()) > max_cell_chars
            or csv_spans.decode_spans(found.raw, found.starts[:len(header)], found.ends[:len(header)]) != header):
        return None
    return found


def _read_lines(found: csv_records.Records, header: list[str], delimiter: str, max_rows: int,
                blanks: quote_blanks.Blanks | None, header_blanks: list, log: ProblemLog) -> Table | None:
    """The table of a file with blank lines or ragged rows (``_lines``), its problems named as
    ``_read_rows`` names them record by record: a blank line warned, a ragged row refused and its first
    fields kept, and past the row limit the first row too many refused (nothing after it said)."""
    n_fields = len(header)
    raw, counts, blank, line_no = found.raw, found.counts, found.blank, found.lines
    first_field = np.cumsum(counts) - counts
    good = (counts == n_fields) & ~blank
    good[0] = False  # the header
    good_lines = np.flatnonzero(good)
    stop = None  # the 0-based record of the first row too many
    stop_line = None  # and the line it starts on
    if len(good_lines) > max_rows:
        stop = int(good_lines[max_rows])
        stop_line = int(line_no[stop])
        counts, blank, first_field, line_no, good = (x[:stop] for x in (counts, blank, first_field, line_no, good))
    if blanks is not None:
        keep = blanks.lines <= (int(found.lines[-1]) if stop is None else stop_line)
        _say_blanks(blanks._replace(lines=blanks.lines[keep], offsets=blanks.offsets[keep],
                                    lengths=blanks.lengths[keep], fields=blanks.fields[keep]), log, header_blanks)
    if blank.any():
        log.add_on_lines("blank_line", "empty line skipped", _LineNumbers(line_no[blank]), severity="warning")
    ragged = ~good & ~blank
    ragged[0] = False
    skipped = SkippedRows()
    if ragged.any():
        r_lines, r_counts, r_first = line_no[ragged], counts[ragged], first_field[ragged]
        kept = np.minimum(r_counts, n_fields)
        at = np.repeat(r_first - np.cumsum(kept) + kept, kept) + np.arange(int(kept.sum()))
        fields = csv_spans.decode_spans(raw, found.starts[at], found.ends[at])
        lines_list, counts_list = _LineNumbers(r_lines), r_counts.tolist()
        skipped = SkippedRows(r_lines.tolist(), fields, kept.tolist())
        change = np.flatnonzero(np.diff(r_counts, prepend=-1) != 0).tolist() + [len(lines_list)]
        for lo, hi in zip(change[:-1], change[1:]):
            n = counts_list[lo]
            log.add_on_lines("ragged_row", f"this row has {n} fields but the header has {n_fields} "
                             f"(separator {delimiter_name(delimiter)}; a list with commas must be quoted)",
                             lines_list[lo:hi], column=n_fields + 1 if n > n_fields else n + 1)
    if stop is not None:
        log.error("too_many_rows", f"the file has more than {max_rows:,} data rows, the limit of this competition",
                  line=stop_line)
        return None
    at = (first_field[good][:, None] + np.arange(n_fields)).ravel()
    cells = Cells(raw, found.starts[at].reshape(-1, n_fields).astype(np.int64),
                  found.ends[at].reshape(-1, n_fields).astype(np.int64), line_no[good])
    if not len(cells.lines) and not log.has_errors:
        log.error("header_only", "the file has a header but no data rows", line=1)
        return None
    return Table(header, cells, delimiter, skipped)


def _say_blanks(blanks: quote_blanks.Blanks, log: ProblemLog, header_blanks: list) -> None:
    """One ``space_after_quote`` per run of blanks, in file order, worded as ``_mend_record`` words them; a
    message repeated on consecutive troubles (a file of them) is handed to the log in one call. Once the
    log tracks no more distinct messages of the code, the troubles whose message it never heard are only
    counted, in one step (19 MB of ``"Q-1" ,`` is 2.7 million messages, each naming its character);
    ``header_blanks``: the keys of those said on the header."""
    if not len(blanks.lines):
        return  # (all past the row too many)
    offsets, lengths, fields = blanks.offsets, blanks.lengths, blanks.fields
    changed = offsets[1:] != offsets[:-1]
    changed |= lengths[1:] != lengths[:-1]
    changed |= fields[1:] != fields[:-1]
    first = np.flatnonzero(np.concatenate([[True], changed]))
    del changed
    bounds = np.append(first, len(blanks.lines))
    lines = _LineNumbers(blanks.lines)
    said = set(header_blanks)
    k = 0
    while k < len(first) and not log.tracks_no_more("space_after_quote"):
        # (a chunk of keys as Python ints at a time: the log takes them one by one, up to its limit)
        chunk = first[k:k + _SAY_CHUNK]
        keys = zip(offsets[chunk].tolist(), lengths[chunk].tolist(), fields[chunk].tolist(),
                   blanks.lines[chunk].tolist())
        for (*key, line), lo, hi in zip(keys, bounds[k:k + _SAY_CHUNK].tolist(),
                                        bounds[k + 1:k + 1 + _SAY_CHUNK].tolist()):
            key = tuple(key)
            if log.tracks_no_more("space_after_quote"):
                break
            if hi == lo + 1:  # (said once: ``add_on_lines`` of one line is one ``error``)
                log.error("space_after_quote", _blank_message(*key), line=line, column=key[2])
            else:
                _say_blank(log, key, lines[lo:hi])
            said.add(key)
            k += 1
    if k == len(first):
        return
    # the troubles that may repeat a message said: those at an offset said (the rest of the key is checked
    # by the log); a search in the few said offsets, not a sort of all the troubles (``np.isin``), and only
    # for the troubles not past the largest (one long line: none)
    rest = first[k:]
    said_offsets = np.unique(np.array([offset for offset, _, _ in said] or [-1], dtype=np.int64))
    rest_offsets = offsets[rest]
    maybe = rest_offsets <= said_offsets[-1]
    near = np.flatnonzero(maybe)
    maybe[near] = said_offsets[np.searchsorted(said_offsets, rest_offsets[near])] == rest_offsets[near]
    for g in np.flatnonzero(maybe).tolist():  # (a message heard before: its repeats are counted as such)
        key = (int(offsets[rest[g]]), int(lengths[rest[g]]), int(fields[rest[g]]))
        _say_blank(log, key, lines[bounds[k + g]:bounds[k + g + 1]])
    sizes = np.diff(bounds[k:])
    log.count_untracked("space_after_quote", int(sizes[~maybe].sum()))


_SAY_CHUNK = 1024


def _say_blank(log: ProblemLog, key: tuple, lines: list) -> None:
    log.add_on_lines("space_after_quote", _blank_message(*key), lines, column=key[2])


def _blank_message(offset: int, length: int, field: int) -> str:
    return quote_trouble.space_message(quote_trouble.QuoteTrouble("space", offset, length, field), offset + 1)


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
        skipped = SkippedRows()
        cells = _read_rows(reader, text, header, max_rows, max_cell_chars, delimiter, log, skipped)
    if cells is None:
        return None
    if not len(cells.lines) and not log.has_errors:
        log.error("header_only", "the file has a header but no data rows", line=1)
        return None
    return Table(header, cells, delimiter, skipped)


class _CellWriter:
    """The rows' fields as ``Cells``, added a chunk of rows at a time: their UTF-8 bytes one after the other
    (the header's first, as in the file, each field followed by a LF), and the spans into them. Rows are
    held as lists of strings only a chunk at a time (a list of 2-byte strings costs ~50 bytes per field)."""

    def __init__(self, header: list[str]):
        self.n_fields = len(header)
        self.n_rows = 0
        self._parts: list[bytes] = []
        self._lengths: list[np.ndarray] = []
        self._pending: list[list[str]] = []
        self._add([header])

    def append(self, row: list[str]) -> None:
        self._pending.append(row)
        self.n_rows += 1
        if len(self._pending) >= _CHUNK_ROWS:
            self._add(self._pending)
            self._pending = []

    def extend(self, rows: list[list[str]]) -> None:
        self._add(self._pending + rows)
        self._pending = []
        self.n_rows += len(rows)

    def _add(self, rows: list[list[str]]) -> None:
        fields = [f.encode("utf-8") for row in rows for f in row]
        if fields:
            self._parts.append(b"\n".join(fields) + b"\n")
            self._lengths.append(np.fromiter(map(len, fields), dtype=np.int64, count=len(fields)))

    def cells(self, lines: np.ndarray) -> Cells:
        self._add(self._pending)
        self._pending = []
        length = np.concatenate(self._lengths)
        starts = np.zeros(len(length), dtype=np.int64)
        np.cumsum(length[:-1] + 1, out=starts[1:])
        ends = starts + length
        n = self.n_fields
        raw = b"".join(self._parts)
        self._parts = []
        return Cells(raw, starts[n:].reshape(-1, n), ends[n:].reshape(-1, n), lines)


@contextmanager
def _field_limit(max_cell_chars: int):
    """``csv.field_size_limit`` (one setting for the whole process) for this read only."""
    old = csv.field_size_limit(max_cell_chars)
    try:
        yield
    finally:
        csv.field_size_limit(old)


_CHUNK_ROWS = 256  # (rows of 200 fields: 256 of them as lists of strings are ~3 MB)


def _read_rows(reader, text: str, header: list[str], max_rows: int, max_cell_chars: int, delimiter: str,
               log: ProblemLog, skipped: SkippedRows) -> Cells | None:
    """The data rows' cells and the line each starts on.

    Fast path: read every record at C speed; when there are as many records as
    lines and all have the right width, record i starts on line i + 2. Anything
    else (blank lines, fields spanning lines, ragged rows, lone CR line ends) is
    re-read record by record to locate each problem, in one pass per record.
    Memory stays a small multiple of the file: rows are turned into bytes a
    chunk at a time, and of a ragged row only as many fields as the header has
    are kept (its id is present, not missing).
    """
    n_fields = len(header)
    rows: _CellWriter | None = _CellWriter(header)
    try:
        # In chunks, stopping at the first chunk with a ragged row: a file whose rows all have many fields
        # must not be held as lists of strings (~50 bytes per 2-byte field) before it is refused.
        while rows.n_rows <= max_rows:
            chunk = list(itertools.islice(reader, min(_CHUNK_ROWS, max_rows + 1 - rows.n_rows)))
            if not chunk:
                break
            if not all(len(r) == n_fields for r in chunk):
                rows = None  # located below, one record at a time, ragged rows not kept
                break
            rows.extend(chunk)
    except csv.Error:
        rows = None  # located below
    n_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if (rows is not None and rows.n_rows <= max_rows and rows.n_rows == n_lines - 1
            and text.count("\r") == text.count("\r\n")):
        return rows.cells(np.arange(2, rows.n_rows + 2, dtype=np.int64))
    rows = _CellWriter(header)
    source = _Lines(text)  # the lines as the csv module splits them
    reader = csv.reader(source, delimiter=delimiter, strict=True)
    next(reader)
    source.next_record()
    lines = []
    while True:
        try:
            rec = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            msg = str(exc)
            if "field larger than field limit" in msg:
                log.error("malformed_csv", f"a field is longer than {max_cell_chars:,} characters",
                          line=source.first + 1)
                return None
            if not _mend_record(source, delimiter, max_cell_chars, msg, log):
                return None
            reader = csv.reader(source, delimiter=delimiter, strict=True)  # the same record again, mended
            continue
        start = source.first + 1
        source.next_record()
        if not rec:
            log.warning("blank_line", "empty line skipped", line=start)
            continue
        if len(rec) != n_fields:
            log.error("ragged_row", f"this row has {len(rec)} fields but the header has {n_fields} "
                      f"(separator {delimiter_name(delimiter)}; a list with commas must be quoted)",
                      line=start, column=n_fields + 1 if len(rec) > n_fields else len(rec) + 1)
            skipped.append((start, rec[:n_fields]))
            continue
        if rows.n_rows >= max_rows:
            log.error("too_many_rows", f"the file has more than {max_rows:,} data rows, the limit of this competition",
                      line=start)
            return None
        rows.append(rec)
        lines.append(start)
    return rows.cells(np.asarray(lines, dtype=np.int64))


class _Lines:
    """The file's lines for ``csv.reader``, one at a time, with the lines of the record being read
    (``record``, after the ``first`` lines of the records before it): a record the reader refused can be
    mended and read again from its first line, and only that record's lines are held."""

    def __init__(self, text: str):
        # (one at a time: a list of the lines costs ~50 bytes per line, 50 times a file of blank lines)
        self._lines = iter(io.StringIO(text, newline=""))
        self._again: list[str] = []  # mended lines to read again, the next one last
        self.record: list[str] = []
        self.first = 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        line = self._again.pop() if self._again else next(self._lines)
        self.record.append(line)
        return line

    def next_record(self) -> None:
        """The record read so far is done: the next line starts the next one."""
        self.first += len(self.record)
        self.record = []

    def pull(self) -> bool:
        """One more line into ``record`` for a look ahead of the reader; False at the end of the file."""
        try:
            next(self)
        except StopIteration:
            return False
        return True

    def read_again(self, lines: list[str]) -> None:
        """Read the current record again, from ``lines``."""
        self._again.extend(reversed(lines))
        self.record = []


def _mend_record(source: _Lines, delimiter: str, max_cell_chars: int, msg: str, log: ProblemLog) -> bool:
    """Name the problems of the record the csv module refused (``msg``), starting at line ``source.first +
    1``. Blanks after a closing quote are an error of their own, with line and column: all of the record's
    are found in one pass (``quote_trouble.mend_record``) and removed, and the record is set to be read
    again (True), so the rest of the file is still checked. Anything else stops the reading (False)."""
    first = source.first
    if not source.record:
        source.pull()

    def on_space(k: int, offset: int, trouble: quote_trouble.QuoteTrouble) -> None:
        log.error("space_after_quote", quote_trouble.space_message(trouble, offset + 1), line=first + 1 + k,
                  column=trouble.field)

    found = quote_trouble.mend_record(source.record, source.pull, delimiter, max_cell_chars, on_space)
    if found.text is not None:
        k, offset, trouble = found.text
        line, column = first + 1 + k, offset + 1
        after = found.lines[k][offset:].rstrip("\r\n")[:20]
        if k > 0:
            # the record ran on over line ends inside quotes: most likely a quote left open on its first line
            log.error("malformed_csv", f"a double quote on this line is never closed on it: the quoted field runs "
                      f"on to line {line}, where {after!r} follows its closing quote; close the quote (a quote "
                      "inside a quoted field is written twice: \"\"); the CSV cannot be read from here on",
                      line=first + 1)
        else:
            log.error("malformed_csv", f"{after!r} follows the closing quote of field {trouble.field} (character "
                      f"{column} of the line); after a quoted field comes {delimiter_name(delimiter)} or the end "
                      "of the line (a quote inside a quoted field is written twice: \"\"); the CSV cannot be "
                      "read from here on", line=line, column=trouble.field)
        return False
    if not found.spaces:
        log.error("malformed_csv", f"the CSV cannot be read from here on ({msg}); "
                  "check for an unterminated or stray double quote", line=first + 1)
        return False
    source.read_again(found.lines + source.record[len(found.lines):])
    return True


def _rows_not_checked(log: ProblemLog) -> None:
    """Say that the rows were not read: a participant who fixes only the header would otherwise expect the
    file to pass in the next round."""
    _note_on_header(log, "; the rows were not checked: fix the header, then check the file again")


def _note_on_header(log: ProblemLog, note: str) -> None:
    """``note`` appended to the header's last error (said once, where the header's problems end)."""
    for k in range(len(log.problems) - 1, -1, -1):
        p = log.problems[k]
        if p.line == 1 and p.severity == "error":
            log.problems[k] = replace(p, message=p.message + note)
            return


def _is_no_header(header: list[str], required: Sequence[str], known: set) -> bool:
    """The first line names no expected column, in any case or spacing, nor one spelled closely: it is not a
    header (most likely a row: the file has none)."""
    folded = {h.strip().lower() for h in header}
    return (not any(h in known for h in header) and not any(r.lower() in folded for r in required)
            and not any(difflib.get_close_matches(r, header, n=1, cutoff=0.5) for r in required))


def _rows_checked_as(log: ProblemLog, stands_for: dict[str, str]) -> None:
    """Say how the rows were read: a participant then knows that the rows' problems below are all there are
    once the header is fixed."""
    how = " and ".join(f"{column!r} as {name!r}" for column, name in stands_for.items())
    _note_on_header(log, f"; the rows were checked reading {how}" if how else "; the rows were checked too")


# A header wider than this is refused in one message, before any per-field work (a 19 MB header of commas
# would otherwise cost a fuzzy match per field).
MAX_HEADER_FIELDS = 64


def _check_header(header: list[str], required: Sequence[str], optional: Sequence[str], allow_extra: bool,
                  delimiter: str, log: ProblemLog) -> tuple[bool, dict[str, str] | None]:
    """(whether the header is right, and for a wrong one {header column: the required column it stands for}
    when the rows can still be read under the right names: every missing required column has a stand-in
    (``_renamed_columns``) and no name is repeated; None when they cannot: a repeated name, a missing column
    with no stand-in, a first line that is no header at all, a header too wide)."""
    if len(header) > MAX_HEADER_FIELDS:
        log.error("missing_column", f"the first line has {len(header):,} fields: it is not the header "
                  f"{delimiter.join(required)!r} the file must start with", line=1)
        return False, None
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
    if header and _is_no_header(header, required, known):
        log.error("missing_column", f"the first line reads {delimiter.join(header)[:80]!r}, not a header: the file "
                  f"must start with the header line {delimiter.join(required)!r}", line=1)
        return False, None
    repeated = not ok
    missing = [r for r in required if r not in seen]
    renamed = _renamed_columns(header, required, missing, extras)
    for name in required:
        if name not in seen:
            hint = f"; found {renamed[name]!r} instead: rename it to {name!r}" if name in renamed else ""
            log.error("missing_column", f"required column {name!r} is missing{hint}", line=1,
                      column=seen[renamed[name]] if name in renamed else None)
            ok = False
    if not allow_extra:
        for name in extras:
            if name in renamed.values():
                continue  # already reported as the misnamed required column
            log.error("extra_column", f"column {name!r} is not accepted; the columns are {', '.join(required)}",
                      line=1, column=seen[name])
            ok = False
    if repeated or len(renamed) != len(missing):
        return ok, None
    back = {column: name for name, column in renamed.items()}
    return ok, {column: back[column] for column in header if column in back}  # in the header's order


def _renamed_columns(header: list[str], required: Sequence[str], missing: list[str], extras: list[str]
                     ) -> dict[str, str]:
    """For each missing required column, the header's column that most likely stands for it: the same name
    in another case or spacing, else a close spelling, else the column in its place (``"id","species"``:
    ``id`` stands where ``quadrat_id`` should), else the one column left over for the one column missing.
    Each column of the header stands for one at most."""
    unused = list(extras)
    found: dict[str, str] = {}
    for name in missing:
        close = [h for h in unused if h.strip().lower() == name.lower()] or difflib.get_close_matches(
            name, unused, n=1, cutoff=0.5)
        if close:
            found[name] = close[0]
            unused.remove(close[0])
    for k, name in enumerate(required):
        if name in missing and name not in found and k < len(header) and header[k] in unused:
            found[name] = header[k]
            unused.remove(header[k])
    left = [name for name in missing if name not in found]
    if len(left) == 1 and len(unused) == 1:  # one column missing, one not accepted: that one
        found[left[0]] = unused[0]
    return found
