"""A compact, sparse representation of one label set per row.

Row ``i`` holds ``labels[indptr[i]:indptr[i + 1]]``, sorted and unique. This is
CSR without the data array: it lets metrics work on 200,000 rows x 7,806
classes without ever building a dense rows x classes matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LabelSets:
    """One label set per row, stored sparse (CSR): row ``i``'s labels are ``labels[indptr[i]:indptr[i + 1]]``."""

    indptr: np.ndarray  # int64, len n_rows + 1
    labels: np.ndarray  # int32 (int64 for a label past 2**31 - 1), sorted and unique within each row

    @property
    def n_rows(self) -> int:
        return len(self.indptr) - 1

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.indptr)

    @property
    def row_of_label(self) -> np.ndarray:
        """Row index of every entry of ``labels`` (int32 below 2**31 rows).

        Made on each call, not kept: it is as long as the labels, and what a set keeps adds to the peak memory
        of a score."""
        return np.repeat(np.arange(self.n_rows, dtype=_index_dtype(self.n_rows)), self.sizes)

    def keys(self, bits: int, out: np.ndarray | None = None, *, rows: tuple[int, int] | None = None) -> np.ndarray:
        """``row << bits | label`` (int64) for every entry (of the rows ``rows[0]`` to ``rows[1] - 1`` only,
        when given): strictly increasing (rows ascending, labels sorted and unique within a row). Every label
        must be below ``2**bits``. ``out``: an int64 array as long as those entries to write them into (a
        slice of the caller's buffer, say)."""
        lo, hi = (0, self.n_rows) if rows is None else rows
        first, last = int(self.indptr[lo]), int(self.indptr[hi])
        key = np.empty(last - first, dtype=np.int64) if out is None else out
        row = np.repeat(np.arange(lo, hi, dtype=_index_dtype(hi)), np.diff(self.indptr[lo:hi + 1]))
        np.left_shift(row, bits, out=key, dtype=np.int64)
        key |= self.labels[first:last]
        return key

    def row(self, i: int) -> list[int]:
        return self.labels[self.indptr[i]:self.indptr[i + 1]].tolist()

    def to_lists(self) -> list[list[int]]:
        return [self.row(i) for i in range(self.n_rows)]

    @classmethod
    def from_lists(cls, lists: Sequence[Sequence[int]]) -> "LabelSets":
        sizes = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
        flat = np.fromiter((v for x in lists for v in x), dtype=np.int64, count=int(sizes.sum()))
        return cls.from_flat(sizes, flat)[0]

    @classmethod
    def from_flat(cls, sizes: np.ndarray, flat: np.ndarray, *, overwrite: bool = False
                  ) -> tuple["LabelSets", np.ndarray]:
        """Build from per-row counts and the concatenated labels (any order, repeats allowed).

        Returns the label sets and a boolean per row telling whether the row had
        a repeated label (repeats count once). ``overwrite``: ``flat`` is the caller's to give up (a
        reader's fresh array): the labels may be sorted into it instead of a copy.
        """
        n = len(sizes)
        if len(flat) and flat.min() < 0:
            raise ValueError("labels must be non-negative")
        bits = int(flat.max()).bit_length() if len(flat) else 1  # every label < 2**bits
        if _ROW_BLOCK.bit_length() + bits <= 62:
            return cls._from_flat_by_blocks(np.asarray(sizes, dtype=np.int64), flat, bits, overwrite)
        rows = np.repeat(np.arange(n, dtype=np.int64), sizes)
        if n.bit_length() + bits <= 62:
            # one int64 key per (row, label), the row in the high bits: a single sort instead of a
            # two-key lexsort, skipped when the labels are already sorted within rows (written by this kit, say)
            key = rows
            key <<= bits
            key |= flat
            indptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(sizes, out=indptr[1:])
            increasing = len(key) < 2 or bool((key[1:] > key[:-1]).all())
            if not increasing:
                # rows are already in order (the row is in the key's high bits): only the short runs of a
                # row's labels are out of place, which timsort sorts by insertion then merges in one pass
                # (16 ms for 1.6 million keys of 1 to 15 per row, against 33 ms sorting 4,096-key blocks
                # one by one and 85 ms for numpy's quicksort, on the benchmark's AMD EPYC)
                key.sort(kind="stable")
            if increasing or not (key[1:] == key[:-1]).any():  # no repeats: the usual case
                key &= (1 << bits) - 1
                return cls(indptr, key.astype(_index_dtype(1 << bits))), np.zeros(n, dtype=bool)
            rows, flat = key >> bits, key & ((1 << bits) - 1)
        else:
            order = np.lexsort((flat, rows))
            rows, flat = rows[order], flat[order]
        keep = np.ones(len(flat), dtype=bool)
        if len(flat):
            keep[1:] = (rows[1:] != rows[:-1]) | (flat[1:] != flat[:-1])
        had_repeat = np.zeros(n, dtype=bool)
        had_repeat[rows[~keep]] = True
        rows, flat = rows[keep], flat[keep]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        return cls(indptr, flat.astype(_index_dtype(int(flat.max()) + 1 if len(flat) else 1))), had_repeat

    @classmethod
    def _from_flat_by_blocks(cls, sizes: np.ndarray, flat: np.ndarray, bits: int, overwrite: bool
                             ) -> tuple["LabelSets", np.ndarray]:
        """``from_flat`` a block of rows at a time (issue 54): one int64 key per (row in the block, label), the
        row in the high bits, so that a single sort orders each row's labels (skipped when they already are:
        written by this kit, say) and puts repeats side by side; only the labels are kept. Keys for every
        row at once were three int64 arrays as long as the labels (48 MB for 2 million labels), all fresh
        memory, for the same sorts. With ``overwrite`` each block's labels go back into ``flat`` (never ahead of
        the block being read) when its type is the labels' own."""
        n = len(sizes)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=indptr[1:])
        label_type = _index_dtype(1 << bits)
        labels = flat if overwrite and flat.dtype == label_type else np.empty(len(flat), dtype=label_type)
        had_repeat = np.zeros(n, dtype=bool)
        kept_sizes = None  # per row, once a repeat is dropped
        written = 0
        low = (1 << bits) - 1
        for lo in range(0, n, _ROW_BLOCK):
            hi = min(lo + _ROW_BLOCK, n)
            first, last = int(indptr[lo]), int(indptr[hi])
            key = np.repeat(np.arange(hi - lo, dtype=np.int64), sizes[lo:hi])
            key <<= bits
            key |= flat[first:last]
            if len(key) > 1 and not (key[1:] > key[:-1]).all():
                # rows are already in order (the row is in the key's high bits): only the short runs of a
                # row's labels are out of place, which timsort sorts by insertion then merges in one pass
                # (16 ms for 1.6 million keys of 1 to 15 per row, against 85 ms for numpy's quicksort, on
                # the benchmark's AMD EPYC)
                key.sort(kind="stable")
                repeat = key[1:] == key[:-1]
                if repeat.any():  # a repeated label counts once
                    rows = key[1:][repeat] >> bits
                    had_repeat[rows + lo] = True
                    if kept_sizes is None:
                        kept_sizes = sizes.copy()
                    np.subtract.at(kept_sizes, rows + lo, 1)
                    key = np.concatenate([key[:1], key[1:][~repeat]])
            key &= low
            labels[written:written + len(key)] = key
            written += len(key)
        if kept_sizes is not None:
            np.cumsum(kept_sizes, out=indptr[1:])
            labels = labels[:written].copy()
        return cls(indptr, labels), had_repeat

    def take(self, index: np.ndarray) -> "LabelSets":
        """Rows in the order of ``index`` (e.g. to align a submission to the solution)."""
        index = np.asarray(index, dtype=np.int64)
        if len(index) == self.n_rows and np.array_equal(index, np.arange(self.n_rows)):
            return self  # immutable: the identity needs no copy
        sizes = self.sizes[index]
        indptr = np.zeros(len(index) + 1, dtype=np.int64)
        np.cumsum(sizes, out=indptr[1:])
        labels = np.empty(int(indptr[-1]), dtype=self.labels.dtype)
        starts = self.indptr[:-1][index]
        # A block of rows at a time (issue 54: positions for every label at once were 16 MB of fresh memory for
        # 2 million labels, the peak of a fresh score whose upload lists its rows in another order). Gather
        # positions start..start+size for each selected row without a Python loop: entry j of new row r comes
        # from old position j + (old start of r - new start of r), a running sum of ones with a jump where each
        # row starts (one array of the block's labels, not three)
        for lo in range(0, len(index), _ROW_BLOCK):
            hi = min(lo + _ROW_BLOCK, len(index))
            first, last = int(indptr[lo]), int(indptr[hi])
            filled = np.flatnonzero(sizes[lo:hi])  # (an empty row adds no entry: the next row's jump lands there)
            if not len(filled):
                continue
            positions = np.ones(last - first, dtype=np.int64)
            old, at, size = starts[lo:hi][filled], indptr[lo:hi][filled] - first, sizes[lo:hi][filled]
            jump = np.empty(len(filled), dtype=np.int64)
            jump[0] = old[0]
            np.subtract(old[1:], (old[:-1] + size[:-1] - 1), out=jump[1:])
            positions[at] = jump
            np.cumsum(positions, out=positions)
            self.labels.take(positions, out=labels[first:last])
        return LabelSets(indptr, labels)


_ROW_BLOCK = 1 << 10  # rows per step of LabelSets._from_flat_by_blocks


def _index_dtype(bound: int) -> type:
    """int32 when every value is below ``bound`` and ``bound`` fits (7-digit species ids, row numbers), else
    int64. int32 halves the memory the label sets of a score hold."""
    return np.int32 if bound <= 2**31 else np.int64
