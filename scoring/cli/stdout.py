"""stdout that is written whole or fails the run, and held until a command has decided.

``checked_stdout`` makes the process's stdout write every byte or raise ``OutputIncomplete``, whatever
its buffering (``PYTHONUNBUFFERED=1`` included): a full disk, a file-size limit, a closed stdout
(``>&-``) or a reader that went away (a broken pipe) is a host-side failure, exit code 3 and one line on
stderr, never 0 and never 1 (``finish``). ``emit`` holds what a command prints until it has decided, then
writes it at once.
"""

from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stdout
from typing import Callable, Optional

from agrieval.scoring.runtime.whole_writes import OutputIncomplete, write_all


class _WholeWrites(io.RawIOBase):
    """File descriptor 1, each write whole or an ``OutputIncomplete``; after the first failure, what follows is
    dropped (the run fails already: nothing more should land after the gap)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.written = 0  # bytes taken so far, for the line that says how far it got
        self.failure: Optional[OutputIncomplete] = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        if self.failure is None:
            try:
                write_all(self._fd, data, "stdout")
            except OutputIncomplete as exc:
                self.failure = OutputIncomplete("stdout", exc.reason, self.written + (exc.written or 0),
                                                self.written + size)
                raise self.failure from None
            self.written += size
        return size


def checked_stdout() -> Optional[_WholeWrites]:
    """Put a stdout that writes whole or fails in place of the process's own; None (nothing changed) when
    ``sys.stdout`` is already another stream (a test runner's, a caller's redirect)."""
    if sys.stdout is not sys.__stdout__:
        return None
    old = sys.stdout
    try:
        os.fstat(1)
    except OSError:
        _hold_closed_descriptor()
    raw = _WholeWrites(1)
    if old is not None:
        try:
            old.flush()
        except (OSError, ValueError):
            pass
    # the buffering the interpreter chose (none under -u / PYTHONUNBUFFERED), each write now checked
    buffered = old is None or not isinstance(getattr(old, "buffer", None), io.RawIOBase)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(raw) if buffered else raw,
        encoding=getattr(old, "encoding", None) or "utf-8", errors=getattr(old, "errors", None) or "strict",
        line_buffering=bool(getattr(old, "line_buffering", False)), write_through=not buffered)
    _replaced.append(old)  # kept: the interpreter's own stream is never collected (and never closes fd 1)
    return raw


_replaced: list = []


def _hold_closed_descriptor() -> None:
    """stdout was closed (``>&-``): fd 1 held by a read-only /dev/null, so that a write there fails (EBADF)
    and no file the command opens later receives fd 1, and with it the report."""
    fd = os.open(os.devnull, os.O_RDONLY)
    if fd != 1:
        os.dup2(fd, 1)
        os.close(fd)


def finish(raw: Optional[_WholeWrites], code: int) -> int:
    """The exit code once stdout is flushed: 3, with the line on stderr if none was printed, when any write
    to stdout failed (also one that some code caught and went on)."""
    if raw is None:
        return code
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass  # (an OutputIncomplete is in raw.failure)
    if raw.failure is None:
        return code
    if not getattr(raw.failure, "reported", False):
        from agrieval.scoring.cli.errors import report

        return report(raw.failure, "agrieval")
    return raw.failure.exit_code


def emit(body: Callable[[], int]) -> int:
    """Run ``body`` with stdout held back, then print what it printed at once; return ``body``'s exit code.

    A command's report is written only once it is complete, in one write (checked whole by
    ``checked_stdout``): a failure half-way never leaves half a report followed by an error object.
    """
    held = io.StringIO()
    try:
        with redirect_stdout(held):
            code = body()
    finally:
        text = held.getvalue()
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()
    return code
