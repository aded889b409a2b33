"""Progress for long jobs: a tqdm bar on a terminal, plain lines in a log.

Plain lines go to stderr at most every ``every_s`` seconds (and at the end),
so a log of a 50,000-file run stays short and still shows the job is alive.
"""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, desc: str, *, enabled: bool = True, every_s: float = 10.0) -> None:
        self.total, self.desc, self.enabled, self.every_s = total, desc, enabled, every_s
        self.done = 0
        self._bar = None
        self._start = self._last = time.monotonic()
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit="img", dynamic_ncols=True)

    def update(self, n: int = 1) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled:
            now = time.monotonic()
            if now - self._last >= self.every_s:
                self._last = now
                self._line(now)

    def _line(self, now: float) -> None:
        rate = self.done / max(now - self._start, 1e-9)
        print(f"{self.desc}: {self.done}/{self.total} ({rate:.1f}/s)", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled and self.total:
            self._line(time.monotonic())

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
