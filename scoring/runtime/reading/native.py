"""The compiled twins of the optional ``agrieval-native`` package, when installed.

These numpy steps ask here first:

    csv_spans.field_spans          -> field_spans   (every field's byte span)
    digit_lists.int_lists          -> int_lists     ("[1, 22, 333]" cells read into integers)
    cell_keys.cell_codes           -> distinct_cells (a code per cell, equal for equal bytes)
    CheckedIds._bytes_in_classes   -> cells_in_classes (ids checked against a pattern [F][R]*)
    CheckedIds.same_column         -> cells_equal   (an upload's ids, row for row the solution's)
    CheckedIds.order_in            -> cells_order   (the same ids in another order)
    LabelSets.from_flat            -> sort_rows     (each row's labels sorted)
    LabelSets.take                 -> take_rows     (rows in another order)
    multilabel._Matches            -> match_rows    (which predicted labels are in the truth's row)
    multilabel._per_class_by_split -> class_counts  (labels and true positives per split and class)

Each function gives exactly what its numpy twin gives, or says it declined, and
the numpy twin then does the work: the package changes how fast a file is
scored, never the result (``tests/scoring/reading/test_native_reader.py`` holds each to
its twin). Where it is not installed (the grading platforms' bundles carry only
``scoring/runtime``), or ``AGRIEVAL_NATIVE=0`` is set, every function here
returns None.

The compiled code makes one pass without the interpreter lock where the numpy
twins make several over fresh arrays.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np

_ABI = 1  # the interface of agrieval_native's modules this file speaks


def _load() -> SimpleNamespace | None:
    if os.environ.get("AGRIEVAL_NATIVE", "1") == "0":
        return None
    try:
        from agrieval_native import _cells, _labelsets, _reader
    except ImportError:
        return None
    if any(getattr(module, "ABI", None) != _ABI for module in (_reader, _cells, _labelsets)):
        return None  # built from other sources than these wrappers speak to: the numpy twins
    return SimpleNamespace(reader=_reader, cells=_cells, labelsets=_labelsets)


COMPILED = _load()  # the compiled modules, or None (tests set it to None to run the numpy twins)

# What the functions below return when the compiled code did the work and found the input outside what
# its numpy twin takes: the twin would decline too, so the caller goes straight to its slower path.
DECLINED = "declined"


def _int64(a: np.ndarray) -> np.ndarray:
    """``a`` as the contiguous int64 buffer the compiled code reads (a copy only when it is not one)."""
    return np.ascontiguousarray(a, dtype=np.int64)


def available() -> bool:
    return COMPILED is not None


def field_spans(raw: bytes, delimiter: str, n_fields: int, n_lines: int | None = None
                ) -> tuple[np.ndarray, np.ndarray, int] | str | None:
    """(starts, ends, CRLF records) as ``csv_spans.field_spans`` finds them, ``DECLINED`` where it finds
    none (the file is not regular), None when not installed. ``n_lines``: the LF bytes in ``raw``, if known."""
    if COMPILED is None or len(delimiter) != 1 or ord(delimiter) > 127:
        return None
    if n_lines is None:
        n_lines = raw.count(b"\n")
    capacity = n_lines + 1  # (a last line without its line end is a record too)
    starts = np.empty((capacity, n_fields), dtype=np.int64)
    ends = np.empty_like(starts)
    found = COMPILED.reader.field_spans(raw, ord(delimiter), n_fields, starts, ends)
    if found is None:
        return DECLINED
    n_records, crlf_records = found
    return starts[:n_records], ends[:n_records], crlf_records


def int_lists(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | str | None:
    """(sizes, concatenated ints) of cells written as ``[1, 22, 333]``, as ``digit_lists.int_lists`` reads
    them; ``DECLINED`` where a cell is not plainly such a list; None when not installed."""
    if COMPILED is None:
        return None
    starts, ends = _int64(starts), _int64(ends)  # (a column of the spans: strided)
    sizes = np.empty(len(starts), dtype=np.int64)
    # a cell of L bytes holds at most (L - 1) // 2 items; pages past those written are never touched
    length = ends - starts
    length -= 1
    np.maximum(length, 0, out=length)
    length //= 2
    values = np.empty(int(length.sum()), dtype=np.int64)
    total = COMPILED.reader.int_lists(raw, starts, ends, sizes, values)
    if total < 0:
        return DECLINED
    return sizes, values[:total]


Cells = tuple  # (raw bytes, starts, ends): a column's cells, as ``Table.byte_cells`` gives them


def _spans(cells: Cells) -> tuple:
    raw, starts, ends = cells
    return raw, _int64(starts), _int64(ends)


def distinct_cells(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(a code per cell, numbered 0, 1, ... by first appearance and equal exactly for equal bytes; the
    first row of each code), as ``cell_keys.cell_codes`` gives them; None when not installed."""
    if COMPILED is None:
        return None
    codes = np.empty(len(starts), dtype=np.int64)
    first_rows = np.empty(len(starts), dtype=np.int64)
    found = COMPILED.cells.distinct_cells(*_spans((raw, starts, ends)), codes, first_rows)
    return None if found < 0 else (codes, first_rows[:found])


