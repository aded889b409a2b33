"""Read a participant's submission strictly: bytes in, ids and labels or problems out.

Every problem has a stable code and a line/column; messages never depend on the
solution (id checks against the solution live in ``scoring/runtime/matching.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from ..definition import CompetitionDefinition
from ..problems import Problem, ProblemLog
from . import cell_keys, csv_spans, label_cells, native, table
from .id_lengths import refuse_long_ids
from .labelsets import LabelSets

_FORMULA_START = ("=", "+", "-", "@")


@dataclass
class Submission:
    id_list: list[str] | None = None  # None: the ids are those of ``id_order``'s CheckedIds (see ``ids``)
    lines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    labels: LabelSets | None = None  # multilabel
    classes: list[str | None] | None = None  # multiclass
    problems: list[Problem] = field(default_factory=list)
    # when the ids are those of a solution's CheckedIds: (those CheckedIds, for each of their ids the row
    # here, None when row for row); ``matching.align`` then needs no lookup per id
    id_order: tuple[CheckedIds, np.ndarray | None] | None = None
    # the ids of rows left out for their number of fields (ragged_row): present, though not read
    unread_ids: list[str] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        """The ids, row by row (strings made on first use when they are a solution's: most scoring never needs them)."""
        if self.id_list is None:
            if self.id_order is None:
                self.id_list = []
            else:
                checked, order = self.id_order
                if order is None:
                    self.id_list = checked.ids
                else:
                    row_of = np.empty(len(order), dtype=np.int64)
                    row_of[order] = np.arange(len(order), dtype=np.int64)
                    self.id_list = list(map(checked.ids.__getitem__, row_of.tolist()))
        return self.id_list

    @property
    def n_rows(self) -> int:
        return len(self.lines)

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]


