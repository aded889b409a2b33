"""Write outputs through a temporary file in the same folder, then rename.

A reader never sees a half-written file, and an interrupted job leaves the
previous output (or nothing) in place. Used by every command that writes.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


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
