"""Manifests on disk: CSV or Parquet (by suffix), written atomically, read strictly.

CSV cells are read as text first (a pHash such as ``0123456789012345`` must
not become an integer), then the known numeric and boolean columns are
converted; a cell that does not convert is an error naming file, line and
column.

File names are held as text that is always valid UTF-8
(``agrieval.scoring.text.file_names.escape_name``: ``%XX`` per byte that is not UTF-8,
``%25`` for ``%``), escaped where the catalog is built and unescaped where a
row becomes a path on disk (``catalog.source_file``), so CSV and Parquet
store every name losslessly. A text cell that still holds such a byte (a
hand-made frame) is written with ``display_name`` rather than failing.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from agrieval.data_tools.errors import DataError
from agrieval.scoring.runtime.atomic import atomic_write
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes, read_json
from agrieval.scoring.text.file_names import display_name, has_undecodable

_INT_COLUMNS = ("width", "height", "bytes", "mtime_ns", "group_id", "group_size",
               "out_width", "out_height")
_BOOL_COLUMNS = ("readable", "keep")


def _text_safe(df: pd.DataFrame) -> pd.DataFrame:
    out = None
    for col in df.columns:  # only object columns can hold a lone surrogate (Arrow strings cannot)
        if df[col].dtype == object and df[col].map(lambda v: isinstance(v, str) and has_undecodable(v)).any():
            out = df.copy() if out is None else out
            out[col] = df[col].map(lambda v: display_name(v) if isinstance(v, str) else v)
    return df if out is None else out


def write_table(df: pd.DataFrame, path: str | Path) -> Path:
    """Write ``df`` to ``path`` as CSV or Parquet (by the suffix), atomically; a name that is not valid UTF-8 (a lone
    surrogate) is written in its escaped display form. Returns ``path``."""
    path = Path(path)
    df = _text_safe(df)
    if path.suffix.lower() == ".parquet":
        with atomic_write(path, "wb", encoding=None) as fh:
            df.to_parquet(fh, index=False)
    else:
        buf = io.StringIO()
        df.to_csv(buf, index=False, lineterminator="\n")
        with atomic_write(path, "w", newline="") as fh:
            fh.write(buf.getvalue())
    return path


MAX_TABLE_BYTES = 4 << 30  # a catalog or manifest is ~100-300 bytes a row: tens of millions of images


def read_folds_json(path: Path) -> dict:
    """A split folder's ``folds.json`` through the one opening rule; ``DataError bad_table`` naming it."""
    try:
        data = read_json(path, max_bytes=64 << 20, what="folds.json")
    except FileNotFoundError:
        raise DataError("bad_table", f"{path}: no such file") from None
    except UntrustedFileError as exc:
        raise DataError("bad_table", f"{path}: {exc.message}") from None
    if not isinstance(data, dict):
        raise DataError("bad_table", f"{path}: expected a JSON object at the top level")
    return data


def read_table(path: str | Path, required: tuple[str, ...] = ()) -> pd.DataFrame:
    """A CSV (every cell a string, nothing coerced) or Parquet table, opened by the one rule for files others wrote;
    ``DataError`` (``bad_table``) if it is missing, unreadable or lacks a column of ``required``."""
    path = Path(path)
    try:  # the one opening rule (scoring/runtime/untrusted.py): a FIFO or a device is refused, not read
        data = read_bytes(path, max_bytes=MAX_TABLE_BYTES, what="table")
    except FileNotFoundError:
        raise DataError("bad_table", f"{path}: no such file") from None
    except UntrustedFileError as exc:
        raise DataError("bad_table", f"{path}: {exc.message}") from None
    try:
        if path.suffix.lower() == ".parquet":
            df = pd.read_parquet(io.BytesIO(data))
        else:
            df = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, encoding="utf-8")
            df = df.astype(object)  # plain Python strings, whatever pandas' default string dtype
    except Exception as exc:  # noqa: BLE001 - pandas/pyarrow raise many types
        raise DataError("bad_table", f"{path}: cannot be read as a table ({exc})") from None
    df.attrs["table"] = str(path)  # row messages name the file (``table_row``)
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise DataError("bad_table", f"{path}: missing column(s) {missing}; found {list(df.columns)}")
    for col in _INT_COLUMNS:
        if col in df.columns and _is_text(df[col]):
            df[col] = _convert(df[col], path, col, int)
    for col in _BOOL_COLUMNS:
        if col in df.columns and _is_text(df[col]):
            df[col] = _convert(df[col], path, col, _bool)
    return df


def table_row(df: pd.DataFrame, index) -> str:
    """``<file> line <n>`` of a row of a frame ``read_table`` read (its index is the data row, 0-based).

    A stage that reorders rows keeps ``attrs["table_rows"]``: the input row of each position.
    """
    name = df.attrs.get("table", "the table")
    try:
        k = int(index)
        rows = df.attrs.get("table_rows")
        return f"{name} line {int(rows[k] if rows is not None else k) + 2}"
    except (TypeError, ValueError, IndexError):
        return f"{name} row {index!r}"


def _is_text(series: pd.Series) -> bool:
    return series.dtype == object or pd.api.types.is_string_dtype(series.dtype)


def _bool(text: str) -> bool:
    if text in ("True", "true", "1"):
        return True
    if text in ("False", "false", "0"):
        return False
    raise ValueError(text)


def _convert(series: pd.Series, path: Path, col: str, kind) -> pd.Series:
    out = []
    for i, cell in enumerate(series):
        try:
            out.append(kind(cell))
        except (TypeError, ValueError):
            raise DataError("bad_table", f"{path}: line {i + 2}, column '{col}': {cell!r} is not "
                                         f"{'an integer' if kind is int else 'True/False'}") from None
    return pd.Series(out, index=series.index, dtype="int64" if kind is int else "bool")
