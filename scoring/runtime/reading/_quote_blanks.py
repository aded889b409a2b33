"""Blanks after closing quotes, found and taken out by numpy: the vectorised twin of ``quote_trouble``.

A file that is regular but for spaces (or tabs) typed after closing quotes, ``"Q-1" ,"[1]"``, is refused
by Python's strict ``csv`` reader record by record, and ``quote_trouble.mend_record`` then names each
blank in a Python loop, many times slower per MB than a regular file. Here the same blanks are found from the
positions of the quotes, and the mended bytes go to the numpy tokenizer (``csv_spans``) like any regular
file. Only files whose quotes are simple take this path: every quoted field opens at the start of a field
and closes on its line, no doubled quote, no lone CR, and after each closing quote only blanks, then the
delimiter, a line end or the end of the file. Anything else returns None and the ``csv`` module reads the
file as before (``tokenize._read_irregular``); tests/scoring/runtime/reading/test_same_as_strict_rules.py holds
the two to the same verdicts.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _csv_records as csv_records

_QUOTE, _LF, _CR, _SPACE, _TAB = ord('"'), ord("\n"), ord("\r"), ord(" "), ord("\t")


class Blanks(NamedTuple):
    """The mended bytes and, in file order, each run of blanks taken out: its line (1-based), the
    character of the mended line it stood at (0-based, as ``mend_record`` counts), how many blanks, and the
    field (1-based) whose closing quote it followed."""
    mended: bytes
    lines: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray
    fields: np.ndarray


def take_out(raw: bytes, delimiter: str) -> Blanks | None:
    """The blanks after closing quotes of ``raw`` (clean UTF-8) taken out, or None
    when the file is not of the simple shape above (then nothing is said about it: the csv module reads it)."""
    if b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n"):
        return None  # a lone CR ends a line for the csv module: not counted here
    a = np.frombuffer(raw, dtype=np.uint8)
    # positions as int32 where the file allows: one line of '"Q-1" ,' holds a quote every 3.5 bytes, and
    # this runs before the csv path would (whose peak, ~20x such a file, it must not pass)
    small = np.int32 if len(a) < 2**31 - 1 else np.int64
    delim = ord(delimiter)
    # Everything from the quotes, line ends and delimiters in file order, by running counts over them (a
    # search of each delimiter among the quotes, and of each quote among the delimiters, took most of the
    # time of a line of 2.7 million '"Q-1" ,')
    pos = csv_records.structural_positions(a, delim, with_cr=False, dtype=small)
    kind = a[pos]
    is_quote = kind == _QUOTE
    at_quote = np.flatnonzero(is_quote).astype(small)  # (index into pos)
    if not len(at_quote) or len(at_quote) % 2:
        return None
    q = pos[at_quote]
    opens, closes = q[0::2], q[1::2]
    before = a[opens[opens > 0] - 1]
    if not ((before == delim) | (before == _LF)).all():
        return None  # a quote inside an unquoted field (kept as text by the csv module), or a doubled quote
    del before, q
    inside = (np.cumsum(is_quote, dtype=small) & 1).astype(bool)  # after an opening quote, to its closing one
    del is_quote
    is_lf = kind == _LF
    if (is_lf & inside).any():
        return None  # a quoted field over several lines
    # the delimiters outside quotes (a line may have any number of them: ragged rows and blank lines are
    # named by ``tokenize`` from the mended bytes, as the csv module names them after mending a record),
    # counted up to each closing quote and to each line end
    inside ^= True
    inside &= kind == delim
    del kind
    delims_so_far = np.cumsum(inside, dtype=small)
    del inside
    at_close = at_quote[1::2]
    del at_quote
    delims_to_close = delims_so_far[at_close]
    delims_to_line_end = delims_so_far[is_lf]
    del delims_so_far
    line_of_close = np.cumsum(is_lf, dtype=small)[at_close]  # 0-based line of each closing quote
    newlines = pos[is_lf]
    del is_lf, at_close, pos
    # the first byte after each closing quote that is not a blank: the delimiter, a line end or the end.
    # Runs of blanks from the blanks' positions alone (a regular file has few: not one index per byte)
    after = closes + 1
    nxt = after.copy()
    # Short runs (one or two blanks typed) a byte at a time over the quotes still on a blank; the quotes left
    # after a few steps (long runs) from the blanks' positions (not one index per byte of the file).
    on = np.arange(len(nxt))
    for step in range(_STEPS + 1):
        byte = a.take(nxt[on], mode="clip")
        on = on[((byte == _SPACE) | (byte == _TAB)) & (nxt[on] < len(a))]
        if not len(on) or step == _STEPS:
            break
        nxt[on] += 1
    if len(on):
        blanks = np.flatnonzero((a == _SPACE) | (a == _TAB)).astype(small)
        k = np.searchsorted(blanks, nxt[on])  # (each still on a blank: found)
        run_last = np.append(np.flatnonzero(np.diff(blanks) != 1), len(blanks) - 1)  # each run's last blank
        nxt[on] = blanks[run_last[np.searchsorted(run_last, k)]] + 1
        del blanks, k, run_last
    del on
    follows = a[np.minimum(nxt, len(a) - 1)]
    if not ((nxt == len(a)) | (follows == delim) | (follows == _LF) | (follows == _CR)).all():
        return None  # text after a closing quote (or a doubled quote): the csv module says where it stops
    del follows
    length = nxt - after
    del nxt
    has = length > 0
    if not has.any():
        return None  # nothing to take out: the numpy tokenizer already refused this file for another reason
    at, length, line = after[has], length[has], line_of_close[has]
    delims_to_close = delims_to_close[has]
    del after, line_of_close, has, opens, closes
    line_start = np.zeros(len(at), dtype=small)
    starts_later = line > 0
    line_start[starts_later] = newlines[line[starts_later] - 1] + 1
    # the column in characters of the mended line: bytes from the line start, less UTF-8 continuation
    # bytes, less the blanks taken out before on the same line (mend_record's "offset in the mended line")
    offset = at - line_start
    if not raw.isascii():
        cont = np.flatnonzero((a & 0xC0) == 0x80)
        offset -= np.searchsorted(cont, at) - np.searchsorted(cont, line_start)
    taken_before = np.cumsum(length) - length
    new_line = np.flatnonzero(np.diff(line, prepend=-1))  # (line ascends with the file)
    first_on_line = np.repeat(new_line, np.diff(np.append(new_line, len(line))))
    del new_line
    offset -= taken_before - taken_before[first_on_line]
    # the field a closing quote closes: 1 + the delimiters outside quotes from the line start to it
    field = delims_to_close + 1
    field[starts_later] -= delims_to_line_end[line[starts_later] - 1]
    del delims_to_close, delims_to_line_end, line_start, taken_before, first_on_line
    keep = np.ones(len(a), dtype=bool)
    if (length == 1).all():  # (one blank typed after each quote: the usual run)
        keep[at] = False
    else:  # every blank of every run: its run's start plus its rank in the run
        rank = np.arange(int(length.sum()), dtype=small) - np.repeat(np.cumsum(length) - length, length)
        keep[np.repeat(at, length) + rank] = False
        del rank
    mended = a[keep].tobytes()
    return Blanks(mended, line + 1, offset, length, field)


_STEPS = 4  # bytes looked at one by one after each closing quote before the runs are found from the blanks
