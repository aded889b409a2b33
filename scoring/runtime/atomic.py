"""Write outputs through a temporary file in the same folder, then rename: a final name holds a complete file.

One mechanism for every command that writes (``atomic_write``, ``write_text``,
``write_bytes``, and ``commit`` for a temporary a writer filled itself):

1. the data goes to a temporary sibling ``.<name>.<8 random>.tmp``;
2. it is flushed and fsynced, and its size on disk is checked: exactly the
   bytes given (``write_bytes``), or at least as many as the writer reached
   (a stream: a file system that lost bytes, a truncation, shows there); a
   write refused for want of room (a full disk, a file-size limit, a quota)
   or by the device is ``whole_writes.OutputIncomplete`` (exit 3);
3. an optional ``check(tmp)`` reads what was written (a decode of an image:
   Pillow's encoder writes to the descriptor itself and does not report a
   short write when the disk fills, so only reading back shows it);
4. only then is it renamed onto the final name. On any error (a full disk,
   a failed check, an interrupt) the temporary is removed and nothing
   appears under the final name; the previous file, if any, is left.

A run killed between 1 and 4 leaves a temporary; ``leftover_temporaries``
finds those of given final names (and only those), so a ``--resume`` can
treat them as not done and remove its own. The file gets the mode a plain
``open()`` would give it (0666 less the user's umask), not ``mkstemp``'s
private 0600. Python 3.8-compatible (the grading runtime imports it).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from pathlib import Path
from typing import IO, Callable, Iterable, Iterator, List, Optional, Union

from ._whole_writes import OutputIncomplete

_TEMP_SUFFIX = ".tmp"
# mkstemp's names: prefix + 8 characters of [a-z0-9_] + suffix.
_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}" + re.escape(_TEMP_SUFFIX) + "$")


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


def _temporary_for(path: Union[str, Path]) -> tuple:
    """``(fd, tmp)``: a new temporary sibling of ``path``, open for writing, with a plain file's mode."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TEMP_SUFFIX, dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    return fd, tmp


# A write that failed for want of room or by the device: the output is incomplete (exit 3), not a bug.
_INCOMPLETE = frozenset(getattr(errno, name) for name in ("ENOSPC", "EFBIG", "EDQUOT", "EIO") if hasattr(errno, name))


def _short(path: Union[str, Path], on_disk: int, written: int) -> OutputIncomplete:
    return OutputIncomplete(str(path), "a full disk? the output was not kept", on_disk, written)


def _raise_incomplete(path: Union[str, Path], exc: OSError) -> None:
    """Raise ``exc`` as ``OutputIncomplete`` where it says the output could not be written whole."""
    if isinstance(exc, OutputIncomplete) or exc.errno not in _INCOMPLETE:
        raise exc
    raise OutputIncomplete(f"{path} (the output was not kept)", exc) from None


def commit(tmp: Union[str, Path], path: Union[str, Path], *, overwrite: bool = True,
           size: Optional[int] = None, check: Optional[Callable[[Path], None]] = None) -> None:
    """Steps 2-4 for a temporary that is already written and closed: fsync, size, ``check``, rename.

    ``size``: the exact byte count expected. The temporary is removed on any error.
    """
    try:
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
            on_disk = os.fstat(fd).st_size
        except OSError as exc:
            _raise_incomplete(path, exc)
        finally:
            os.close(fd)
        if size is not None and on_disk != size:
            raise _short(path, on_disk, size)
        if check is not None:
            check(Path(tmp))
        _rename(str(tmp), str(path), overwrite)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _rename(tmp: str, path: str, overwrite: bool) -> None:
    if overwrite:
        os.replace(tmp, path)
    else:
        os.link(tmp, path)  # fails if path exists: no overwrite race
        os.unlink(tmp)


@contextlib.contextmanager
def atomic_write(path: Union[str, Path], mode: str = "w", *, overwrite: bool = True,
                 encoding: Optional[str] = "utf-8", newline: Optional[str] = None,
                 size: Optional[int] = None, check: Optional[Callable[[Path], None]] = None) -> Iterator[IO]:
    """Open a temporary sibling of ``path`` for writing; on success check it and rename it over ``path``.

    With ``overwrite=False`` an existing ``path`` is an error (FileExistsError)
    and is never replaced, also when it appears while we write. ``size`` (the
    exact bytes expected) and ``check`` (called with the complete temporary's
    path; raise to refuse it) are steps 2 and 3 of the module docstring.
    """
    path = Path(path)
    if not overwrite and path.exists():
        raise FileExistsError(f"{path} already exists; refusing to overwrite it")
    fd, tmp = _temporary_for(path)
    binary = "b" in mode
    try:
        try:
            with os.fdopen(fd, mode, encoding=None if binary else encoding,
                           newline=None if binary else newline) as fh:
                yield fh
                fh.flush()
                raw = fh if binary else fh.buffer
                reached = raw.tell()  # the writer's position: bytes it wrote, unless it seeked back
                os.fsync(fh.fileno())
                on_disk = os.fstat(fh.fileno()).st_size
        except OSError as exc:  # (also a write of the caller's, or the close's last flush)
            _raise_incomplete(path, exc)
        if on_disk < reached:
            raise _short(path, on_disk, reached)
        if size is not None and on_disk != size:
            raise _short(path, on_disk, size)
        if check is not None:
            check(Path(tmp))
        _rename(tmp, str(path), overwrite)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path: Union[str, Path], text: str, **kw) -> None:
    """Write ``text`` to ``path`` atomically (a temporary name, then renamed); ``kw`` as ``atomic_write`` takes them."""
    with atomic_write(path, "w", **kw) as fh:
        fh.write(text)


def write_bytes(path: Union[str, Path], data: bytes, **kw) -> None:
    """``data`` under ``path``, its size on disk checked exactly (and ``check`` run) before the rename."""
    with atomic_write(path, "wb", encoding=None, size=len(data), **kw) as fh:
        fh.write(data)


def _leftover_temporaries(folder: Union[str, Path], names: Iterable[str]) -> List[Path]:
    """The temporaries a killed run left in ``folder`` for the final ``names`` (and no other file)."""
    wanted = set(names)
    found = []  # type: List[Path]
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return found
    for entry in entries:
        m = _TEMPORARY.match(entry.name)
        if m and m.group("name") in wanted and entry.is_file(follow_symlinks=False):
            found.append(Path(folder) / entry.name)
    return sorted(found)


def remove_leftover_temporaries(paths: Iterable[Union[str, Path]]) -> int:
    """Remove the temporaries a killed run left for these final paths; return how many."""
    by_folder = {}  # type: Dict[Path, List[str]]
    for p in paths:
        p = Path(p)
        by_folder.setdefault(p.parent, []).append(p.name)
    n = 0
    for folder, names in by_folder.items():
        for tmp in _leftover_temporaries(folder, names):
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
                n += 1
    return n
