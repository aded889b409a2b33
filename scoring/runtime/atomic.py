"""Write outputs through a temporary file in the same folder, then rename.

A reader never sees a half-written file, and an interrupted job leaves the
previous output (or nothing) in place. Used by every command that writes.
The file gets the mode a plain ``open()`` would give it (0666 less the
user's umask), not ``mkstemp``'s private 0600.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def _umask() -> int:
    """The process umask, read without changing it where the system says it (Linux)."""
    try:
        with open("/proc/self/status", "rb") as fh:  # bytes: the Name: line may be any encoding
            for line in fh:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore at once
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", *, overwrite: bool = True,
                 encoding: str | None = "utf-8", newline: str | None = None) -> Iterator[IO]:
    """Open a temporary sibling of ``path`` for writing; rename it over ``path`` on success.

    With ``overwrite=False`` an existing ``path`` is an error (FileExistsError)
    and is never replaced, also when it appears while we write.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not overwrite and path.exists():
        raise FileExistsError(f"{path} already exists; refusing to overwrite it")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    binary = "b" in mode
    try:
        os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding,
                       newline=None if binary else newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if path exists: no overwrite race
            os.unlink(tmp)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path: str | Path, text: str, **kw) -> None:
    with atomic_write(path, "w", **kw) as fh:
        fh.write(text)


def write_bytes(path: str | Path, data: bytes, **kw) -> None:
    with atomic_write(path, "wb", encoding=None, **kw) as fh:
        fh.write(data)
