"""Vectorised CSV tokenising for regular files: field byte spans without a Python loop.

Submissions are almost always regular: one record per line, the same number of
fields on every line, fields either bare or wrapped in one pair of double quotes
with no quote inside. For such files numpy finds every field's byte span from
the positions of the few structural bytes (quotes, delimiters, line ends).
Anything else (a quote inside a field, a field over several lines, a blank line,
a ragged row, a lone CR) returns None and the caller falls back to Python's
``csv`` module, which then locates each problem.

``int_lists`` then reads ``[1, 22, 333]`` cells straight from those bytes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

_QUOTE, _LF, _CR, _SPACE, _COMMA = ord('"'), ord("\n"), ord("\r"), ord(" "), ord(",")


class Spans(NamedTuple):
    starts: np.ndarray  # (n_records, n_fields) first byte of each field's content (quotes excluded)
    ends: np.ndarray  # (n_records, n_fields) one past its last byte
    structural: np.ndarray  # sorted positions of the quotes, delimiters and line ends
    is_quoted_delimiter: np.ndarray  # for each of them: a delimiter byte inside a quoted field
    quoted_delimiter_counts: np.ndarray  # (n_records, n_fields) how many of those each field holds
    crlf_records: int  # records ended by CRLF (the others by LF)

    def quoted_delimiters(self) -> np.ndarray:
        """Sorted positions of the delimiter bytes inside quoted fields (made on demand: most lists of
        ``int_lists`` need only the counts)."""
        return np.compress(self.is_quoted_delimiter, self.structural)


def field_spans(raw: bytes, delimiter: str, n_fields: int) -> Spans | None:
    """Byte spans of every field; record 0 is the header. ``raw``: the clean UTF-8 bytes (no BOM).

    One pass marks the structural bytes; everything after works on their
    positions only (a few per field), never again on every byte.
    """
    a = np.frombuffer(raw, dtype=np.uint8)
    if not len(a) or n_fields < 2:
        return None  # (with one field a blank line would pass for an empty record)
    # a CR is allowed only just before a LF (CRLF line ends): checked by counting below, so CRs
    # need not be located byte by byte
    has_cr = b"\r" in raw
    if has_cr and a[-1] == _CR:
        return None  # a last line ended by a lone CR
    pos = _structural(a, ord(delimiter))
    if a[-1] != _LF:  # a last line without its line end: pretend there is one just past the data
        pos = np.append(pos, len(a))
        kind = np.append(a[pos[:-1]], np.uint8(_LF))
    else:
        kind = a[pos]
    quote = kind == _QUOTE
    count_type = np.int32 if len(pos) < 2**31 else np.int64
    n_quotes_before = np.cumsum(quote, dtype=count_type)  # at a delimiter or line end: the quotes before it
    inside = (n_quotes_before & 1).astype(bool)  # odd: inside a quoted field
    is_lf = kind == _LF
    if (inside & is_lf).any():
        return None  # a field spans lines
    is_delim = kind == ord(delimiter)
    # the field boundaries in file order: each record must be n_fields - 1 delimiters then a line end
    boundary = np.flatnonzero((is_delim & ~inside) | is_lf)
    n_records = int(is_lf.sum())
    if len(boundary) != n_records * n_fields:
        return None  # ragged
    boundary_is_lf = is_lf[boundary].reshape(n_records, n_fields)
    if not boundary_is_lf[:, -1].all() or boundary_is_lf[:, :-1].any():
        return None  # ragged
    bounds = pos[boundary].reshape(n_records, n_fields)  # the delimiter or line end after each field
    quotes_at = n_quotes_before[boundary].reshape(n_records, n_fields)
    # structural bytes strictly inside each field: its quotes and its quoted delimiters
    inside_field = np.diff(boundary, prepend=-1).reshape(n_records, n_fields) - 1
    starts = np.empty_like(bounds)
    starts[:, 1:] = bounds[:, :-1] + 1
    starts[0, 0] = 0
    starts[1:, 0] = bounds[:-1, -1] + 1
    ends = bounds
    n_crlf = 0
    if has_cr:
        crlf = a.take(ends[:, -1] - 1, mode="clip") == _CR  # (a record ending at byte 0 is empty: no CR)
        crlf &= ends[:, -1] > 0
        n_crlf = int(np.count_nonzero(crlf))
        if n_crlf != int(np.count_nonzero(a == _CR)):  # (numpy counts bytes faster than bytes.count)
            return None  # a CR elsewhere than at a line end: a lone CR (old Mac line ends) or inside a field
        ends[:, -1] -= crlf  # exclude the CR of CRLF
    # quotes: either none in the field, or exactly its first and last byte
    n_quotes = _per_field(quotes_at)
    quoted = n_quotes == 2
    if not ((n_quotes == 0) | quoted).all():
        return None
    # (a field without quotes cannot start or end with one, and an empty one starts and ends at a
    # delimiter or line end: comparing every field's first and last byte needs no selection of fields;
    # clipped: an empty last field of a file without its final line end starts just past the data)
    if not (np.array_equal(a.take(starts, mode="clip") == _QUOTE, quoted)
            and np.array_equal(a.take(ends - 1, mode="clip") == _QUOTE, quoted)):
        return None
    starts += quoted
    ends -= quoted
    inside_field -= n_quotes
    return Spans(starts, ends, pos, is_delim & inside, inside_field, n_crlf)


def _structural(a: np.ndarray, delimiter: int) -> np.ndarray:
    """Sorted positions of the quotes, line ends and delimiters in ``a``.

    A block at a time, through two reused masks that stay in the CPU cache: a
    third faster than comparing the whole file at once.
    """
    found = []
    mask = np.empty(min(len(a), _SCAN_BLOCK), dtype=bool)
    other = np.empty_like(mask)
    for lo in range(0, len(a), _SCAN_BLOCK):
        block = a[lo:lo + _SCAN_BLOCK]
        m, o = mask[:len(block)], other[:len(block)]
        np.equal(block, _QUOTE, out=m)
        m |= np.equal(block, _LF, out=o)
        m |= np.equal(block, delimiter, out=o)
        at = np.flatnonzero(m)
        at += lo
        found.append(at)
    if len(found) == 1:
        return found[0]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


_SCAN_BLOCK = 1 << 18  # bytes per step of _structural


def _per_field(running: np.ndarray) -> np.ndarray:
    """Counts per field from running totals taken at the end of each field (in file order)."""
    out = np.empty_like(running)
    np.subtract(running[:, 1:], running[:, :-1], out=out[:, 1:])
    out[0, 0] = running[0, 0]
    np.subtract(running[1:, 0], running[:-1, -1], out=out[1:, 0])
    return out


def decode_spans(raw: bytes, starts: np.ndarray, ends: np.ndarray, text: str | None = None) -> list[str]:
    """The fields as str. ``text``: ``raw`` decoded, when raw is ASCII (then byte and str offsets agree).

    Many fields are gathered into one buffer, a line end after each, and
    decoded and split in one go: two C calls instead of a slice per field. The
    fields of ``field_spans`` never hold a line end and start and end at ASCII
    bytes, so this gives the same strings; a count that disagrees falls back.
    """
    if len(starts) >= 64 and len(raw) and int((ends - starts).sum()) <= 64 * len(starts):  # short fields: ids, names
        fields = _gather_split(raw, starts, ends)
        if fields is not None:
            return fields
    if text is not None:
        return [text[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
    return [raw[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]


def joined_cells(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> bytes:
    """The bytes of the fields, one LF after each (b"" for no field)."""
    if not len(starts):
        return b""
    if not len(raw):
        return b"\n" * len(starts)
    return _gathered(raw, starts, ends).tobytes()


def cell_hashes(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each field's bytes: equal fields get equal hashes (unequal ones almost surely not).

    Mixed by multiply-xorshift steps from ``cell_words``; for matching ids without Python strings.
    """
    return words_hash(cell_words(raw, starts, ends), ends - starts)


