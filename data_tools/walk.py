"""The pool's folder layout: ``ROOT/<team>/<class>/[<sub-category>/]<image>``.

Listing is sorted by POSIX relative path, so every later stage sees the files
in the same order whatever the file system returns. Hidden entries (names
starting with ``.``: ``.DS_Store``, our own temporary files) are ignored;
anything else that is not an image at the expected depth is reported as
skipped, never silently dropped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from data_tools.errors import DataError

IMAGE_SUFFIXES = frozenset({
    ".jpg", ".jpeg", ".jpe", ".jfif", ".png", ".bmp", ".tif", ".tiff", ".webp", ".heic", ".heif", ".hif",
})


@dataclass(frozen=True)
class Entry:
    path: str          # relative to the root, POSIX separators
    team: str
    class_raw: str
    subcategory: str   # "" when the image sits directly in the class folder
    bytes: int
    mtime_ns: int


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


def walk_pool(root: str | Path) -> tuple[list[Entry], list[Skipped]]:
    root = Path(root)
    if not root.is_dir():
        raise DataError("not_a_directory", f"{root}: not a folder (expected ROOT/<team>/<class>/<image>)")
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            if name.startswith("."):
                continue
            full = Path(dirpath) / name
            rel = full.relative_to(root)
            parts = rel.parts
            if Path(name).suffix.lower() not in IMAGE_SUFFIXES:
                skipped.append(Skipped(rel.as_posix(), "not an image file name (extension)"))
                continue
            if len(parts) not in (3, 4):
                skipped.append(Skipped(rel.as_posix(),
                                       "not at <team>/<class>/[<sub-category>/]<image> (depth "
                                       f"{len(parts)})"))
                continue
            st = full.stat()
            entries.append(Entry(rel.as_posix(), parts[0], parts[1], parts[2] if len(parts) == 4 else "",
                                 st.st_size, st.st_mtime_ns))
    entries.sort(key=lambda e: e.path)
    skipped.sort(key=lambda s: s.path)
    return entries, skipped


def os_walk_listing(root: str | Path) -> list[str]:
    """Image paths relative to ``root`` in the order ``os.walk`` gives them, unsorted.

    This is the order the study's notebooks listed the pool in (it depends on
    the file system); only the ``official`` dedup preset's ``--order walk``
    uses it. Hidden entries are skipped as in ``walk_pool``.
    """
    root = Path(root)
    if not root.is_dir():
        raise DataError("not_a_directory", f"{root}: not a folder; --order walk lists the files where the "
                        "catalog found them")
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.startswith(".") and Path(name).suffix.lower() in IMAGE_SUFFIXES:
                out.append((Path(dirpath) / name).relative_to(root).as_posix())
    return out
