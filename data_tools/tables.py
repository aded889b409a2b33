"""Manifests on disk: CSV or Parquet (by suffix), written atomically, read strictly.

CSV cells are read as text first (a pHash such as ``0123456789012345`` must
not become an integer), then the known numeric and boolean columns are
converted; a cell that does not convert is an error naming file, line and
column.

File names that are not UTF-8 (``NAME_COLUMNS``) are written with
``scoring.file_names.escape_name`` (``%XX`` per undecodable byte, ``%25`` for
``%``) and read back to the exact name, in CSV and Parquet alike; any other
text cell holding such a byte (an error message quoting a path) is written
with ``display_name``, so no table write fails on a file name.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from data_tools.errors import DataError
from scoring.atomic import atomic_write
from scoring.file_names import display_name, escape_name, has_undecodable, unescape_name

INT_COLUMNS = ("width", "height", "bytes", "mtime_ns", "group_id", "group_size",
               "out_width", "out_height")
BOOL_COLUMNS = ("readable", "keep")
NAME_COLUMNS = ("root", "path", "team", "class_raw", "subcategory", "kept_path", "image_id",
                "source_root", "source_path", "output_path")


def _text_safe(df: pd.DataFrame) -> pd.DataFrame:
    """Name columns escaped losslessly; other text cells made printable (see the module docstring)."""
    out = None
    for col in df.columns:
        if not _is_text(df[col]):
            continue
        values = df[col]
        if col in NAME_COLUMNS:
            if not values.map(lambda v: isinstance(v, str) and ("%" in v or has_undecodable(v))).any():
                continue
            fixed = values.map(lambda v: escape_name(v) if isinstance(v, str) else v)
        elif values.map(lambda v: isinstance(v, str) and has_undecodable(v)).any():
            fixed = values.map(lambda v: display_name(v) if isinstance(v, str) else v)
        else:
            continue
        out = df.copy() if out is None else out
        out[col] = fixed
    return df if out is None else out


def write_table(df: pd.DataFrame, path: str | Path) -> Path:
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


def read_table(path: str | Path, required: tuple[str, ...] = ()) -> pd.DataFrame:
    path = Path(path)
    if not path.is_file():
        raise DataError("bad_table", f"{path}: no such file")
    try:
        if path.suffix.lower() == ".parquet":
            df = pd.read_parquet(path)
        else:
            df = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
            df = df.astype(object)  # plain Python strings, whatever pandas' default string dtype
    except Exception as exc:  # noqa: BLE001 - pandas/pyarrow raise many types
        raise DataError("bad_table", f"{path}: cannot be read as a table ({exc})") from None
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise DataError("bad_table", f"{path}: missing column(s) {missing}; found {list(df.columns)}")
    for col in NAME_COLUMNS:
        if col in df.columns and _is_text(df[col]):
            df[col] = df[col].map(lambda v: unescape_name(v) if isinstance(v, str) else v)
    for col in INT_COLUMNS:
        if col in df.columns and _is_text(df[col]):
            df[col] = _convert(df[col], path, col, int)
    for col in BOOL_COLUMNS:
        if col in df.columns and _is_text(df[col]):
            df[col] = _convert(df[col], path, col, _bool)
    return df


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
