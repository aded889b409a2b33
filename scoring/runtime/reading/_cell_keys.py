"""Cells as comparable keys, straight from the file's bytes: no Python string per row.

A cell's bytes, read as little-endian 8-byte words (``cell_words``, zero past
its end), identify it exactly: two cells are equal when their lengths and
words are. From the words come 64-bit hashes (``words_hash``), group codes for
a column such as ``transect_id`` (``cell_codes``) and matches against a handful
of allowed values such as ``Public``/``Private`` (``match_cells``).
"""

from __future__ import annotations

import numpy as np


def words_view(raw: bytes) -> np.ndarray:
    """words[i] = raw[i:i + 8] as a little-endian uint64: a strided view, no copy."""
    return np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))


# LOW_BYTES[j]: the low j bytes of a word set (the first j bytes of a cell, or the places to pad)
LOW_BYTES = np.array([(1 << (8 * j)) - 1 for j in range(9)], dtype=np.uint64)


def cell_words(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """(chunks, n_fields) uint64: bytes 8c to 8c + 7 of each field as the low bytes of word c, zeros
    past its end. Two fields are equal exactly when their lengths and these words are."""
    length = ends - starts
    n_chunks = (int(length.max()) + 7) // 8 if len(starts) and len(raw) else 0
    if not n_chunks:
        return np.zeros((0, len(starts)), dtype=np.uint64)
    words = words_view(raw if len(raw) >= 8 else raw + bytes(8 - len(raw)))
    offsets = np.arange(0, 8 * n_chunks, 8, dtype=np.int64)[:, None]
    if len(starts) <= _WORD_BLOCK:
        return _chunks(words, starts, length, offsets)  # (a few numpy calls for every chunk of every cell)
    out = np.empty((n_chunks, len(starts)), dtype=np.uint64)
    for lo in range(0, len(starts), _WORD_BLOCK):
        out[:, lo:lo + _WORD_BLOCK] = _chunks(words, starts[lo:lo + _WORD_BLOCK], length[lo:lo + _WORD_BLOCK],
                                              offsets)
    return out


_WORD_BLOCK = 1 << 15  # cells per step of cell_words: its temporaries stay a few MB, as one chunk of 200,000 cells


def cells_match_words(raw: bytes, starts: np.ndarray, ends: np.ndarray, words: np.ndarray) -> bool:
    """Whether ``cell_words(raw, starts, ends)`` equals ``words`` (cells of the same lengths as those
    ``words`` were made of), one chunk at a time: no table of the cells' words held (issue 54)."""
    chunks = _chunk_makers(raw, starts, ends)
    return len(chunks) == len(words) and all(np.array_equal(chunk(), w) for chunk, w in zip(chunks, words))


def cell_hashes(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``words_hash(cell_words(raw, starts, ends), ends - starts)``, one chunk of the words at a time."""
    return words_hash((chunk() for chunk in _chunk_makers(raw, starts, ends)), ends - starts)


def _chunk_makers(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> list:
    """For each row of ``cell_words(raw, starts, ends)``, a function making it."""
    length = ends - starts
    n_chunks = (int(length.max()) + 7) // 8 if len(starts) and len(raw) else 0
    if not n_chunks:
        return []
    view = words_view(raw if len(raw) >= 8 else raw + bytes(8 - len(raw)))
    return [lambda o=np.array([[8 * chunk]], dtype=np.int64): _chunks(view, starts, length, o)[0]
            for chunk in range(n_chunks)]


def compact_cells(raw: bytes, starts: np.ndarray, ends: np.ndarray, words: np.ndarray | None = None
                  ) -> tuple[bytes, np.ndarray, np.ndarray]:
    """The same cells copied into bytes of their own, one cell's ``cell_words`` after the other.

    A caller that keeps a few columns, as the solution keeps its ids, then does not keep the whole file.
    ``words`` are the cells' words when already made. The cells come back unchanged when the copy would not
    be smaller."""
    length = ends - starts
    n_chunks = (int(length.max()) + 7) // 8 if len(starts) else 0
    if not n_chunks or 8 * n_chunks * len(starts) >= len(raw):  # (every cell empty: nothing to keep)
        return raw, starts, ends
    words = cell_words(raw, starts, ends) if words is None else words
    at = np.arange(0, 8 * n_chunks * len(starts), 8 * n_chunks, dtype=np.int64)
    return words.T.tobytes(), at, at + length


def words_hash(words, length: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each field from its ``cell_words`` (the table, or its rows one after the other) and
    length: equal fields get equal hashes (unequal ones almost surely not), mixed by multiply-xorshift steps."""
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


def _chunks(words: np.ndarray, starts: np.ndarray, length: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(len(offsets), cells) uint64: bytes o to o + 7 of each field, for each o of ``offsets`` (a column of
    multiples of 8), as the low bytes of a uint64, zeros past its end."""
    at = starts + offsets
    rest = length - offsets  # each chunk's bytes: below 1 or above 8 for some fields
    np.minimum(rest, 8, out=rest)  # (np.clip: several times the overhead)
    np.maximum(rest, 0, out=rest)
    last = len(words) - 1
    if not at.size or int(at[-1].max()) <= last:
        w = words[at]  # every word lies within the data (not words.take: it copies a strided view whole first)
    else:
        w = words[np.minimum(at, last)]
        # the few chunks that start in the last 7 bytes: the last word, its bytes shifted down (a chunk past
        # the data holds no byte of its field: masked below)
        tail = np.flatnonzero(at.ravel() > last)
        w.ravel()[tail] >>= (at.ravel()[tail] - last).astype(np.uint64) * np.uint64(8)
    if not rest.size or int(rest.min()) < 8:  # (chunks that every field fills need no mask)
        w &= LOW_BYTES[rest]
    return w


_MIX = np.uint64(0x9E3779B97F4A7C15)
_FIRST = np.zeros((1, 1), dtype=np.int64)  # ``_chunks``' offsets for the first chunk alone


def match_cells(raw: bytes, starts: np.ndarray, ends: np.ndarray, values: list[bytes]) -> np.ndarray:
    """Index into ``values`` of each cell's exact bytes (the first of equal values), -1 for a cell equal to
    none of them.

    For columns with a handful of allowed values (``Public``/``Private``): every cell's first 8 bytes
    compared as one word, any further byte one by one, instead of one Python string per row.
    """
    length = ends - starts
    out = np.full(len(starts), -1, dtype=np.int64)
    if not len(starts):
        return out
    head = _chunks(words_view(raw if len(raw) >= 8 else raw + bytes(8 - len(raw))), starts, length, _FIRST)[0]
    a = np.frombuffer(raw, dtype=np.uint8)
    for k, value in enumerate(values):
        rows = np.flatnonzero((length == len(value)) & (head == np.uint64(int.from_bytes(value[:8], "little")))
                               & (out < 0))
        for j in range(8, len(value)):
            rows = rows[a[starts[rows] + j] == value[j]]
        out[rows] = k
    return out
