"""Process settings for a one-shot ``agrieval score`` (the plain path of ``scoring.cli.entry``).

A fresh score of a large file spends much of its time having the kernel hand it
fresh pages, not computing: on the 2-core VM of ``docs/speed.md`` touching new
memory costs about 0.5 ms per MB, and the 200,000-row case passes through several
hundred MB of short-lived numpy arrays. glibc's defaults return each large freed
array to the kernel (``munmap``, or trimming the heap top), so the next array of
that size is faulted in again, page by page. A process that exits within a second
gains nothing from returning memory early; keeping it lets the next array reuse
pages already touched (the 200,000-row ``pandas`` case of
``benchmarks/bench_scoring.py``, medians of 10 fresh runs taken in turn with and
without: wall 0.60 -> 0.56 s, CPU 0.85 -> 0.78 s, minor page faults about 100,000
-> 67,000). Likewise the interpreter's teardown (freeing every array and string,
module by module) is skipped once the verdict is written.

Neither applies to a long-lived process (``Grader``, ``leaderboard``): there the
defaults, which give memory back, are right.
"""

from __future__ import annotations

import os
import sys

# mallopt parameter numbers (glibc's malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_MAX, _M_ARENA_MAX = -1, -4, -8


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to keep freed memory for reuse: no trimming of the heap, no separate mapping per
    large block, one arena for both threads (the solution's thread reuses the pages the main thread freed).
    Returns whether glibc took every setting; elsewhere (musl, macOS, Windows) nothing is changed."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
    except (AttributeError, ValueError, OSError):
        return False  # not glibc (the name is unknown, or unset)
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    settings = ((_M_TRIM_THRESHOLD, 2**31 - 1), (_M_MMAP_MAX, 0), (_M_ARENA_MAX, 1))
    return all(mallopt(param, value) == 1 for param, value in settings)


def exit_now(code: int) -> None:
    """Flush what was written, then end the process with ``code`` without the interpreter's teardown
    (nothing on the plain path needs it: no files open for writing, no exit handlers of ours, the
    solution's thread already joined). A reader that went away was handled when stdout was written."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # (closed, or a broken pipe: what could be written was)
    os._exit(code)
