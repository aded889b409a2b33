"""Vectorised CSV tokenising for regular files: field byte spans without a Python loop.

Submissions are almost always regular: one record per line, the same number of
fields on every line, fields either bare or wrapped in one pair of double quotes
with no quote inside. For such files numpy finds every field's byte span in a
few passes over the bytes. Anything else (a quote inside a field, a field over
several lines, a blank line, a ragged row, a lone CR) returns None and the caller
falls back to Python's ``csv`` module, which then locates each problem.
"""

from __future__ import annotations

import numpy as np

_QUOTE, _LF, _CR = ord('"'), ord("\n"), ord("\r")
_OTHER, _DIGIT, _COMMA, _SPACE = 0, 1, 2, 3
_BYTE_KIND = np.zeros(256, dtype=np.uint8)
_BYTE_KIND[ord("0"):ord("9") + 1] = _DIGIT
_BYTE_KIND[ord(",")] = _COMMA
_BYTE_KIND[ord(" ")] = _SPACE


def field_spans(raw: bytes, delimiter: str, n_fields: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(starts, ends), each shaped (n_records, n_fields), of field contents (quotes excluded).

    Record 0 is the header. ``raw`` must be the clean UTF-8 bytes (no BOM).
    Only sparse positions (quotes, line ends, delimiters) are ever indexed, so
    the cost is a few byte comparisons over the file plus work per field.
    """
    a = np.frombuffer(raw, dtype=np.uint8)
    if not len(a):
        return None
    if a[-1] != _LF:
        a = np.concatenate([a, np.array([_LF], dtype=np.uint8)])
    quotes = np.flatnonzero(a == _QUOTE)

    def inside(pos: np.ndarray) -> np.ndarray:  # an odd number of quotes before pos
        return np.searchsorted(quotes, pos) % 2 == 1

    lf = np.flatnonzero(a == _LF)
    if inside(lf).any():
        return None  # a field spans lines
    cr = np.flatnonzero(a == _CR)
    if len(cr) and (cr[-1] + 1 >= len(a) or (a[cr + 1] != _LF).any()):
        return None  # lone CR (old Mac line ends) or CR inside a field
    delim = np.flatnonzero(a == ord(delimiter))
    delim = delim[~inside(delim)]
    rec_start = np.concatenate([[0], lf[:-1] + 1])
    rec_end = lf - (a[np.maximum(lf - 1, 0)] == _CR)  # exclude the CR of CRLF
    if (rec_end <= rec_start).any():
        return None  # a blank line
    per_rec = np.bincount(np.searchsorted(lf, delim), minlength=len(lf))
    if (per_rec != n_fields - 1).any():
        return None  # ragged
    d = delim.reshape(len(lf), n_fields - 1)
    starts = np.concatenate([rec_start[:, None], d + 1], axis=1)
    ends = np.concatenate([d, rec_end[:, None]], axis=1)
    # quotes: either none in the field, or exactly its first and last byte
    n_quotes = np.searchsorted(quotes, ends) - np.searchsorted(quotes, starts)
    quoted = n_quotes == 2
    if not ((n_quotes == 0) | quoted).all():
        return None
    qs, qe = starts[quoted], ends[quoted]
    if not ((qe - qs >= 2).all() and (a[qs] == _QUOTE).all() and (a[qe - 1] == _QUOTE).all()):
        return None
    return starts + quoted, ends - quoted


def decode_spans(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    return [raw[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]


def int_lists(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Parse cells written as ``[1, 22, 333]`` into (sizes, concatenated ints), all in numpy.

    Returns None unless every cell is plainly well formed: brackets first and
    last, only digits, commas and spaces inside, one number between commas, no
    leading zero, at most 18 digits. The caller's slow path then judges each cell.
    """
    n = len(starts)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    a = np.frombuffer(raw, dtype=np.uint8)
    if ((ends - starts) < 2).any() or (a[starts] != ord("[")).any() or (a[ends - 1] != ord("]")).any():
        return None
    inner_s, inner_e = starts + 1, ends - 1
    # membership of each byte in a cell interior: +1 at a start, -1 at an end (cells never overlap)
    step = np.zeros(len(a) + 1, dtype=np.int8)
    step[inner_s] += 1  # starts are distinct, and so are ends
    step[inner_e] -= 1
    in_cell = np.cumsum(step[:-1], dtype=np.int8).astype(bool)
    kind = _BYTE_KIND[a]  # one table lookup instead of a comparison per byte class
    if (in_cell & (kind == _OTHER)).any():
        return None
    digit = (kind == _DIGIT) & in_cell
    # digit runs never touch the file's first or last byte, so edges alternate start, end
    edges = np.flatnonzero(digit[1:] != digit[:-1]) + 1
    run_start, run_end = edges[0::2], edges[1::2]
    commas = np.flatnonzero((kind == _COMMA) & in_cell)
    runs_per_cell = np.bincount(np.searchsorted(inner_s, run_start, side="right") - 1, minlength=n)
    commas_per_cell = np.bincount(np.searchsorted(inner_s, commas, side="right") - 1, minlength=n)
    if not np.array_equal(np.where(runs_per_cell > 0, commas_per_cell + 1, commas_per_cell), runs_per_cell):
        return None  # empty item, doubled comma, or two numbers without a comma
    run_len = run_end - run_start
    if len(run_len) and (run_len.max() > 18 or ((run_len > 1) & (a[run_start] == 48)).any()):
        return None
    # Horner's rule, one vectorised step per digit position (ids have at most 18 digits)
    values = np.zeros(len(run_start), dtype=np.int64)
    last = len(a) - 1
    for k in range(int(run_len.max()) if len(run_len) else 0):
        digit_k = a[np.minimum(run_start + k, last)].astype(np.int64) - 48
        values = np.where(run_len > k, values * 10 + digit_k, values)
    return runs_per_cell.astype(np.int64), values
