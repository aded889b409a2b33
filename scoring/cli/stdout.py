"""Held stdout: a command prints its verdict only once it has decided."""

from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stdout
from typing import Callable


def _silence_stdout() -> None:
    # The reader went away: further writes (and the flush at exit) go nowhere instead of raising again.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def emit(body: Callable[[], int]) -> int:
    """Run ``body`` with stdout held back, then print it: a closed pipe cannot hide the verdict.

    ``body`` returns the exit code; its stdout is written once it has decided, so a
    reader that goes away (``| head -1``) leaves that exit code, never 0 for a rejection.
    """
    held = io.StringIO()
    try:
        with redirect_stdout(held):
            code = body()
    finally:
        _write_stdout(held.getvalue())
    return code


def _write_stdout(text: str) -> None:
    if not text:
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