@dataclass(frozen=True)
class CheckedIds:
    """An id column read by the tokenizer (so no id holds a line break), kept as its bytes.

    Once checked (``plainly_valid`` or ``check_ids``), a submission whose id column holds the same ids,
    in the same or another order, reuses them instead of decoding and checking 200,000 ids again: the
    outcome would be identical. The ids become strings only when something asks for them.
    """
    cells: tuple[bytes, np.ndarray, np.ndarray]  # (raw, starts, ends)
    id_pattern: str | None

    @cached_property  # frozen dataclass: cached_property writes __dict__ directly, which is allowed
    def joined(self) -> bytes:
        """The ids' UTF-8 bytes, one LF after each (``csv_spans.joined_cells``)."""
        return csv_spans.joined_cells(*self.cells)

    @cached_property
    def ids(self) -> list[str]:
        return self.joined[:-1].decode("utf-8").split("\n") if self.joined else []

    def __len__(self) -> int:
        return len(self.cells[1])

    def plainly_valid(self) -> bool:
        """Whether every id matches the pattern and no two are equal, found without a string per id;
        False when unsure (then ``check_ids`` on the strings decides and names each problem)."""
        if not self.id_pattern or not len(self):
            return False
        classes = _class_sequence(self.id_pattern)
        if classes is not None and b" " not in classes[0] + classes[1]:
            # (empty ids are refused there; a pattern allowing a space, the one printable blank, takes the regex)
            valid = self._bytes_in_classes(*classes)
        else:
            valid = self.joined.isascii() and _ids_plainly_match(self.joined[:-1].decode("ascii"), self.id_pattern)
        if not valid:
            return False
        distinct = native.distinct_cells(*self.cells)  # the compiled twin: no hash sorted
        if distinct is not None:
            return len(distinct[1]) == len(self)
        sorted_hashes = self._by_hash[0]
        return not bool((sorted_hashes[1:] == sorted_hashes[:-1]).any())  # equal hashes: maybe a duplicate

    def _bytes_in_classes(self, first: bytes, rest: bytes) -> bool:
        """Every id is one byte of ``first`` then bytes of ``rest``: checked on the ids' words (zero-padded
        8-byte chunks, see ``cell_keys.cell_words``) by deleting the allowed bytes (``bytes.translate``)."""
        found = native.cells_in_classes(self.cells, first, rest)  # the compiled twin, when installed
        if found is not None:
            return found
        words, length = self._words
        if not len(words) or int(length.min()) < 1:
            return False
        words = words.copy()
        heads = (words[0] & np.uint64(0xFF)).astype(np.uint8).tobytes()
        words[0] &= ~np.uint64(0xFF)  # the first byte of each id, checked apart: zero from here on
        left = words.tobytes().translate(None, rest)
        # what is left must be the zeros: the padding past each id's end and the first bytes set to zero
        # (a zero byte inside an id would be one more)
        padding = words.size * 8 - int(length.sum()) + len(length)
        return not heads.translate(None, first) and len(left) == padding and not left.strip(b"\0")

    def same_column(self, cells: tuple[bytes, np.ndarray, np.ndarray]) -> bool:
        """Whether ``cells`` (raw, starts, ends) hold exactly these ids, row for row."""
        raw, starts, ends = cells
        mine, my_starts, my_ends = self.cells
        if len(starts) != len(self):
            return False
        if len(starts) and raw[starts[0]:ends[0]] != mine[my_starts[0]:my_ends[0]]:
            return False  # (cheap: another order usually shows at the first id)
        found = native.cells_equal(self.cells, cells)  # the compiled twin, when installed
        if found is not None:
            return found
        my_words, my_length = self._words
        # equal lengths and equal words (the bytes, zero-padded): equal ids
        return np.array_equal(ends - starts, my_length) and np.array_equal(cell_keys.cell_words(*cells), my_words)

    @cached_property
    def _words(self) -> tuple[np.ndarray, np.ndarray]:
        """``cell_keys.cell_words`` of the ids, and their lengths."""
        raw, starts, ends = self.cells
        return cell_keys.cell_words(raw, starts, ends), ends - starts

    @cached_property
    def _by_hash(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The sorted hashes of the ids, the row of each, and the ids' words and lengths (``cell_words``)."""
        words, length = self._words
        hashes = cell_keys.words_hash(words, length)
        order = np.argsort(hashes)
        return hashes[order], order, words, length

    def order_in(self, cells: tuple[bytes, np.ndarray, np.ndarray]) -> np.ndarray | None:
        """When ``cells`` hold exactly these ids in another order: for each id here, its row in ``cells``.

        Candidates come from sorting hashes of the bytes; the answer is then checked byte for byte
        (equal lengths and equal ``cell_words``), so a hash collision can only make it None.
        """
        raw, starts, ends = cells
        if len(starts) != len(self) or not len(starts):
            return None
        found = native.cells_order(self.cells, cells)  # the compiled twin (a hash table), when installed
        if found is not None:
            return None if found is native.DECLINED else found
        sorted_hashes, mine, my_words, my_length = self._by_hash
        length = ends - starts
        if int(length.max()) > int(my_length.max()):
            return None  # an id longer than all of these: not these ids (and its words would cost rows x length)
        words = cell_keys.cell_words(raw, starts, ends)
        hashes = cell_keys.words_hash(words, length)
        theirs = np.argsort(hashes)
        if not np.array_equal(hashes[theirs], sorted_hashes):
            return None
        order = np.empty(len(starts), dtype=np.int64)
        order[mine] = theirs
        same = np.array_equal(length[order], my_length) and np.array_equal(np.take(words, order, axis=1), my_words)
        return order if same else None


def read_submission(source: str | Path | bytes, definition: CompetitionDefinition, *,
                    filename: str | None = None,
                    checked_ids: CheckedIds | Callable[[], CheckedIds | None] | None = None) -> Submission:
    """Parse and check a submission. Nothing here depends on a solution's content: ``checked_ids``
    only saves work when the id column repeats ids known to be valid. It may be a function giving
    them, called once the labels are read (the solution may still be loading meanwhile)."""
    name = filename or (Path(source).name if not isinstance(source, bytes) else "submission.csv")
    log = ProblemLog(file=name)
    limits = definition.limits
    if isinstance(source, bytes):
        data: bytes | None = source
        if len(data) > limits.max_bytes:
            log.error("file_too_large", f"the file is {len(data):,} bytes; this competition accepts at most "
                      f"{limits.max_bytes:,} bytes")
            data = None
    else:
        data = table.read_limited(source, limits.max_bytes, log)
    clean = table.checked_utf8(data, log) if data is not None else None
    if clean is None:
        return Submission(problems=log.finish())
    tab = table.parse(None, delimiter=definition.delimiter, required=definition.expected_columns,
                      max_rows=limits.max_rows, max_cell_chars=limits.max_cell_chars, log=log, raw=clean)
    if tab is None:
        return Submission(problems=log.finish())
    if not refuse_long_ids(tab, definition.id_column, definition.max_id_chars, log):
        return Submission(lines=tab.lines, problems=log.finish())  # before any work that scales with them

    labels = classes = None
    if definition.task == "multilabel":
        labels = label_cells.parse_multilabel_column(tab, definition, log)
    else:
        pred_col = tab.header.index(definition.prediction_column) + 1
        classes = label_cells.parse_multiclass(tab.column(definition.prediction_column), tab.lines, pred_col,
                                               definition, log)
    if callable(checked_ids):
        checked_ids = checked_ids()
    id_col = tab.header.index(definition.id_column) + 1
    cells = tab.byte_cells(definition.id_column)
    reusable = checked_ids is not None and cells is not None and checked_ids.id_pattern == definition.id_pattern
    if reusable and (cell_keys.match_cells(*cells, [definition.id_column.encode("utf-8")]) >= 0).any():
        reusable = False  # an id that is the column's name: _repeated_header may have a problem to name
    same = reusable and checked_ids.same_column(cells)
    order = checked_ids.order_in(cells) if reusable and not same else None
    if same or order is not None:
        # the solution's ids, row for row or in another order (matched byte for byte): valid and unique too,
        # and the same strings as decoding the column would give
        sub = Submission(lines=tab.lines, id_order=(checked_ids, order))
    else:
        ids = tab.column(definition.id_column)
        _repeated_header(ids, tab, definition, log)
        check_ids(ids, tab.lines, id_col, definition, log)
        sub = Submission(id_list=ids, lines=tab.lines)
    sub.labels, sub.classes = labels, classes
    sub.unread_ids = [fields[id_col - 1] for _, fields in tab.skipped if len(fields) >= id_col]
    sub.problems = log.finish()
    return sub


def check_ids(ids: list[str], lines: np.ndarray, column: int, definition: CompetitionDefinition,
              log: ProblemLog) -> None:
    """Empty, malformed and duplicate ids. Ids are compared exactly: no stripping, no case folding."""
    pattern = definition.id_pattern
    joined = "\n".join(ids) if pattern and ids else ""
    if not (joined and joined.count("\n") == len(ids) - 1 and _ids_plainly_match(joined, pattern)):
        compiled = re.compile(pattern) if pattern else None
        for i, id_ in enumerate(ids):
            line = int(lines[i])
            if not id_.strip():
                log.error("missing_id", "the id cell is empty", line, column)
            elif id_ != id_.strip():
                log.error("invalid_id", f"id {id_.strip()[:60]!r} has leading or trailing spaces; remove them",
                          line, column)
            elif id_.startswith(_FORMULA_START) and not (compiled and compiled.fullmatch(id_)):
                log.error("invalid_id", f"id {id_[:60]!r} looks like a spreadsheet formula, not a test id",
                          line, column)
            elif compiled and not compiled.fullmatch(id_):
                # Look-alike letters and control characters first: they are the usual culprits, and a
                # Cyrillic letter passes isalnum() while a legal '-' fails a pattern anchored on a letter.
                bad = next((c for c in id_ if not c.isascii() or not c.isprintable()), None)
                if bad is None:
                    bad = next((c for c in id_ if not compiled.fullmatch(c) and not c.isalnum()), None)
                why = f"; character {bad!r} (U+{ord(bad):04X}) is not allowed" if bad else ""
                log.error("invalid_id", f"id {id_[:60]!r} is not a valid id for this competition{why}",
                          line, column)
    if len(set(ids)) == len(ids):
        return
    first_line: dict[str, int] = {}
    for i, id_ in enumerate(ids):
        seen = first_line.setdefault(id_, int(lines[i]))
        if seen != int(lines[i]):
            log.error("duplicate_id", f"id {id_[:60]!r} already appeared on line {seen}", int(lines[i]), column)


def _class_sequence(pattern: str) -> tuple[bytes, bytes] | None:
    """For a pattern ``[F][R]*`` (as the shipped id patterns): the printable ASCII bytes F and R allow, each
    found by asking ``re`` itself; None for any other pattern. Then ``fullmatch(pattern, id)`` holds exactly
    when the id is one F byte and any number of R bytes."""
    shape = re.fullmatch(r"\[([^\[\]\\^][^\[\]\\]*)\]\[([^\[\]\\^][^\[\]\\]*)\]\*", pattern)
    if shape is None or not pattern.isascii() or any(c < " " for c in pattern):
        return None
    printable = [chr(b) for b in range(0x20, 0x7F)]
    first, rest = ("".join(c for c in printable if re.fullmatch(f"[{cls}]", c)).encode("ascii")
                   for cls in shape.groups())
    return first, rest


_ASCII_BLANKS = " \t\r\x0b\x0c\x1c\x1d\x1e\x1f"  # what str.strip() removes in ASCII, the line break apart


def _ids_plainly_match(joined: str, pattern: str) -> bool:
    """Whether the ids joined by line breaks (none holding one) pass ``check_ids``' per-id checks, by one
    regex: each fullmatches ``pattern``, and none is empty or has a blank at an end (which a pattern may
    allow but the checks refuse first). False when unsure: the per-id checks then decide."""
    return (_cannot_span_lines(pattern) and _plainly_unpadded(joined) is True
            and re.fullmatch(rf"(?:(?:{pattern})\n)*(?:{pattern})", joined) is not None)


def _plainly_unpadded(joined: str) -> bool | None:
    """Whether none of the ids joined by line breaks is empty or has a blank at an end (``check_ids``' first
    two checks, which a pattern may let through), found without a string per id; None when unsure (a
    blank somewhere in them, or other than ASCII)."""
    if not joined.isascii() or any(c in joined for c in _ASCII_BLANKS):
        return None
    return bool(joined) and "\n\n" not in joined and joined[0] != "\n" and joined[-1] != "\n"


_SAFE_ESCAPES = frozenset("dw.-_/+()[]{}*?|^$\\")


def _cannot_span_lines(pattern: str) -> bool:
    """Whether ``pattern`` surely never matches a string holding a line break, so that ids joined by
    line breaks can be checked by one regex. Conservative: a negated class, a group extension (flags
    such as ``(?s)``), an escape other than a few plain ones or a control character means "not sure"."""
    if not pattern.isascii() or "[^" in pattern or "[]" in pattern or "(?" in pattern:
        return False
    i = 0
    while i < len(pattern):
        if pattern[i] < " ":
            return False
        if pattern[i] == "\\":
            if pattern[i + 1:i + 2] not in _SAFE_ESCAPES or i + 1 == len(pattern):
                return False
            i += 1
        i += 1
    return True


def _repeated_header(ids: list, tab, definition: CompetitionDefinition, log: ProblemLog) -> None:
    """Name a header line repeated inside the file as such, not as a bad id and a bad label."""
    for i in (i for i, id_ in enumerate(ids) if id_ == definition.id_column):
        if tab.cell(i, definition.prediction_column) == definition.prediction_column:
            log.error("repeated_header", "the header line appears again here (two files pasted together?); "
                      "remove this line", int(tab.lines[i]), 1)
