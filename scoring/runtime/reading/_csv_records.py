"""Every record of a well-formed CSV file by numpy, whatever its line ends and quoted fields.

``csv_spans.line_fields`` takes files whose quotes are simple (each quoted field whole and on one line, no
quote inside) and whose lines end in LF or CRLF. This takes the rest of the files Python's strict ``csv``
reader reads without an error: lone CRs as line ends (old Mac files), doubled quotes inside quoted fields
(``"a ""b"" c"``: one quote each in the cell), quoted fields over several lines. It reads them as the csv
module does: a quote opens a quoted field only at the start of a field, inside one a quote is either the
first of a doubled pair or the closing quote, and outside quotes a LF, a CR or a CRLF ends the record.

The quotes decide it all: the k-th quote of the file has k quotes before it, so the even ones (0, 2, ...)
open a field or are the second of a doubled pair, and the odd ones close a field or start a pair. A byte
outside quotes has an even number of quotes before it. A file where a quote stands anywhere else (inside an
unquoted field, before text after a closing quote, never closed) returns None, and the csv module reads it
and names where it stops (``tokenize._read_irregular``).

Lines are counted as the csv module's reader is fed them: each LF, lone CR and CRLF ends one, inside quotes
too, so a record over several lines is named by its first.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

_QUOTE, _LF, _CR = ord('"'), ord("\n"), ord("\r")

__all__ = ["Records", "records", "structural_positions"]


class Records(NamedTuple):
    """Every field of every record, in file order (quotes excluded, a CRLF's CR too), into ``raw``: the
    file itself, or where it has doubled quotes a copy with one quote of each pair taken out. For each
    record: how many fields it has, whether it is blank (no byte but its line end: the csv module's empty
    record) and the line it starts on (1-based)."""
    raw: bytes
    starts: np.ndarray  # (n_fields_in_all,)
    ends: np.ndarray
    counts: np.ndarray  # (n_records,)
    blank: np.ndarray  # (n_records,) bool
    lines: np.ndarray  # (n_records,) int64


def records(raw: bytes, delimiter: str) -> Records | None:
    """The records of ``raw`` (clean UTF-8, no BOM) as the strict csv reader reads them; None for a file it
    would refuse or that needs it to say where (a quote out of place, a quoted field never closed).

    Positions are int32 where the file allows and fields are picked by masks: a file of lone CRs has a
    structural byte per byte, and the peak must stay a few times the file
    (``tests/scoring/runtime/reading/test_memory_bounds.py``).
    """
    a = np.frombuffer(raw, dtype=np.uint8)
    if not len(a):
        return None
    delim = ord(delimiter)
    small = np.int32 if len(a) < 2**31 - 1 else np.int64
    has_cr = b"\r" in raw
    pos = structural_positions(a, delim, with_cr=has_cr, dtype=small)
    kind = a[pos]
    is_quote = kind == _QUOTE
    n_quotes = int(np.count_nonzero(is_quote))
    if n_quotes % 2:
        return None  # a quoted field never closed: the csv module names the line
    removed = None  # the second quote of each doubled pair, taken out of the cells' bytes
    if n_quotes:
        quotes = pos[is_quote]
        removed = _doubled(a, quotes, delim)
        if removed is None:
            return None
        del quotes
        outside = (np.cumsum(is_quote, dtype=small) & 1) == 0  # (at a quote: not read below)
    else:
        outside = np.ones(len(pos), dtype=bool)
    del is_quote
    # the line ends: every LF, every CR not followed by a LF (inside quotes too: they count lines)
    line_end = kind == _LF
    if has_cr:
        is_cr = kind == _CR
        at_cr = pos[is_cr]
        lone = a.take(at_cr + 1, mode="clip") != _LF
        lone |= at_cr == len(a) - 1
        is_cr[is_cr] = lone
        line_end |= is_cr
        del is_cr, at_cr, lone
    inside_ends = n_quotes and bool((line_end & ~outside).any())
    all_ends = pos[line_end] if inside_ends else None
    outside &= (kind == delim) | line_end  # the field boundaries: delimiters and line ends outside quotes
    del kind
    ends = pos[outside]
    at_end = line_end[outside]
    del outside, line_end, pos
    if a[-1] != _LF and a[-1] != _CR:  # a last line without its line end: one pretended just past the data
        ends = np.append(ends, small(len(a)))
        at_end = np.append(at_end, True)
    starts = np.empty_like(ends)
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    if has_cr:  # a CRLF's CR is no part of the field it ends
        crlf = a.take(ends - 1, mode="clip") == _CR
        crlf &= a.take(ends, mode="clip") == _LF
        crlf &= at_end
        crlf &= ends > 0
        crlf &= ends < len(a)
        ends -= crlf
        del crlf
    last = np.flatnonzero(at_end)  # each record's last field
    del at_end
    counts = np.diff(last, prepend=-1)
    blank = (counts == 1) & (ends[last] == starts[last])  # (a quoted empty field "" is no blank record)
    record_starts = starts[last - counts + 1]
    del last
    if all_ends is None:
        lines = np.arange(1, len(counts) + 1, dtype=np.int64)
    else:  # a quoted field over several lines: a record starts on the line after the line ends before it
        lines = np.searchsorted(all_ends, record_starts).astype(np.int64) + 1
    del record_starts, all_ends
    if n_quotes:
        quoted = a.take(starts, mode="clip") == _QUOTE
        quoted &= starts < len(a)
        starts += quoted
        ends -= quoted
        del quoted
    if removed is not None and len(removed):
        starts -= np.searchsorted(removed, starts).astype(small)
        ends -= np.searchsorted(removed, ends).astype(small)
        keep = np.ones(len(a), dtype=bool)
        keep[removed] = False
        raw = a[keep].tobytes()
    return Records(raw, starts, ends, counts, blank, lines)


def _doubled(a: np.ndarray, quotes: np.ndarray, delim: int) -> np.ndarray | None:
    """The positions of the second quote of each doubled pair, when every quote of the file stands where
    the strict csv reader reads it as a quote (else None): an even one at the start of a field or after an
    odd one (a pair), an odd one before a delimiter, a line end, the end of the file or an even one."""
    opening, closing = quotes[0::2], quotes[1::2]
    before = a.take(opening - 1, mode="clip")
    ok = (before == delim) | (before == _LF) | (before == _CR) | (before == _QUOTE)
    ok |= opening == 0
    if not ok.all():
        return None  # a quote inside an unquoted field: text for the csv module, which keeps it
    after = a.take(closing + 1, mode="clip")
    pair = after == _QUOTE
    pair &= closing < len(a) - 1
    ok = (after == delim) | (after == _LF) | (after == _CR) | pair
    ok |= closing == len(a) - 1
    if not ok.all():
        return None  # text or blanks after a closing quote: the csv module (or ``quote_blanks``) says where
    return closing[pair] + 1


def structural_positions(a: np.ndarray, delimiter: int, *, with_cr: bool, dtype) -> np.ndarray:
    """Sorted positions (``dtype``) of the quotes, LFs, delimiters and (``with_cr``) CRs of ``a``, a block
    at a time through reused masks (as ``csv_spans``' scan)."""
    found = []
    mask = np.empty(min(len(a), _SCAN_BLOCK), dtype=bool)
    other = np.empty_like(mask)
    for lo in range(0, len(a), _SCAN_BLOCK):
        block = a[lo:lo + _SCAN_BLOCK]
        m, o = mask[:len(block)], other[:len(block)]
        np.equal(block, _QUOTE, out=m)
        m |= np.equal(block, _LF, out=o)
        m |= np.equal(block, delimiter, out=o)
        if with_cr:
            m |= np.equal(block, _CR, out=o)
        at = np.flatnonzero(m).astype(dtype)
        at += dtype(lo)
        found.append(at)
    return found[0] if len(found) == 1 else np.concatenate(found)


_SCAN_BLOCK = 1 << 18