def cell_words(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """(chunks, n_fields) uint64: bytes 8c to 8c + 7 of each field as the low bytes of word c, zeros
    past its end. Two fields are equal exactly when their lengths and these words are."""
    length = ends - starts
    n_chunks = (int(length.max()) + 7) // 8 if len(starts) and len(raw) else 0
    out = np.zeros((n_chunks, len(starts)), dtype=np.uint64)
    if n_chunks:
        words = _words(raw if len(raw) >= 8 else raw + bytes(8 - len(raw)))
        for chunk in range(n_chunks):
            out[chunk] = _chunk(words, starts, length, chunk)
    return out


def words_hash(words: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The hash of ``cell_hashes`` from ``cell_words`` and the fields' lengths."""
    h = length.astype(np.uint64) * _MIX
    for w in words:
        h ^= w
        h *= _MIX
        h ^= h >> np.uint64(29)
    return h


def cell_codes(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A code per cell, equal exactly for equal bytes, numbered 0, 1, ... in order of first appearance,
    and the first row of each code; None when two different cells hash alike (then compare strings).

    For group columns (``transect_id``): no Python string per row. Consecutive equal cells are taken
    together first, since a solution sorted by id lists the rows of a transect one after the other.
    """
    n = len(starts)
    if not n:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    words, length = cell_words(raw, starts, ends), ends - starts
    new_run = np.empty(n, dtype=bool)
    new_run[0] = True
    np.not_equal(length[1:], length[:-1], out=new_run[1:])
    for w in words:
        new_run[1:] |= w[1:] != w[:-1]
    heads = np.flatnonzero(new_run)
    head_words, head_length = words[:, heads], length[heads]
    hashes = words_hash(head_words, head_length)
    order = np.argsort(hashes)
    sorted_hashes = hashes[order]
    first = np.empty(len(heads), dtype=bool)
    first[0] = True
    np.not_equal(sorted_hashes[1:], sorted_hashes[:-1], out=first[1:])
    # the earliest run of each hash stands for it; every run must equal its stand-in byte for byte
    earliest = np.minimum.reduceat(order, np.flatnonzero(first))
    stand_in = np.empty(len(heads), dtype=np.int64)
    stand_in[order] = earliest[np.cumsum(first) - 1]
    if not (np.array_equal(head_length[stand_in], head_length) and np.array_equal(head_words[:, stand_in], head_words)):
        return None
    is_first = stand_in == np.arange(len(heads))
    code_of_run = (np.cumsum(is_first) - 1)[stand_in]
    codes = np.repeat(code_of_run, np.diff(np.append(heads, n)))
    return codes, heads[is_first]


def _chunk(words: np.ndarray, starts: np.ndarray, length: np.ndarray, chunk: int) -> np.ndarray:
    """Bytes 8 * chunk to 8 * chunk + 7 of each field as the low bytes of a uint64, zeros past its end."""
    at = starts + 8 * chunk if chunk else starts
    rest = length - 8 * chunk  # this chunk's bytes: below 1 or above 8 for some fields
    np.clip(rest, 0, 8, out=rest)
    if not len(at) or int(at.max()) < len(words):
        w = words[at]  # the usual case: every word lies within the data
    else:
        base = np.minimum(at, len(words) - 1)
        # a field in the last 7 bytes: read the last word and shift its bytes down
        w = words[base] >> ((at - base).astype(np.uint64) * np.uint64(8))
    if not len(rest) or int(rest.min()) < 8:  # (a chunk that every field fills needs no mask)
        w &= _LOW_BYTES[rest]
    return w


_MIX = np.uint64(0x9E3779B97F4A7C15)


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


def int_lists(raw: bytes, starts: np.ndarray, ends: np.ndarray, commas=None,
              comma_counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """Parse cells written as ``[1, 22, 333]`` into (sizes, concatenated ints), all in numpy.

    ``commas``, ``comma_counts``: when the caller already has them, the sorted
    positions of the ``,`` bytes in ``raw`` (every comma inside these cells must
    be among them; or a function giving them) and how many fall in each cell.
    Returns None unless every cell is plainly well formed: brackets first and
    last, items of 1 to 18 digits separated by ``,`` or ``, ``, no leading zero.
    The caller's slow path then judges each cell, so whatever this accepts it
    must read exactly as that path would.
    """
    n = len(starts)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    a = np.frombuffer(raw, dtype=np.uint8)
    if ((ends - starts) < 2).any() or (a[starts] != ord("[")).any() or (a[ends - 1] != ord("]")).any():
        return None
    fixed = _fixed_width_items(raw, a, starts, ends)
    if fixed is not None:
        sizes, item_start, item_end = fixed
        values = parse_digit_runs(raw, item_start, item_end)
        if values is not None:
            return sizes, values
        # (items of other widths whose lengths happen to add up: the general reading below decides)
    if callable(commas):
        commas = commas()
    if commas is None:
        commas = np.flatnonzero(a == _COMMA)
    if comma_counts is None:
        comma_counts = np.searchsorted(commas, ends) - np.searchsorted(commas, starts)
    n_commas = comma_counts
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


def _fixed_width_items(raw: bytes, a: np.ndarray, starts: np.ndarray, ends: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(sizes, item starts, item ends) when every list is ``[d, d, d]`` with items of one width W and one
    separator (``, `` as Python's ``str(list)`` writes it, or ``,``); None otherwise.

    PlantCLEF species ids all have 7 digits: then each item's place follows from the cell's start and
    its length, with no need to locate a comma. Brackets are checked by the caller; here, every
    separator is checked at its place, and ``parse_digit_runs`` checks that the items are digits, so
    the cell can hold nothing else.
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
    sizes[length <= 2] = 0
    total = int(sizes.sum())
    first_item = np.cumsum(sizes)
    first_item -= sizes
    # item g of cell c starts at starts[c] + 1 + (g - first_item[c]) * stride
    base = starts + 1
    base -= first_item * stride
    item_start = np.repeat(base, sizes)
    item_start += np.arange(0, total * stride, stride, dtype=np.int64)
    n_separators = total - len(nonempty)
    if n_separators:
        before = item_start - gap
        if int(starts.min()) < 1:  # a cell at the very start of the data: its first item has only '[' before it
            np.maximum(before, 0, out=before)
        found = a[before] == _COMMA
        if gap == 2:
            before += 1
            found &= a[before] == _SPACE
        found = int(np.count_nonzero(found))
        # a list's first item follows its '[', never a separator: every other item must follow one
        if found != n_separators:
            return None
    return sizes, item_start, item_start + width


_ZEROS = np.uint64(0x3030303030303030)  # eight ASCII '0'
_PLUS_46 = np.uint64(0x4646464646464646)
_HIGH_BITS = np.uint64(0x8080808080808080)
# eight digit bytes -> four 2-digit numbers -> two 4-digit numbers -> one 8-digit number
_SWAR_STEPS = [(np.uint64(0x0F0F0F0F0F0F0F0F), np.uint64(2561), np.uint64(8)),
               (np.uint64(0x00FF00FF00FF00FF), np.uint64(6553601), np.uint64(16)),
               (np.uint64(0x0000FFFF0000FFFF), np.uint64(42949672960001), np.uint64(32))]
# _LOW_BYTES[j]: the low j bytes set; j = 8 - digits pads a chunk of `digits` digits with '0's
_LOW_BYTES = np.array([(1 << (8 * j)) - 1 for j in range(9)], dtype=np.uint64)


def parse_digit_runs(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
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
    words = _words(raw)
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
            low = _LOW_BYTES[8 - min(max(first - 8 * chunk, 0), 8)]
            w = words[at]  # a fresh array: everything below works in place on it
            w &= ~low
            w |= _ZEROS & low  # bytes before the chunk become leading '0's
        else:
            digits = np.clip(length - 8 * chunk, 0, 8)
            if ((at < 0) & (digits > 0)).any():
                return False
            w = words[np.maximum(at, 0)]
            low = _LOW_BYTES[8 - digits]
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


def _words(raw: bytes) -> np.ndarray:
    """words[i] = raw[i:i + 8] as a little-endian uint64: a strided view, no copy."""
    return np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))


def match_cells(raw: bytes, starts: np.ndarray, ends: np.ndarray, values: list[bytes]) -> np.ndarray:
    """Index into ``values`` of each cell's exact bytes, -1 for a cell equal to none of them.

    For columns with a handful of allowed values (``Public``/``Private``): a few
    byte comparisons per row instead of building one Python string per row.
    """
    a = np.frombuffer(raw, dtype=np.uint8)
    words = _words(raw) if len(raw) >= 8 else None
    length = ends - starts
    out = np.full(len(starts), -1, dtype=np.int64)
    if words is not None and len(starts) and max(map(len, values), default=9) <= 8 and int(starts.max()) < len(words):
        # every value fits in 8 bytes (Public, Private, Ignored): one word per cell, compared with each value
        head = words[starts]
        head &= _LOW_BYTES[np.minimum(length, 8)]
        for k in range(len(values) - 1, -1, -1):  # (backwards: the first of equal values wins, as below)
            hit = head == np.uint64(int.from_bytes(values[k], "little"))
            hit &= length == len(values[k])
            out.put(np.flatnonzero(hit), k)
        return out
    for k, value in enumerate(values):
        rows = np.flatnonzero((length == len(value)) & (out < 0))
        head = 0
        if words is not None and value:
            # the first 8 bytes in one comparison (a cell in the last 7 bytes of the file: byte by byte)
            head = min(len(value), 8)
            by_word = starts[rows] < len(words)
            whole = rows[by_word]
            whole = whole[(words[starts[whole]] & _LOW_BYTES[head]) == np.uint64(int.from_bytes(value[:head], "little"))]
            tail = rows[~by_word]
            for j in range(head):
                tail = tail[a[starts[tail] + j] == value[j]]
            rows = np.concatenate([whole, tail])
        for j in range(head, len(value)):
            rows = rows[a[starts[rows] + j] == value[j]]
        out[rows] = k
    return out
