"""A report or result is written whole, or the write fails: never half a file taken for a success.

``os.write`` may take fewer bytes than it was given: a file that reaches its size limit (RLIMIT_FSIZE,
with SIGXFSZ ignored), a pipe, a slow device. Python's unbuffered streams (``PYTHONUNBUFFERED=1``,
common in grading images) pass that short count on and their text layer ignores it, so half a JSON
report on stdout could end in exit 0. ``write_all`` writes until every byte is taken and turns any
failure (a full disk, a file-size limit, a closed or broken stdout) into ``OutputIncomplete``: host-side,
exit code 3. Python 3.8-compatible (the grading runtime imports it).
"""

from __future__ import annotations

import os
from typing import Optional, Union

from .coded_error import CodedError


class OutputIncomplete(CodedError, OSError):
    """A report or result could not be written whole (exit 3); an ``OSError``, as the write's own error was."""

    def __init__(self, what: str, cause: Union[BaseException, str], written: Optional[int] = None,
                 total: Optional[int] = None) -> None:
        reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(cause)
        count = f"{written:,} of {total:,} bytes written" if written is not None and total is not None else \
            "not written whole"
        super().__init__("output_incomplete", f"{what}: {count} ({reason}); the output is not whole")
        self.reason = reason
        self.written = written
        self.total = total


def write_all(fd: int, data: Union[bytes, bytearray, memoryview], what: str) -> None:
    """Write every byte of ``data`` to the file descriptor ``fd``, or raise ``OutputIncomplete``."""
    view = memoryview(data).cast("B")
    done = 0
    while done < len(view):
        try:
            n = os.write(fd, view[done:])
        except OSError as exc:  # (EINTR is retried by os.write itself)
            raise OutputIncomplete(what, exc, done, len(view)) from None
        if n <= 0:
            raise OutputIncomplete(what, "the write took no bytes", done, len(view))
        done += n
