"""Progress: a tqdm bar on a terminal, a plain line every ~10% otherwise (logs, CI)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, desc: str, unit: str = "img", enabled: bool = True) -> None:
        self.total, self.desc, self.unit, self.done = total, desc, unit, 0
        self.start = time.perf_counter()
        self._bar = None
        self._next_line = max(1, total // 10)
        self.enabled = enabled and total > 0
        if self.enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
        elif self.done >= self._next_line or self.done == self.total:
            rate = self.done / max(time.perf_counter() - self.start, 1e-9)
            print(f"{self.desc}: {self.done}/{self.total} {self.unit} ({rate:.1f} {self.unit}/s)",
                  file=sys.stderr, flush=True)
            while self._next_line <= self.done:
                self._next_line += max(1, self.total // 10)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