def cells_in_classes(cells: Cells, first: bytes, rest: bytes) -> bool | None:
    """Whether every cell is one byte of ``first`` then bytes of ``rest`` (none empty), as
    ``CheckedIds._bytes_in_classes`` finds; None when not installed."""
    if COMPILED is None:
        return None
    found = COMPILED.cells.cells_in_classes(*_spans(cells), first, rest)
    return None if found < 0 else bool(found)


def cells_equal(a: Cells, b: Cells) -> bool | None:
    """Whether two columns hold the same cells row for row; None when not installed."""
    if COMPILED is None:
        return None
    found = COMPILED.cells.cells_equal(*_spans(a), *_spans(b))
    return None if found < 0 else bool(found)


def cells_order(a: Cells, b: Cells) -> np.ndarray | str | None:
    """For each cell of ``a`` (distinct cells), the row of ``b`` holding the same bytes, when ``b`` is
    ``a`` in another order; ``DECLINED`` when it is not; None when not installed (or ``a`` repeats a cell)."""
    if COMPILED is None or not len(a[1]):
        return None
    order = np.empty(len(a[1]), dtype=np.int64)
    found = COMPILED.cells.cells_order(*_spans(a), *_spans(b), order)
    return None if found < 0 else (order if found else DECLINED)


def sort_rows(sizes: np.ndarray, labels: np.ndarray, *, in_place: bool = False) -> np.ndarray | str | None:
    """Each row's labels sorted, as ``LabelSets.from_flat`` sorts them when no row repeats a label;
    ``DECLINED`` when a row does (the numpy code removes repeats) or a label is negative; None when not
    installed. ``in_place``: sorted where they lie (``labels``: a contiguous int64 array)."""
    if COMPILED is None:
        return None
    labels = _int64(labels)
    out = labels if in_place else np.empty(len(labels), dtype=np.int64)
    found = COMPILED.labelsets.sort_rows(_int64(sizes), labels, out)
    return out if found == 0 else DECLINED


def take_rows(indptr: np.ndarray, labels: np.ndarray, index: np.ndarray, new_indptr: np.ndarray
              ) -> np.ndarray | None:
    """The labels of rows ``index`` one after the other (``new_indptr``: where each starts), as
    ``LabelSets.take`` gathers them; None when not installed or declined."""
    if COMPILED is None:
        return None
    out = np.empty(int(new_indptr[-1]), dtype=np.int64)
    found = COMPILED.labelsets.take_rows(_int64(indptr), _int64(labels), _int64(index), _int64(new_indptr),
                                         out)
    return None if found < 0 else out


def match_rows(true_indptr: np.ndarray, true_labels: np.ndarray, pred_indptr: np.ndarray,
               pred_labels: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(for each predicted label whether the same row of the truth holds it, the true positives of each
    row), both sides row-aligned with labels sorted and unique within rows; None when not installed or
    declined."""
    if COMPILED is None:
        return None
    matched = np.empty(len(pred_labels), dtype=np.bool_)
    tp = np.empty(len(pred_indptr) - 1, dtype=np.int64)
    found = COMPILED.labelsets.match_rows(_int64(true_indptr), _int64(true_labels), _int64(pred_indptr),
                                          _int64(pred_labels), matched.view(np.uint8), tp)
    return None if found < 0 else (matched, tp)


def class_counts(indptr: np.ndarray, labels: np.ndarray, split_of_row: np.ndarray, n_splits: int,
                 class_codes: np.ndarray, matched: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray | None] | None:
    """((n_splits + 1, K) labels per split and class, the same for the ``matched`` labels only, or None
    without them), counted as ``multilabel._per_class_by_split`` counts them with a vocabulary's
    ``class_codes`` (K codes; ``split_of_row``: 0..n_splits); None when not installed or declined (a label
    without a code)."""
    if COMPILED is None:
        return None
    n_codes = int(class_codes.max()) + 1 if len(class_codes) else 0
    if n_codes <= 0:
        return None
    counts = np.zeros((n_splits + 1, n_codes), dtype=np.int64)
    tp = np.zeros_like(counts) if matched is not None else None
    found = COMPILED.labelsets.class_counts(
        _int64(indptr), _int64(labels), _int64(split_of_row), np.ascontiguousarray(class_codes, dtype=np.int32),
        n_codes, counts, b"" if matched is None else matched.view(np.uint8), tp if tp is not None else counts)
    return None if found < 0 else (counts, tp)
