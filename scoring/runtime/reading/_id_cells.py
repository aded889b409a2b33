"""Id cells: checked from their bytes when they plainly pass, by the strict per-id rules otherwise.

``CheckedIds`` holds an id column as its bytes (``tokenize.Cells``' spans): whether
every id matches the competition's pattern and no two are equal is found
without a Python string per id (``plainly_valid``), and a submission that holds
the solution's ids, in the same or another order, is recognised byte for byte
(``same_column``, ``order_in``). ``check_ids`` is the specification: the strict
rules, id by id, which also word each problem; it runs whenever the bytes do not
plainly pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..definition import CompetitionDefinition
from ..problems import ProblemLog
from . import _cell_keys as cell_keys
from . import _csv_spans as csv_spans

_FORMULA_START = ("=", "+", "-", "@")


@dataclass(frozen=True)
class CheckedIds:
    """An id column kept as its bytes (``Table.spans``).

    Once checked (``plainly_valid`` or ``check_ids``), a submission whose id column holds the same ids,
    in the same or another order, reuses them instead of decoding and checking 200,000 ids again: the
    outcome would be identical. The ids become strings only when something asks for them.
    """
    cells: tuple[bytes, np.ndarray, np.ndarray]  # (raw, starts, ends)
    id_pattern: str | None

    @cached_property  # frozen dataclass: cached_property writes __dict__ directly, which is allowed
    def ids(self) -> list[str]:
        return csv_spans.decode_spans(*self.cells)

    def __len__(self) -> int:
        return len(self.cells[1])

    def plainly_valid(self) -> bool:
        """Whether every id matches the pattern and no two are equal, found without a string per id;
        False when unsure (then ``check_ids`` on the strings decides and names each problem)."""
        if not self.id_pattern or not len(self):
            return False
        classes = _class_sequence(self.id_pattern)
        # (empty ids are refused there; a pattern allowing a space, the one printable blank, is left to it)
        if classes is None or b" " in classes[0] + classes[1] or not self._bytes_in_classes(*classes):
            return False
        sorted_hashes = self._by_hash[0]
        return not bool((sorted_hashes[1:] == sorted_hashes[:-1]).any())  # equal hashes: maybe a duplicate

    def _bytes_in_classes(self, first: bytes, rest: bytes) -> bool:
        """Every id is one byte of ``first`` then bytes of ``rest``: checked on the ids' words (zero-padded
        8-byte chunks, see ``cell_keys.cell_words``) by deleting the allowed bytes (``bytes.translate``)."""
        words, length = self._words
        if not len(words) or int(length.min()) < 1:
            return False
        heads = (words[0] & np.uint64(0xFF)).astype(np.uint8).tobytes()
        if heads.translate(None, first):
            return False
        # what is left must be the zeros: the padding past each id's end and the first bytes set to zero
        # (a zero byte inside an id would be one more); one chunk of every id at a time (issue 54: the whole
        # table copied, as bytes and translated, was three times its size at once in a fresh score's peak)
        n_left = 0
        for chunk, chunk_words in enumerate(words):
            if not chunk:
                chunk_words = chunk_words & ~np.uint64(0xFF)  # the first byte of each id, checked apart: zero here
            left = chunk_words.tobytes().translate(None, rest)
            if left.strip(b"\0"):
                return False
            n_left += len(left)
        return n_left == words.size * 8 - int(length.sum()) + len(length)

    def holds(self, value: bytes) -> bool:
        """Whether one of these ids is ``value``, byte for byte (found once per value: every upload asks a
        solution's ids whether the id column's name is one of them)."""
        found = self.__dict__.setdefault("_holds", {})
        if value not in found:
            found[value] = bool((cell_keys.match_cells(*self.cells, [value]) >= 0).any())
        return found[value]

    def compact(self) -> "CheckedIds":
        """These ids in bytes of their own (``cell_keys.compact_cells``), with what is already known of them:
        a solution keeps its ids, not its file."""
        raw, starts, ends = self.cells
        cells = cell_keys.compact_cells(raw, starts, ends, self._words[0])
        if cells[0] is raw:
            return self
        kept = CheckedIds(cells, self.id_pattern)
        kept.__dict__.update({k: v for k, v in self.__dict__.items() if k in ("ids", "_words", "_by_hash")})
        words, length = self._words
        if words.shape[0]:  # the kept bytes are these words, cell after cell: read from them, not held twice
            view = np.frombuffer(cells[0], dtype=np.uint64).reshape(len(length), words.shape[0]).T
            kept.__dict__["_words"] = (view, length)
            if "_by_hash" in kept.__dict__:
                kept.__dict__["_by_hash"] = kept.__dict__["_by_hash"][:2] + (view, length)
        return kept

    def same_column(self, cells: tuple[bytes, np.ndarray, np.ndarray]) -> bool:
        """Whether ``cells`` (raw, starts, ends) hold exactly these ids, row for row."""
        raw, starts, ends = cells
        mine, my_starts, my_ends = self.cells
        if len(starts) != len(self):
            return False
        if len(starts) and raw[starts[0]:ends[0]] != mine[my_starts[0]:my_ends[0]]:
            return False  # (cheap: another order usually shows at the first id)
        my_words, my_length = self._words
        # equal lengths and equal words (the bytes, zero-padded): equal ids
        return np.array_equal(ends - starts, my_length) and cell_keys.cells_match_words(*cells, my_words)

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
        sorted_hashes, mine, my_words, my_length = self._by_hash
        length = ends - starts
        if int(length.max()) > int(my_length.max()):
            return None  # an id longer than all of these: not these ids (and its words would cost rows x length)
        # (the words a chunk at a time, never as a whole table: issue 54)
        hashes = cell_keys.cell_hashes(raw, starts, ends)
        theirs = np.argsort(hashes)
        hashes = hashes[theirs]
        if not np.array_equal(hashes, sorted_hashes):
            return None
        del hashes, length
        order = np.empty(len(starts), dtype=np.int64)
        order[mine] = theirs
        del theirs
        same = np.array_equal(ends[order] - starts[order], my_length) and cell_keys.cells_match_words(
            raw, starts[order], ends[order], my_words)
        return order if same else None


def check_ids(ids: list[str], lines: np.ndarray, column: int, definition: CompetitionDefinition,
              log: ProblemLog) -> None:
    """Empty, malformed and duplicate ids. Ids are compared exactly: no stripping, no case folding."""
    compiled = re.compile(definition.id_pattern) if definition.id_pattern else None
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
