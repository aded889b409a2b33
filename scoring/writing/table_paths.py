"""Paths built from table values stay inside their folder: the one place that joins them.

A catalog, a split table, a dedup manifest or a ``folds.json`` is a file a
person can edit or receive, so its ``team``, ``class``, ``phash`` and ``path``
cells are data, never a way to name a place on disk. ``inside`` builds every
output, move or source path a command derives from such cells, and refuses
(``UnsafePath``, code ``unsafe_path``, exit 1, naming the row) any value that

* is empty, ``.`` or ``..``, or has a ``..`` / ``.`` / empty part;
* is absolute, or starts with a drive (``C:``) or UNC (``\\\\host``) prefix, on
  every system (a table may come from, or go to, Windows);
* has a separator where none belongs: ``/`` (and, on Windows, ``\\``) in a
  single name (team, class, pHash, fold file); a relative ``path`` may hold
  ``/`` between its parts. On POSIX a ``\\`` inside a name is an ordinary
  character (a pool may hold such a file) and is kept;
* holds a NUL (no file system stores one; ``%00`` in escaped text is one);
* has a part longer than 255 bytes (no file system holds such a name: the
  write would fail half-way through a run).

Values are the escaped text of ``agrieval.scoring.text.file_names`` and are unescaped here,
so ``%2F``-style tricks are checked as the name they become. After joining,
the path is resolved (links followed: a link inside the folder that points out
of it is refused) and must still be inside the resolved folder. For an output
the last part is not followed (an atomic write replaces a link, never writes
through it); for a source to read or move it is. Stdlib only: ``scoring``,
``data_tools`` and ``baselines`` all use it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from agrieval.scoring.runtime.coded_error import CodedError
from agrieval.scoring.text.file_names import display_name, unescape_name

CODES = {
    "unsafe_path": "A table value (team, class, pHash, path, fold file) would name a place outside its folder "
                   "(absolute, '..', a separator, a NUL or a drive prefix); fix the row or regenerate the table.",
}
_DRIVE = re.compile(r"^[A-Za-z]:")
_MAX_NAME_BYTES = 255  # one file name on ext4, APFS, NTFS (UTF-16 units there), ZFS: refused before a half-run fails


class UnsafePath(CodedError):
    """A table value would lead outside its folder (the message names the file and row); exit 1."""

    exit_code = 1  # an input was read and rejected

    def __init__(self, message: str) -> None:
        super().__init__("unsafe_path", message)


def _why_not(value: str, nested: bool) -> str | None:
    """Why ``value`` (unescaped) is not a safe relative name, or None."""
    if not value:
        return "it is empty"
    if "\x00" in value:
        return "it holds a NUL"
    if value.startswith(("/", "\\")) or _DRIVE.match(value):
        return "it is absolute, or starts with a drive or UNC prefix"
    if os.altsep:  # Windows: a backslash is a separator too
        value = value.replace(os.sep, os.altsep)
    parts = value.split("/")
    if not nested and len(parts) > 1:
        return "it holds a '/' where a single name belongs"
    for part in parts:
        if part in (".", ".."):
            return f"it has a {part!r} part"
        if not part:
            return "it has an empty part ('//' or a trailing '/')"
        if len(os.fsencode(part)) > _MAX_NAME_BYTES:
            return f"a part is longer than {_MAX_NAME_BYTES} bytes, more than a file system holds in one name"
    return None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def inside(root: str | os.PathLike, *values: str, where: str, columns: tuple[str, ...] = (),
           nested: tuple[int, ...] = (), suffix: str = "", follow: bool = False, escaped: bool = True) -> Path:
    """``root / values[0] / values[1] / ... + suffix``, refused unless it stays inside ``root``.

    ``values`` are escaped table cells; those whose index is in ``nested`` may
    hold ``/`` (a relative ``path`` column), the others are one name each.
    ``suffix`` is appended to the last value (``<phash>.jpg``). ``where``
    names the row in the message (``catalog.csv line 7``), ``columns`` the
    column of each value (``team``, ``class``, ...).
    ``escaped=False``: the cells are used as written, not unescaped (a split
    file is named by the team's escaped text). ``follow``: resolve the last part too (a source read or moved); without it
    only the folder is resolved (an output written through a temporary name).
    Returns ``root`` joined with the names, as the caller spelled ``root``.
    """
    if not values:
        raise ValueError("inside() needs at least one value")
    names = []
    for k, raw in enumerate(values):
        at = f"{where}, column '{columns[k]}'" if k < len(columns) else where
        if not isinstance(raw, str):
            raise UnsafePath(f"{at}: {raw!r} is not text")
        name = unescape_name(raw) if escaped else raw
        why = _why_not(name, k in nested)
        if why is not None:
            raise UnsafePath(f"{at}: {display_name(repr(raw))} is not a safe name under {display_name(str(root))} "
                             f"({why})")
        names.append(name)
    names[-1] += suffix
    base = Path(os.path.abspath(os.fspath(root))).resolve()
    joined = base.joinpath(*names)
    try:
        real = joined.resolve() if follow else joined.parent.resolve() / joined.name
    except (OSError, RuntimeError) as exc:  # a link loop
        raise UnsafePath(f"{where}: {display_name(str(joined))} cannot be resolved ({exc})") from None
    if not _inside(real, base):
        raise UnsafePath(f"{where}: {display_name(str(joined))} leads to {display_name(str(real))}, outside "
                         f"{base} (through a symbolic link)")
    return Path(root).joinpath(*names)
