"""Freed memory kept for reuse in the one-shot ``agrieval score`` process (glibc's ``mallopt``).

Reading a 25 MB solution makes and drops many arrays of a few MB. By default
glibc serves each from fresh pages of the kernel (``mmap``) and hands them back
when freed (``munmap``, or trimming the heap), so every array pays its page
faults again, and with the solution read in a second thread each unmapping
interrupts the other CPU too. Fixing the mmap threshold at glibc's 32 MB
maximum, and trimming the heap only past 1 GB of free space at its top, keeps
those arrays in the heap, whose freed pages the next arrays reuse. Measured on
the 200,000-row case (10 alternating runs of ``agrieval score``, 2 CPUs):
page faults 43,700 -> 33,800, system time 0.22 s -> 0.11 s, CPU time
0.86 s -> 0.76 s. The process ends right after scoring, so nothing is held for
long, and nothing changes what is computed. Left alone where there is no
glibc (``mallopt``), and where the user tuned malloc through the environment.
"""

from __future__ import annotations

import os
import sys

_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3  # glibc's <malloc.h>
_SETTINGS = ((_M_MMAP_THRESHOLD, 32 << 20), (_M_TRIM_THRESHOLD, 1 << 30), (_M_TOP_PAD, 64 << 20))
_USER_TUNING = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_ARENA_MAX",
                "GLIBC_TUNABLES")


def keep_freed_memory() -> bool:
    """Apply the settings above; whether glibc took them all."""
    if not sys.platform.startswith("linux") or any(name in os.environ for name in _USER_TUNING):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return all([mallopt(param, value) == 1 for param, value in _SETTINGS])
