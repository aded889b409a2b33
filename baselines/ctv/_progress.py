"""Progress for logs (no terminal): plain lines within an epoch, durations for the sweep's ETA. No torch here:
``ctv plan`` imports the sweep without it."""

from __future__ import annotations

import sys
import time

__all__ = ["LINE_EVERY_S", "LineProgress", "format_duration"]

LINE_EVERY_S = 60.0  # a log (SLURM, a file) gets a plain progress line at most this often


class LineProgress:
    """Progress within an epoch as plain lines for a log (no terminal): ``epoch 3: 1200/4000 batches (30 %),
    ETA 2m10s``, at most every ``LINE_EVERY_S`` seconds, so a long epoch is never silent."""

    def __init__(self, total: int, desc: str):
        self.total, self.desc, self.done = total, desc, 0
        self.start = self.last = time.perf_counter()

    def update(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if now - self.last >= LINE_EVERY_S and self.done < self.total:
            self.last = now
            left = (now - self.start) / self.done * (self.total - self.done)
            print(f"{self.desc}: {self.done}/{self.total} batches ({100 * self.done // self.total} %), "
                  f"ETA {format_duration(left)}", file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


def format_duration(seconds: float) -> str:
    """``45s``, ``2m10s``, ``3h05m``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
