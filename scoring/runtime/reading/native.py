"""The compiled readers of the optional ``agrieval-native`` package, when installed.

``csv_spans.field_spans`` and ``digit_lists.int_lists`` ask here first. Each
function gives exactly what its numpy twin gives, or None, and the numpy twin
then does the work: the package changes how fast a file is read, never what is
read (``tests/scoring/test_native_reader.py`` holds both to that). Where it is
not installed (the grading platforms' bundles carry only this folder), or
``AGRIEVAL_NATIVE=0`` is set, every function here returns None.

The compiled code works in one pass over the bytes without the interpreter
lock; the numpy twins make a dozen passes over fresh arrays.
"""

from __future__ import annotations

import os

import numpy as np

_ABI = 1  # the agrieval_native._reader interface this module speaks


def _load():
    if os.environ.get("AGRIEVAL_NATIVE", "1") == "0":
        return None
    try:
        from agrieval_native import _reader
    except ImportError:
        return None
    return _reader if getattr(_reader, "ABI", None) == _ABI else None


READER = _load()  # the compiled module, or None (tests set it to None to run the numpy twins)

# What the functions below return when the compiled code read the file and found it irregular: the numpy
# twin would decline too, so the caller goes straight to the strict per-cell reader.
DECLINED = "declined"


def available() -> bool:
    return READER is not None


def field_spans(raw: bytes, delimiter: str, n_fields: int, n_lines: int | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | str | None:
    """(starts, ends, quoted delimiters per field, CRLF records) as ``csv_spans.field_spans`` finds them,
    ``DECLINED`` where it finds none (the file is not regular), None when not installed.
    ``n_lines``: the LF bytes in ``raw``, if known."""
    if READER is None or len(delimiter) != 1 or ord(delimiter) > 127:
        return None
    if n_lines is None:
        n_lines = raw.count(b"\n")
    capacity = n_lines + 1  # (a last line without its line end is a record too)
    starts = np.empty((capacity, n_fields), dtype=np.int64)
    ends = np.empty_like(starts)
    quoted_delimiters = np.empty_like(starts)
    found = READER.field_spans(raw, ord(delimiter), n_fields, starts, ends, quoted_delimiters)
    if found is None:
        return DECLINED
    n_records, crlf_records = found
    return starts[:n_records], ends[:n_records], quoted_delimiters[:n_records], crlf_records


def int_lists(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | str | None:
    """(sizes, concatenated ints) of cells written as ``[1, 22, 333]``, as ``digit_lists.int_lists`` reads
    them; ``DECLINED`` where a cell is not plainly such a list; None when not installed."""
    if READER is None:
        return None
    starts = np.ascontiguousarray(starts, dtype=np.int64)  # (a column of the spans: strided)
    ends = np.ascontiguousarray(ends, dtype=np.int64)
    sizes = np.empty(len(starts), dtype=np.int64)
    # a cell of L bytes holds at most (L - 1) // 2 items; pages past those written are never touched
    length = ends - starts
    length -= 1
    np.maximum(length, 0, out=length)
    length //= 2
    values = np.empty(int(length.sum()), dtype=np.int64)
    total = READER.int_lists(raw, starts, ends, sizes, values)
    if total < 0:
        return DECLINED
    return sizes, values[:total]
