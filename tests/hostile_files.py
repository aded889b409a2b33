"""Helpers for the tests that attack the opening and image rules with files that are not what they claim."""

from __future__ import annotations

import contextlib
import os
import signal


@contextlib.contextmanager
def at_most(seconds: int, what: str = "the file"):
    """A read that blocks (a FIFO opened without O_NONBLOCK) fails the test instead of hanging it: SIGALRM after
    ``seconds`` raises ``TimeoutError`` naming ``what`` as opened outside the rule (POSIX, main thread only)."""
    def give_up(signum, frame):
        raise TimeoutError(f"still blocked after {seconds} s: {what} was opened outside the opening rule")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


NOT_REGULAR = ("fifo", "device", "folder")


def make_not_regular(path, shape: str) -> None:
    """``path`` made as one of the files a reader must refuse at once without reading: a FIFO (a read would block
    for ever), a link to /dev/zero (a read would never end), or a folder."""
    if shape == "fifo":
        os.mkfifo(path)
    elif shape == "device":
        path.symlink_to("/dev/zero")
    elif shape == "folder":
        path.mkdir()
    else:
        raise ValueError(f"not one of {NOT_REGULAR}: {shape!r}")
