"""Vectorised CSV tokenising for regular files: field byte spans without a Python loop.

Submissions are almost always regular: one record per line, the same number of
fields on every line, fields either bare or wrapped in one pair of double quotes
with no quote inside. For such files numpy finds every field's byte span from
the positions of the few structural bytes (quotes, delimiters, line ends).
A file whose quotes are as simple but whose lines are not all alike (blank
lines, ragged rows) gets its fields from ``line_fields``: every field of every
line, and how many each line has. Anything else (a quote inside a field, a field
over several lines, a lone CR) returns None and ``tokenize`` reads the file with
Python's ``csv`` module instead, which then locates each problem.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

_QUOTE, _LF, _CR = ord('"'), ord("\n"), ord("\r")


class Spans(NamedTuple):
    starts: np.ndarray  # (n_records, n_fields) first byte of each field's content (quotes excluded)
    ends: np.ndarray  # (n_records, n_fields) one past its last byte
    crlf_records: int  # records ended by CRLF (the others by LF)


def field_spans(raw: bytes, delimiter: str, n_fields: int) -> Spans | None:
    """Byte spans of every field; record 0 is the header. ``raw``: the clean UTF-8 bytes (no BOM).

    One pass over the bytes, a block at a time (``_boundaries``), keeps only the
    field boundaries (a few per record); everything after works on those, never
    again on every byte.
    """
    a = np.frombuffer(raw, dtype=np.uint8)
    if not len(a) or n_fields < 2:
        return None  # (with one field a blank line would pass for an empty record)
    # a CR is allowed only just before a LF (CRLF line ends): checked by counting below, so CRs
    # need not be located byte by byte
    has_cr = b"\r" in raw
    if has_cr and a[-1] == _CR:
        return None  # a last line ended by a lone CR
    found = _boundaries(a, ord(delimiter), count_cr=has_cr)
    if found is None:
        return None  # a field spans lines
    bounds, n_quotes, boundary_is_lf, n_cr = found
    # each record must be n_fields - 1 delimiters then a line end
    n_records = int(np.count_nonzero(boundary_is_lf))
    if len(bounds) != n_records * n_fields:
        return None  # ragged
    boundary_is_lf = boundary_is_lf.reshape(n_records, n_fields)
    if not boundary_is_lf[:, -1].all() or boundary_is_lf[:, :-1].any():
        return None  # ragged
    bounds = bounds.reshape(n_records, n_fields)  # the delimiter or line end after each field
    n_quotes = n_quotes.reshape(n_records, n_fields)
    starts = np.empty_like(bounds)
    np.add(bounds[:, :-1], 1, out=starts[:, 1:])
    starts[0, 0] = 0
    np.add(bounds[:-1, -1], 1, out=starts[1:, 0])
    ends = bounds
    n_crlf = 0
    if has_cr:
        crlf = a.take(ends[:, -1] - 1, mode="clip") == _CR  # (a record ending at byte 0 is empty: no CR)
        crlf &= ends[:, -1] > 0
        n_crlf = int(np.count_nonzero(crlf))
        if n_crlf != n_cr:
            return None  # a CR elsewhere than at a line end: a lone CR (old Mac line ends) or inside a field
        ends[:, -1] -= crlf  # exclude the CR of CRLF
    # quotes: either none in the field, or exactly its first and last byte
    quoted = n_quotes == 2
    if not ((n_quotes == 0) | quoted).all():
        return None
    del n_quotes
    # (a field without quotes cannot start or end with one, and an empty one starts and ends at a
    # delimiter or line end: comparing every field's first and last byte needs no selection of fields;
    # clipped: an empty last field of a file without its final line end starts just past the data)
    if not np.array_equal(a.take(starts, mode="clip") == _QUOTE, quoted):
        return None
    ends -= 1  # (in place: each field's last byte, then back)
    last_is_quote = a.take(ends, mode="clip") == _QUOTE
    ends += 1
    if not np.array_equal(last_is_quote, quoted):
        return None
    starts += quoted
    ends -= quoted
    return Spans(starts, ends, n_crlf)


def _boundaries(a: np.ndarray, delimiter: int, *, count_cr: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """The field boundaries of ``a`` in file order (delimiters outside quotes, line ends; a line end pretended
    just past the data when the last line has none): their positions, the quotes of the field each ends
    (uint8, 3 standing for 3 or more), whether each is a line end, and (with ``count_cr``) how many CR bytes
    ``a`` holds; None when a line end lies inside quotes.

    A block at a time (issue 54): the structural bytes of a block (a few per field, the commas inside quoted
    lists included) are located, classified and dropped while they are in the CPU cache; only the boundaries
    are kept. Locating every structural byte of the file first held about 25 bytes per structural byte at
    once (70 MB for a 24 MB solution), all fresh memory, and was no faster.
    """
    positions, quotes, line_ends = [], [], []
    n_cr = 0
    carry = 0  # the quotes before the block
    at_last = 0  # the quotes before the last boundary so far
    for lo, block, at, block_cr in _blocks_of_structure(a, delimiter, _SPAN_BLOCK, count_cr):
        n_cr += block_cr
        kind = block[at]
        # at each structural byte: the block's quotes up to it (int32: a block is small), so that with the
        # quotes before the block the parity says whether it lies outside quoted fields
        n_quotes_before = np.cumsum(kind == _QUOTE, dtype=np.int32)
        outside = (n_quotes_before & 1) == (carry & 1)
        is_lf = kind == _LF
        if (is_lf > outside).any():
            return None  # a line end inside quotes
        outside &= kind == delimiter
        outside |= is_lf  # the boundaries
        keep = np.flatnonzero(outside)
        at = at[keep]
        at += lo
        positions.append(at)
        line_ends.append(is_lf[keep])
        if len(keep):
            at_keep = n_quotes_before[keep]
            # the quotes of each field ended here (the first's since the last boundary before the block: at
            # least 3, which is all that is told apart, when more than 3 came between)
            per_field = np.diff(at_keep, prepend=np.int32(max(at_last - carry, -3)))
            at_last = carry + int(at_keep[-1])
            quotes.append(np.minimum(per_field, 3).astype(np.uint8))
        if len(n_quotes_before):
            carry += int(n_quotes_before[-1])
    if a[-1] != _LF:  # a last line without its line end: pretend there is one just past the data
        if carry & 1:
            return None
        positions.append(np.array([len(a)], dtype=np.intp))
        quotes.append(np.array([min(carry - at_last, 3)], dtype=np.uint8))
        line_ends.append(np.ones(1, dtype=bool))
    return np.concatenate(positions), np.concatenate(quotes), np.concatenate(line_ends), n_cr


# Bytes per step of _boundaries: its masks and positions stay below the size malloc maps afresh (128 KiB), so a
# warm process scoring upload after upload reuses them without page faults (a 150 KB upload: 340 us, against 530 us
# with 512 KiB steps; a 24 MB file: about 5 ms more).
_SPAN_BLOCK = 1 << 16


class LineFields(NamedTuple):
    """Every field of every line, in file order (quotes excluded, a CRLF's CR too), and for each line how
    many fields it has and whether it is blank (no byte but its line end: the csv module's empty record)."""
    starts: np.ndarray  # (n_fields_in_all,)
    ends: np.ndarray
    counts: np.ndarray  # (n_lines,) fields of each line (a blank line: 1, an empty field)
    blank: np.ndarray  # (n_lines,) bool


def line_fields(raw: bytes, delimiter: str) -> LineFields | None:
    """The fields of a file whose lines may differ in width or be blank, but whose quotes are simple (each
    quoted field whole, on one line, no quote inside; no lone CR); None for any other file.

    A ragged file can hold a field every two bytes (``,x,x,x``): positions are kept as int32 where the
    file allows, and fields are picked by masks, not index arrays, so that the peak stays a few times the
    file (``tests/scoring/runtime/reading/test_memory_bounds.py``).
    """
    a = np.frombuffer(raw, dtype=np.uint8)
    if not len(a):
        return None
    has_cr = b"\r" in raw
    if has_cr and a[-1] == _CR:
        return None
    pos, n_cr = _structural(a, ord(delimiter), count_cr=has_cr)
    if a[-1] != _LF:  # as field_spans: a line end pretended just past the data
        pos = np.append(pos, len(a))
        kind = np.append(a[pos[:-1]], np.uint8(_LF))
    else:
        kind = a[pos]
    small = np.int32 if len(a) < 2**31 - 1 else np.int64
    pos = pos.astype(small)
    n_quotes_before = np.cumsum(kind == _QUOTE, dtype=small)
    outside = (n_quotes_before & 1) == 0
    is_lf = kind == _LF
    if (is_lf & ~outside).any():
        return None  # a field spans lines
    outside &= kind == ord(delimiter)
    outside |= is_lf  # the field boundaries: delimiters outside quotes, line ends
    del kind
    ends = pos[outside]
    at_lf = is_lf[outside]
    n_quotes = np.diff(n_quotes_before[outside], prepend=small(0))
    del pos, n_quotes_before, outside, is_lf
    starts = np.empty_like(ends)
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    if has_cr:
        crlf = a.take(ends - 1, mode="clip") == _CR
        crlf &= at_lf
        crlf &= ends > 0
        if int(np.count_nonzero(crlf)) != n_cr:
            return None  # a lone CR, or a CR inside a field
        ends -= crlf
        del crlf
    quoted = n_quotes == 2
    if not ((n_quotes == 0) | quoted).all():
        return None
    del n_quotes
    if not (np.array_equal(a.take(starts, mode="clip") == _QUOTE, quoted)
            and np.array_equal(a.take(ends - 1, mode="clip") == _QUOTE, quoted)):
        return None
    last = np.flatnonzero(at_lf)  # each line's last field
    del at_lf
    counts = np.diff(last, prepend=-1)
    blank = (counts == 1) & (ends[last] == starts[last])  # (a quoted empty field "" is no blank line)
    starts += quoted
    ends -= quoted
    return LineFields(starts, ends, counts, blank)


def _blocks_of_structure(a: np.ndarray, delimiter: int, block_size: int, count_cr: bool):
    """For each block of ``block_size`` bytes of ``a``: (its start, the block, the positions in it of the quotes,
    line ends and delimiters, its CR bytes when ``count_cr`` else 0), through two reused masks that stay in the
    CPU cache."""
    mask = np.empty(min(len(a), block_size), dtype=bool)
    other = np.empty_like(mask)
    for lo in range(0, len(a), block_size):
        block = a[lo:lo + block_size]
        m, o = mask[:len(block)], other[:len(block)]
        n_cr = int(np.count_nonzero(np.equal(block, _CR, out=o))) if count_cr else 0
        np.equal(block, _QUOTE, out=m)
        m |= np.equal(block, _LF, out=o)
        m |= np.equal(block, delimiter, out=o)
        yield lo, block, np.flatnonzero(m), n_cr


def _structural(a: np.ndarray, delimiter: int, *, count_cr: bool = False) -> tuple[np.ndarray, int]:
    """Sorted positions of the quotes, line ends and delimiters in ``a``, and (with ``count_cr``) how many
    CR bytes it holds.

    A block at a time (``_blocks_of_structure``): a third faster than comparing the whole file at once.
    """
    found = []
    n_cr = 0
    for lo, _, at, block_cr in _blocks_of_structure(a, delimiter, _SCAN_BLOCK, count_cr):
        n_cr += block_cr
        at += lo
        found.append(at)
    if len(found) == 1:
        return found[0], n_cr
    return (np.concatenate(found) if found else np.zeros(0, dtype=np.intp)), n_cr


_SCAN_BLOCK = 1 << 18  # bytes per step of _structural and count_byte


def count_byte(raw: bytes, byte: int) -> int:
    """How many times ``byte`` occurs in ``raw``: a block at a time through one reused mask (3 ms for a
    24 MB file, against 8 ms comparing the whole file at once, whose 24 MB mask is fresh memory, and 9 ms
    for ``bytes.count``)."""
    a = np.frombuffer(raw, dtype=np.uint8)
    mask = np.empty(min(len(a), _SCAN_BLOCK), dtype=bool)
    found = 0
    for lo in range(0, len(a), _SCAN_BLOCK):
        block = a[lo:lo + _SCAN_BLOCK]
        found += int(np.count_nonzero(np.equal(block, byte, out=mask[:len(block)])))
    return found


def count_crlf(raw: bytes) -> int:
    """How many CRLF pairs ``raw`` holds: a block at a time, as ``count_byte`` (``bytes.count(b"\\r\\n")``
    takes 90 ms on 19 MB of lone CRs, each a partial match)."""
    a = np.frombuffer(raw, dtype=np.uint8)
    n = len(a) - 1
    mask = np.empty(min(max(n, 0), _SCAN_BLOCK), dtype=bool)
    other = np.empty_like(mask)
    found = 0
    for lo in range(0, max(n, 0), _SCAN_BLOCK):
        hi = min(lo + _SCAN_BLOCK, n)
        m, o = mask[:hi - lo], other[:hi - lo]
        np.equal(a[lo:hi], _CR, out=m)
        m &= np.equal(a[lo + 1:hi + 1], _LF, out=o)
        found += int(np.count_nonzero(m))
    return found


def decode_spans(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """The fields as str.

    Many fields are gathered into one buffer, a line end after each, and
    decoded and split in one go: two C calls instead of a slice per field. The
    fields of ``field_spans`` never hold a line end and start and end at ASCII
    bytes, so this gives the same strings; a count that disagrees falls back.
    """
    if len(starts) >= 64 and len(raw) and int((ends - starts).sum()) <= 64 * len(starts):  # short fields: ids, names
        fields = _gather_split(raw, starts, ends)
        if fields is not None:
            return fields
    return [raw[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]


def _gather_split(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> list[str] | None:
    fields = _gathered(raw, starts, ends)[:-1].tobytes().decode("utf-8").split("\n")
    return fields if len(fields) == len(starts) else None


def _gathered(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The bytes of every field, in the given order, each followed by a LF: one buffer (``raw`` non-empty)."""
    length = ends - starts
    slot = np.cumsum(length + 1, dtype=np.intp)  # one past each field's separator in the buffer
    buffer = np.empty(int(slot[-1]), dtype=np.uint8)
    source = np.frombuffer(raw, dtype=np.uint8)
    # a block of fields at a time, through one reused index array: an index per byte of the whole
    # column would be 8 times the column's size in fresh memory (page faults cost more than the gather)
    step = np.empty(min(len(buffer), _GATHER_BLOCK), dtype=np.intp)
    lo = 0
    while lo < len(length):
        first = int(slot[lo - 1]) if lo else 0
        hi = int(np.searchsorted(slot, first + len(step), side="right"))
        hi = max(hi, lo + 1)
        last = int(slot[hi - 1])
        if last - first > len(step):
            step = np.empty(last - first, dtype=np.intp)  # one field longer than a block
        block = step[:last - first]
        # buffer index p -> raw index, as a running sum: +1 within a field, a jump to the next field's start
        block.fill(1)
        block[0] = starts[lo]
        block[slot[lo:hi - 1] - first] = starts[lo + 1:hi] - ends[lo:hi - 1]
        np.cumsum(block, out=block)
        source.take(block, out=buffer[first:last], mode="clip")
        lo = hi
    buffer[slot - 1] = _LF
    return buffer


_GATHER_BLOCK = 1 << 16  # bytes per step of _gathered: a 512 KiB index array
