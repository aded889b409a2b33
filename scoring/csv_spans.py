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
    is_quote = a == _QUOTE
    quotes = np.flatnonzero(is_quote)
    # parity of the quotes up to each byte (int8 wraps at 256, parity survives); a delimiter or line
    # end is never a quote itself, so there it is the parity before it: odd means inside quotes
    parity = np.cumsum(is_quote, dtype=np.int8)
    parity &= 1

    def inside(pos: np.ndarray) -> np.ndarray:
        return parity[pos].astype(bool)

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


def decode_spans(raw: bytes, starts: np.ndarray, ends: np.ndarray, text: str | None = None) -> list[str]:
    """The fields as str. ``text``: ``raw`` decoded, when raw is ASCII (then byte and str offsets agree)."""
    if text is not None:
        return [text[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
    return [raw[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]


def int_lists(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Parse cells written as ``[1, 22, 333]`` into (sizes, concatenated ints).

    Returns None unless every cell is plainly well formed: brackets first and
    last, digits separated by ``,`` or ``, ``, no leading zero, at most 18
    digits. The caller's slow path then judges each cell. Everything here is a
    C-speed bytes method or numpy call; the only Python loop slices the cells.
    """
    n = len(starts)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    a = np.frombuffer(raw, dtype=np.uint8)
    if ((ends - starts) < 2).any() or (a[starts] != ord("[")).any() or (a[ends - 1] != ord("]")).any():
        return None
    bodies = [raw[s:e] for s, e in zip((starts + 1).tolist(), (ends - 1).tolist())]
    sizes = np.fromiter((b.count(b",") + 1 if b else 0 for b in bodies), dtype=np.int64, count=n)
    text = b",".join(b for b in bodies if b).replace(b", ", b",")
    if not text:
        return (sizes, np.zeros(0, dtype=np.int64)) if not sizes.any() else None
    if text.translate(None, b"0123456789,") or b",," in text or text[:1] == b"," or text[-1:] == b"," \
            or text[:1] == b"0" or b",0" in text:
        return None  # odd spacing, signs, floats, empty items, leading zeros...
    flat = np.fromstring(text, dtype=np.int64, sep=",")
    # fromstring saturates on overflow: any value this large had 19+ digits
    if len(flat) != int(sizes.sum()) or flat.max() >= 10**18:
        return None
    return sizes, flat
