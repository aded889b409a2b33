"""Progress for long jobs: a tqdm bar on a terminal, plain lines in a log.

The one progress display of the kit (the data tools' pools, the PlantCLEF predictor and sweep). Off a
terminal, a line goes to stderr at most every ``every_s`` seconds and once at the end, so a log of a
50,000-file run stays short and still shows the job is alive::

    resize: 5000/50000 img (86.6 img/s, ETA 520 s)
    ...
    resize: 50000/50000 img (86.1 img/s)
"""

from __future__ import annotations

import sys
import time

# Imported inside functions, so that importing this module loads only what it needs: tqdm (heavy or optional).

__all__ = ["Progress"]


def _tqdm_bar(total: int, desc: str, unit: str):
    """tqdm's bar, for a terminal."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)


class Progress:
    """``total`` steps of ``unit`` (a word: ``img``, ``setting``); ``enabled=False`` shows nothing."""

    def __init__(self, total: int, desc: str, *, unit: str = "img", enabled: bool = True,
                 every_s: float = 10.0) -> None:
        self.total, self.desc, self.unit, self.every_s = total, desc, unit, every_s
        self.enabled = enabled and total > 0
        self.done = 0
        self._bar = None
        self._start = self._last = time.monotonic()
        if self.enabled and sys.stderr.isatty():
            self._bar = _tqdm_bar(total, desc, unit)

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
        eta = f", ETA {(self.total - self.done) / rate:.0f} s" if 0 < self.done < self.total else ""
        print(f"{self.desc}: {self.done}/{self.total} {self.unit} ({rate:.1f} {self.unit}/s{eta})",
              file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            self._line(time.monotonic())

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
