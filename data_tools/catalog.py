"""The catalog: one row per image file of a pool, with everything later stages need.

Columns (``CATALOG_COLUMNS``): ``root`` (absolute), ``path`` (relative to it,
POSIX), ``team``, ``class_raw`` (the folder name), ``class`` (normalised, empty
when the folder is unknown to the class map), ``subcategory`` (e.g.
``Feuilles``/``Tronc`` when present), ``format``, ``width``, ``height``,
``bytes``, ``mtime_ns``, ``device`` (EXIF ``"{make} {model}"`` or ``unknown``),
``phash`` (16 hex digits), ``phash_mode`` (``exact``/``fast``, or ``reduced``
when the per-worker pixel cap made it hash a reduced decode), ``readable``,
``error``.

Unreadable, truncated and empty files are rows with ``readable=False`` and the
error text. Files and folders that are not catalogued (links, hidden names,
wrong depth, folders that cannot be listed) are in ``df.attrs["skipped"]``
with the reason (``walk.py``). The output may not be inside the pool, nor
replace an existing file unless asked (``agrieval.scoring.writing.policy``). ``resume``
reuses rows of an existing output whose size and mtime
are unchanged; a long run also checkpoints its output as it goes.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from agrieval.data_tools._parallel import pmap
from agrieval.data_tools.classes import ClassMap, load_class_map
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.probe import DEFAULT_MAX_PIXELS, exact_hash_task, probe_task
from agrieval.data_tools.tables import read_table, write_table
from agrieval.data_tools.versions import write_versions
from agrieval.data_tools.walk import Entry, walk_pool
from agrieval.scoring.text.file_names import display_name, escape_name, unescape_name
from agrieval.scoring.writing.policy import OutputPlan
from agrieval.scoring.writing.table_paths import inside

_CATALOG_COLUMNS = ["root", "path", "team", "class_raw", "class", "subcategory", "format", "width", "height",
                   "bytes", "mtime_ns", "device", "phash", "phash_mode", "readable", "error"]
_CHECKPOINT_EVERY_S = 60.0
_FAST_CHECK_SAMPLE = 64
_SKIPS_SHOWN_PER_REASON = 20


def build_catalog(root, output=None, *, workers=None, resume=False, fast=False, progress=True,
                  class_map: ClassMap | None = None, fast_check: int = _FAST_CHECK_SAMPLE,
                  max_pixels: int = DEFAULT_MAX_PIXELS, plan: OutputPlan | None = None) -> pd.DataFrame:
    """Catalog every image under ``root``; write it to ``output`` (CSV/Parquet) when given.

    ``plan`` carries ``--overwrite`` and the files the command reads; the output
    is refused inside ``root`` and, unless ``resume`` or overwrite, when it exists.

    ``df.attrs`` carries ``skipped`` (files not catalogued, with why), ``reused``
    (rows taken from a previous run) and, in fast mode, ``fast_agreement``: on a
    deterministic sample of up to ``fast_check`` JPEGs, the share whose fast hash
    equals the exact one and the worst Hamming distance.
    """
    root = Path(root).resolve()
    class_map = class_map or load_class_map()
    mode = "fast" if fast else "exact"
    if output is not None:
        plan = plan or OutputPlan()
        plan.add_sources(root)
        plan.claim(output, what="catalog", may_exist=resume)
    if max_pixels < 1:
        raise DataError("bad_option", f"--max-pixels must be at least 1, got {max_pixels}")
    entries, skipped = walk_pool(root)
    if not entries:
        raise DataError("empty_pool", f"{root}: no image files at <team>/<class>/[<sub-category>/]<image>"
                        + (f" ({len(skipped)} other files skipped, e.g. {skipped[0].path})" if skipped else ""))

    previous: dict[str, dict] = {}
    if resume:
        if output is None:
            raise DataError("bad_option", "--resume needs an output file to resume from")
        previous = _reusable_rows(Path(output), root, mode)

    rows: dict[str, dict] = {}
    todo: list[Entry] = []
    for e in entries:
        old = previous.get(escape_name(e.path))
        if old is not None and int(old["bytes"]) == e.bytes and int(old["mtime_ns"]) == e.mtime_ns:
            rows[e.path] = _row(root, e, class_map, mode, old)
        else:
            todo.append(e)
    reused = len(rows)

    tasks = [(str(root / e.path), fast, max_pixels) for e in todo]
    last_checkpoint = time.monotonic()
    for e, result in zip(todo, pmap(probe_task, tasks, workers=workers, desc=f"catalog ({mode})",
                                    progress=progress), strict=True):
        rows[e.path] = _row(root, e, class_map, mode, result)
        if output is not None and time.monotonic() - last_checkpoint > _CHECKPOINT_EVERY_S:
            write_table(_frame(rows.values()), output)
            last_checkpoint = time.monotonic()

    df = _frame(rows.values())
    df.attrs["skipped"] = [(escape_name(s.path), display_name(s.reason)) for s in skipped]
    df.attrs["reused"] = reused
    if fast:
        df.attrs["fast_agreement"] = _fast_agreement(df, sample=fast_check, workers=workers, max_pixels=max_pixels)
    if output is not None:
        write_table(df, output)
        write_versions(output, "catalog")  # the Pillow and imagehash that gave these pHashes
    return df


def _row(root: Path, e: Entry, class_map: ClassMap, mode: str, probed: dict) -> dict:
    # names as escaped text (agrieval.scoring.text.file_names): a name that is not UTF-8 fits any table, losslessly
    cls = class_map.normalise(e.class_raw)
    return {
        "root": escape_name(str(root)), "path": escape_name(e.path), "team": escape_name(e.team),
        "class_raw": escape_name(e.class_raw), "class": cls or "", "subcategory": escape_name(e.subcategory),
        "format": probed["format"], "width": int(probed["width"]), "height": int(probed["height"]),
        "bytes": e.bytes, "mtime_ns": e.mtime_ns, "device": display_name(probed["device"]),
        "phash": probed["phash"], "phash_mode": probed.get("phash_mode") or mode,
        "readable": bool(probed["readable"]), "error": display_name(probed["error"]),
    }


def _frame(rows: Iterable[dict]) -> pd.DataFrame:
    df = pd.DataFrame(list(rows), columns=_CATALOG_COLUMNS)
    return df.sort_values("path", kind="stable").reset_index(drop=True)


def _reusable_rows(output: Path, root: Path, mode: str) -> dict[str, dict]:
    if not output.exists():
        return {}
    old = read_catalog(output)
    old = old[(old["root"] == escape_name(str(root))) & old["phash_mode"].isin([mode, "reduced"])]
    return {r["path"]: r for r in old.to_dict("records")}


def source_file(root: str, path: str, *, where: str = "a catalog row") -> Path:
    """The file on disk of a catalog row's (escaped) ``root`` and ``path``.

    Refused (``unsafe_path``) when ``path`` would lead out of ``root``: a table is
    data, a file outside the pool is never read, resized or moved for it.
    """
    return inside(unescape_name(root), path, where=where, columns=("path",), nested=(0,), follow=True)


def check_unchanged(row, where: str = "a catalog row") -> Path:
    """The source file of a catalog row, refusing one that vanished or changed since it was catalogued.

    Commands that act on sources (resize, dedup --move-to) call this first, so they never act on a
    file the catalog does not describe.
    """
    src = source_file(row.root, row.path, where=where)
    try:
        st = src.stat()
    except FileNotFoundError:
        raise DataError("source_changed", f"{src} is in the catalog but no longer exists") from None
    if st.st_size != row.bytes or st.st_mtime_ns != row.mtime_ns:
        raise DataError("source_changed", f"{src} changed since it was catalogued; re-run the catalog")
    return src


def read_catalog(path) -> pd.DataFrame:
    """Read a catalog (or a dedup table, which extends it) and check its columns."""
    return read_table(path, required=tuple(_CATALOG_COLUMNS))


def _fast_agreement(df: pd.DataFrame, *, sample: int = _FAST_CHECK_SAMPLE, workers=None,
                   max_pixels: int = DEFAULT_MAX_PIXELS) -> dict:
    """Exact-hash an evenly spaced sample of fast-hashed JPEGs and compare."""
    jpegs = df[(df["format"] == "JPEG") & df["readable"] & (df["phash_mode"] == "fast")]
    if sample <= 0 or jpegs.empty:
        return {"checked": 0, "identical_share": None, "worst_hamming": None}
    idx = np.unique(np.linspace(0, len(jpegs) - 1, num=min(sample, len(jpegs))).round().astype(int))
    picked = jpegs.iloc[idx]
    paths = [(str(source_file(r, p)), max_pixels) for r, p in zip(picked["root"], picked["path"])]
    exact = list(pmap(exact_hash_task, paths, workers=workers, desc="fast-mode check", progress=False))
    dist = [bin(int(a, 16) ^ int(b, 16)).count("1") for a, b in zip(exact, picked["phash"])]
    return {"checked": len(dist), "identical_share": float(np.mean(np.equal(dist, 0))),
            "worst_hamming": int(max(dist))}


def _skip_lines(skipped: list[tuple[str, str]], shown: int = _SKIPS_SHOWN_PER_REASON) -> list[str]:
    """One line per skipped entry, at most ``shown`` per kind of reason (a Mac drive has a ``._`` per photo)."""
    lines, per_kind, hidden = [], {}, {}
    for path, reason in skipped:
        kind = reason.split(" (")[0]
        per_kind[kind] = per_kind.get(kind, 0) + 1
        if per_kind[kind] <= shown:
            lines.append(f"skipped: {path}: {reason}")
        else:
            hidden[kind] = hidden.get(kind, 0) + 1
    lines.extend(f"skipped: ... {n} more: {kind}" for kind, n in sorted(hidden.items()))
    return lines


def summarize_catalog(df: pd.DataFrame, *, top: int = 10) -> str:
    """Counts per team, class, format and device, and the files that need a look."""
    lines = [f"{len(df)} files, {int(df['readable'].sum())} readable, {int((~df['readable']).sum())} unreadable"
             + (f" ({df.attrs['reused']} reused from the previous run)" if df.attrs.get("reused") else "")]

    def counts(title: str, series: pd.Series, limit: int | None = None) -> None:
        vc = series.value_counts()
        vc = vc.sort_index(kind="stable").sort_values(ascending=False, kind="stable")
        shown = vc if limit is None else vc.head(limit)
        lines.append(f"{title}: " + ", ".join(f"{k or '-'}={v}" for k, v in shown.items())
                     + (f", ... ({len(vc) - limit} more)" if limit is not None and len(vc) > limit else ""))

    counts("teams", df["team"].sort_values())
    known = df[df["class"] != ""]
    counts("classes", known["class"])
    counts("formats", df["format"])
    counts("devices", df["device"], top)
    unknown = df[df["class"] == ""]
    if len(unknown):
        folders = sorted(set(unknown["class_raw"]))
        lines.append(f"UNKNOWN class folders ({len(unknown)} files): {folders} -- add them to a class map "
                     "(agrieval data classes --help)")
    bad = df[~df["readable"]]
    for r in bad.itertuples():
        lines.append(f"unreadable: {r.path}: {r.error}")
    lines.extend(_skip_lines(df.attrs.get("skipped", [])))
    fa = df.attrs.get("fast_agreement")
    if fa and fa["checked"]:
        lines.append(f"fast mode check on {fa['checked']} JPEGs: {fa['identical_share']:.1%} identical to exact "
                     f"hashes, worst Hamming distance {fa['worst_hamming']}")
    return "\n".join(lines)
