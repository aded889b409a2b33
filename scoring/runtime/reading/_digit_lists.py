"""Lists of integers such as ``[1395807, 1397463]`` read straight from the file's bytes.

``int_lists`` finds each item of each cell (from the cell's length alone when
every item has one width, as PlantCLEF's 7-digit species ids; else from the
comma positions), and ``parse_digit_runs`` turns the items into int64 eight
digits at a time (SWAR). Either declines (None) on anything not plainly well
formed: the caller's per-cell reader (``label_cells.parse_cell``) then judges
each cell.
"""

from __future__ import annotations

import numpy as np

from ._cell_keys import LOW_BYTES, words_view

_COMMA, _SPACE = ord(","), ord(" ")


def int_lists(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Parse cells written as ``[1, 22, 333]`` into (sizes, concatenated ints), all in numpy.

    Returns None unless every cell is plainly well formed: brackets first and
    last, items of 1 to 18 digits separated by ``,`` or ``, ``, no leading zero.
    The caller's per-cell reader then judges each cell, so whatever this accepts
    it must read exactly as that reader would.
    """
    n = len(starts)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    a = np.frombuffer(raw, dtype=np.uint8)
    length = ends - starts
    if (length < 2).any() or (a[starts] != ord("[")).any() or (a[ends - 1] != ord("]")).any():
        return None
    if int(length.max()) == 2:  # every list empty, ``[]``: what the reading below finds, without its passes
        return np.zeros(n, dtype=np.int64), np.zeros(0, dtype=np.int64)
    fixed = _fixed_width_lists(raw, a, starts, ends)
    if fixed is not None:
        return fixed
    # (a column of another layout, or items of other widths whose lengths happen to add up: the general
    # reading below decides)
    commas = np.flatnonzero(a == _COMMA)
    n_commas = np.searchsorted(commas, ends) - np.searchsorted(commas, starts)
    nonempty = ends - starts > 2
    sizes = np.where(nonempty, n_commas + 1, 0)
    total = int(sizes.sum())
    if total == 0:
        return sizes, np.zeros(0, dtype=np.int64)
    n_inner = int(n_commas.sum())
    if n_inner == len(commas):
        inner = commas  # every comma lies in these cells: the usual case for a two-column file
    else:
        lo = np.searchsorted(commas, starts)
        offsets = np.repeat(lo - (np.cumsum(n_commas) - n_commas), n_commas)
        inner = commas[offsets + np.arange(n_inner)]
    # item k of the file runs from just after its opening '[' or ',' to its closing ',' or ']':
    # the last item of a list ends at its ']', the others at the commas, in file order
    last_item = np.cumsum(sizes)
    last_item -= 1
    all_nonempty = bool(nonempty.all())
    if not all_nonempty:
        last_item = np.compress(nonempty, last_item)
    is_last = np.zeros(total, dtype=bool)
    is_last[last_item] = True
    item_end = np.empty(total, dtype=np.int64)
    item_end[last_item] = (ends if all_nonempty else np.compress(nonempty, ends)) - 1
    item_end.put(np.flatnonzero(~is_last), inner)
    # and each item starts just after the previous one's end, except the first of a list
    item_start = np.empty(total, dtype=np.int64)
    np.add(item_end[:-1], 1, out=item_start[1:])
    if all_nonempty:
        item_start[last_item - sizes + 1] = starts + 1
    else:
        item_start[last_item - np.compress(nonempty, sizes) + 1] = np.compress(nonempty, starts) + 1
    item_start += a[item_start] == _SPACE  # the space of ", "
    values = parse_digit_runs(raw, item_start, item_end)
    return None if values is None else (sizes, values)


def _fixed_width_lists(raw: bytes, a: np.ndarray, starts: np.ndarray, ends: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray] | None:
    """(sizes, concatenated ints) when every list is ``[d, d, d]`` with items of one width W and one
    separator (``, `` as Python's ``str(list)`` writes it, or ``,``); None otherwise.

    PlantCLEF species ids all have 7 digits: then each item's place follows from the cell's start and
    its length, with no need to locate a comma. Brackets are checked by the caller; here, every
    separator is checked at its place, and ``parse_digit_runs`` checks that the items are digits, so
    the cell can hold nothing else. A block of cells at a time (issue 54): the items' places, the
    separators' checks and the digits' words of a block stay in the CPU cache, and only the ints are kept
    (int32 for items of up to 9 digits: half the memory the label sets are built from).
    """
    length = ends - starts
    nonempty = np.flatnonzero(length > 2)
    if not len(nonempty):
        return None
    first_start = int(starts[nonempty[0]]) + 1
    first_end = int(ends[nonempty[0]]) - 1
    comma = raw.find(b",", first_start, first_end)
    width = (comma if comma >= 0 else first_end) - first_start
    gap = 2 if comma >= 0 and raw[comma + 1:comma + 2] == b" " else 1  # separator bytes: ", " or ","
    if not 1 <= width <= 18:
        return None
    stride = width + gap
    # a cell of k items is 2 + k * width + (k - 1) * gap bytes long
    body = length + (gap - 2)
    sizes = body // stride
    if not np.array_equal(sizes * stride, body) if len(nonempty) == len(starts) else \
            not np.array_equal((sizes * stride)[nonempty], body[nonempty]):
        return None
    del body
    sizes[length <= 2] = 0
    del length
    first_item = np.cumsum(sizes)
    first_item -= sizes
    total = int(first_item[-1] + sizes[-1])
    values = np.empty(total, dtype=np.int32 if width <= 9 else np.int64)
    if int(starts.min()) < 1 and total:
        return None  # a cell at the very start of the data: only in toy buffers, where the general reading decides
    words = words_view(raw) if len(raw) >= 8 else None
    for lo in range(0, len(starts), _CELL_BLOCK):
        hi = min(lo + _CELL_BLOCK, len(starts))
        block_sizes = sizes[lo:hi]
        first = int(first_item[lo])
        n = int(first_item[hi - 1] + block_sizes[-1]) - first
        if not n:
            continue
        # item g of cell c starts at starts[c] + 1 + (g - first_item[c]) * stride
        base = starts[lo:hi] + 1
        base -= (first_item[lo:hi] - first) * stride
        item_start = np.repeat(base, block_sizes)
        item_start += np.arange(0, n * stride, stride, dtype=np.int64)
        # a list's first item follows its '[', never a separator: every other item must follow one
        n_separators = n - int(np.count_nonzero(block_sizes))
        if n_separators:
            before = item_start - gap
            found = a[before] == _COMMA
            if gap == 2:
                before += 1
                found &= a[before] == _SPACE
            if int(np.count_nonzero(found)) != n_separators:
                return None
        if words is None:
            return None
        item_start += width
        block = parse_digit_runs(raw, item_start - width, item_start, words=words)
        if block is None:
            return None
        values[first:first + n] = block
    return sizes, values


_CELL_BLOCK = 1 << 10  # cells per step of _fixed_width_lists (about 10,000 items of PlantCLEF lists: see _MATCH_ROWS)


_ZEROS = np.uint64(0x3030303030303030)  # eight ASCII '0'
_PLUS_46 = np.uint64(0x4646464646464646)
_HIGH_BITS = np.uint64(0x8080808080808080)
# eight digit bytes -> four 2-digit numbers -> two 4-digit numbers -> one 8-digit number
_SWAR_STEPS = [(np.uint64(0x0F0F0F0F0F0F0F0F), np.uint64(2561), np.uint64(8)),
               (np.uint64(0x00FF00FF00FF00FF), np.uint64(6553601), np.uint64(16)),
               (np.uint64(0x0000FFFF0000FFFF), np.uint64(42949672960001), np.uint64(32))]
def parse_digit_runs(raw: bytes, starts: np.ndarray, ends: np.ndarray, *, words: np.ndarray | None = None
                     ) -> np.ndarray | None:
    """Integers written as ASCII digits at ``raw[starts[k]:ends[k]]``, or None when any is not
    1 to 18 plain digits or has a leading zero.

    Each run is read as up to three 8-byte little-endian words ending at its
    last digit (a strided uint64 view, so one gather per word), padded with '0's
    and converted with the SWAR arithmetic used by fast JSON parsers: three
    multiply-shift steps per 8 digits instead of a loop over digits.
    """
    n = len(starts)
    if not n:
        return np.zeros(0, dtype=np.int64)
    if len(raw) < 8:
        return None
    a = np.frombuffer(raw, dtype=np.uint8)
    words = words_view(raw) if words is None else words  # (``words``: the caller's ``words_view(raw)``)
    out = np.empty(n, dtype=np.int64)
    scratch = np.empty((2, min(n, _BLOCK)), dtype=np.uint64)
    for lo in range(0, n, _BLOCK):  # a block at a time: its temporaries stay in the CPU cache
        hi = min(lo + _BLOCK, n)
        length = ends[lo:hi] - starts[lo:hi]
        first = int(length[0])
        same_length = bool((length == first).all())  # e.g. every species id has 7 digits
        low, high = (first, first) if same_length else (int(length.min()), int(length.max()))
        if low < 1 or high > 18:
            return None
        leading_zero = a[starts[lo:hi]] == ord("0")
        if high > 1 and (leading_zero.any() if low > 1 else (leading_zero & (length > 1)).any()):
            return None  # leading zero: the slow path names it
        if not _parse_words(words, ends[lo:hi], length, high, same_length, out[lo:hi], scratch[:, :hi - lo]):
            return None
    return out


_BLOCK = 1 << 15  # numbers per step of parse_digit_runs: 256 KiB per temporary


def _parse_words(words: np.ndarray, ends: np.ndarray, length: np.ndarray, longest: int, same_length: bool,
                 out: np.ndarray, scratch: np.ndarray) -> bool:
    """parse_digit_runs for runs known to hold 1 to 18 bytes with no leading '0', into ``out``;
    False when a byte is not a digit. ``scratch``: two uint64 rows as long as ``ends``."""
    bad, other = scratch
    value = out.view(np.uint64)
    first = int(length[0])
    for chunk in range((longest + 7) // 8):
        at = ends - (8 * chunk + 8)  # the word that ends with this chunk's last digit
        if same_length:
            if at.min() < 0:
                return False  # a number within 8 bytes of the file start: only in toy files
            low = LOW_BYTES[8 - min(max(first - 8 * chunk, 0), 8)]
            w = words[at]  # a fresh array: everything below works in place on it
            w &= ~low
            w |= _ZEROS & low  # bytes before the chunk become leading '0's
        else:
            digits = np.clip(length - 8 * chunk, 0, 8)
            if ((at < 0) & (digits > 0)).any():
                return False
            w = words[np.maximum(at, 0)]
            low = LOW_BYTES[8 - digits]
            w &= ~low
            low &= _ZEROS
            w |= low
        # every byte 0x30-0x39: adding 0x46 keeps it below 0x80 and subtracting 0x30 does not
        # borrow; the lowest bad byte of a word sets its high bit in one of the two (fast JSON parsers)
        np.add(w, _PLUS_46, out=bad)
        bad |= np.subtract(w, _ZEROS, out=other)
        bad &= _HIGH_BITS
        if bad.any():
            return False  # a byte that is not a digit
        for mask, multiplier, shift in _SWAR_STEPS:
            w &= mask
            w *= multiplier
            w >>= shift
        if chunk == 0:
            value[...] = w
        else:  # at most 18 digits: below 2**63, so the int64 ``out`` holds the same bits
            w *= np.uint64(10 ** (8 * chunk))
            value += w
    return True
