"""Output index -> species id.

``class_mapping.txt`` (the organisers' file): one species id per line, line
index = model output index. ``*.csv``: a header with a ``species_id`` column
and optionally an ``index`` (or ``class_index``) column; without one, row order
is the output index. Strict: every id an integer, no blank line, no duplicate,
indices exactly ``0..N-1``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from agrieval.baselines.plantclef._weights import DOWNLOAD_HINT
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes

# PlantCLEF's class_mapping.txt holds 7,806 ids of 7 digits (62 KB); a CSV with an index column and a name per
# row, or ten times the classes, stays under this
_MAX_MAPPING_BYTES = 1 << 20


class MappingError(ValueError):
    """A class mapping file is missing or malformed; the message names file and line."""


def _int_id(text: str, path: Path, line: int) -> int:
    t = text.strip()
    if not t.isdigit():
        raise MappingError(f"{path}:{line}: species id {text!r} is not a non-negative integer")
    return int(t)


def load_class_mapping(path: str | Path) -> np.ndarray:
    """Species id per output index as ``int64 (N,)``."""
    path = Path(path)
    try:  # the one opening rule: a FIFO, a device or a folder is refused at once, a huge file before it is read
        text = read_bytes(path, max_bytes=_MAX_MAPPING_BYTES, what="class mapping").decode("utf-8-sig")
    except FileNotFoundError:
        raise MappingError(f"class mapping {path} not found: {DOWNLOAD_HINT}") from None
    except UntrustedFileError as exc:
        raise MappingError(f"{path}: {exc.message}") from None
    except UnicodeDecodeError as exc:
        raise MappingError(f"{path}: not UTF-8 ({exc})") from None
    if path.suffix.lower() == ".csv":
        ids = _from_csv(text, path)
    else:
        lines = text.splitlines()
        while lines and not lines[-1].strip():  # a trailing newline is not a class
            lines.pop()
        ids = []
        for i, ln in enumerate(lines, start=1):
            if not ln.strip():
                raise MappingError(f"{path}:{i}: blank line; every line must hold one species id")
            ids.append(_int_id(ln, path, i))
    if not ids:
        raise MappingError(f"{path}: no species ids")
    arr = np.asarray(ids, dtype=np.int64)
    uniq, counts = np.unique(arr, return_counts=True)
    if (counts > 1).any():
        dup = int(uniq[counts > 1][0])
        lines = [i + 1 for i, v in enumerate(ids) if v == dup]
        raise MappingError(f"{path}: species id {dup} appears on several lines ({lines[:5]})")
    return arr


def _from_csv(text: str, path: Path) -> list[int]:
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise MappingError(f"{path}: empty CSV")
    header = [h.strip() for h in rows[0]]
    if "species_id" not in header:
        raise MappingError(f"{path}:1: no 'species_id' column in header {header}")
    sid = header.index("species_id")
    idx_col = next((header.index(c) for c in ("index", "class_index") if c in header), None)
    pairs = []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            raise MappingError(f"{path}:{line}: blank line")
        if len(row) != len(header):
            raise MappingError(f"{path}:{line}: {len(row)} fields, header has {len(header)}")
        index = _int_id(row[idx_col], path, line) if idx_col is not None else line - 2
        pairs.append((index, _int_id(row[sid], path, line)))
    pairs.sort()
    if [p[0] for p in pairs] != list(range(len(pairs))):
        raise MappingError(f"{path}: the index column must hold each of 0..{len(pairs) - 1} exactly once")
    return [p[1] for p in pairs]
