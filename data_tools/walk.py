"""The pool's folder layout: ``ROOT/<team>/<class>/[<sub-category>/]<image>``.

Listing is sorted by POSIX relative path, so every later stage sees the files
in the same order whatever the file system returns. Every directory entry
under the root is either an ``Entry`` (a regular image file at the expected
depth) or a ``Skipped`` with the reason; nothing is dropped silently and
nothing on the way raises.

Link policy: symbolic links are never followed and never catalogued, whether
they point at a file or a folder, inside the pool or outside it. Each one is
listed as skipped, with what it points at (inside the pool, outside it,
nothing, or a loop). A pool made of links would otherwise be catalogued twice
(link and target) or would pull in files that no longer belong to the pool's
root; catalogue the target folder itself instead. A root that is itself a
link is resolved first.

Also skipped, with the reason: hidden entries (names starting with ``.``:
``.DS_Store``, ``._IMG.jpg`` of macOS), folders that cannot be listed,
non-regular files (FIFOs, sockets, devices). Names that are not UTF-8 are
catalogued: entries hold them exactly as the file system has them (lone
surrogates, PEP 383); the catalog turns them into escaped text
(``agrieval.scoring.text.file_names``).
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from agrieval.data_tools.errors import DataError

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
class _Skipped:
    path: str
    reason: str


def _link_reason(link: Path, root: Path) -> str:
    try:
        target = link.resolve(strict=True)
    except FileNotFoundError:
        return f"dangling symbolic link (-> {os.readlink(link)}, which does not exist); links are not followed"
    except (RuntimeError, OSError) as exc:  # RuntimeError: a loop on Python < 3.13
        if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
            return "symbolic link loop; links are not followed"
        return f"symbolic link that cannot be resolved ({exc.strerror or exc}); links are not followed"
    kind = "folder" if target.is_dir() else "file"
    if target == root or root in target.parents:
        return (f"symbolic link to a {kind} inside the pool ({target.relative_to(root).as_posix() or '.'}); "
                "links are not followed, the target is catalogued at its own path")
    return f"symbolic link to a {kind} outside the pool ({target}); links are not followed"


def walk_pool(root: str | Path) -> tuple[list[Entry], list[_Skipped]]:
    """The images of a pool laid out as ``ROOT/<team>/<class>/<image>``, in sorted order, and what was skipped with
    its reason; ``DataError`` if ``root`` is not a folder."""
    root = Path(root)
    if not root.is_dir():
        raise DataError("not_a_directory", f"{root}: not a folder (expected ROOT/<team>/<class>/<image>)")
    root = root.resolve()
    entries: list[Entry] = []
    skipped: list[_Skipped] = []

    stack: list[tuple[Path, tuple[str, ...]]] = [(root, ())]  # a stack, not recursion: depth is the pool's
    while stack:
        folder, parts = stack.pop()
        try:
            with os.scandir(folder) as it:
                items = sorted(it, key=lambda d: d.name)
        except OSError as exc:
            skipped.append(_Skipped("/".join(parts) or ".", f"folder cannot be listed ({exc.strerror or exc})"))
            continue
        for item in items:
            rel_parts = parts + (item.name,)
            rel = "/".join(rel_parts)
            try:
                if item.name.startswith("."):
                    skipped.append(_Skipped(rel, "hidden name (starts with '.')"))
                elif item.is_symlink():
                    skipped.append(_Skipped(rel, _link_reason(Path(item.path), root)))
                elif item.is_dir(follow_symlinks=False):
                    stack.append((Path(item.path), rel_parts))
                elif not item.is_file(follow_symlinks=False):
                    skipped.append(_Skipped(rel, "not a regular file (FIFO, socket or device)"))
                elif Path(item.name).suffix.lower() not in IMAGE_SUFFIXES:
                    skipped.append(_Skipped(rel, "not an image file name (extension)"))
                elif len(rel_parts) not in (3, 4):
                    skipped.append(_Skipped(rel, "not at <team>/<class>/[<sub-category>/]<image> (depth "
                                                f"{len(rel_parts)})"))
                else:
                    st = item.stat(follow_symlinks=False)
                    entries.append(Entry(rel, rel_parts[0], rel_parts[1], rel_parts[2] if len(rel_parts) == 4 else "",
                                         st.st_size, st.st_mtime_ns))
            except OSError as exc:  # vanished or unreadable between listing and stat
                skipped.append(_Skipped(rel, f"cannot be examined ({exc.strerror or exc})"))
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
