"""Helpers for the tests that attack the opening and image rules with files that are not what they claim."""

from __future__ import annotations

import contextlib
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
