"""Map a function over work items in a process pool, in order, with progress.

Images are decoded in worker processes (decoding holds the GIL for much of its
time, threads would not scale). ``workers=1`` runs in this process, which is
what tests and the single-core benchmark use. Results come back in input order
(``imap`` with chunks), so outputs do not depend on scheduling.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from data_tools.progress import Progress

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """All cores this process may use (``sched_getaffinity``, so containers are honoured)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def pmap(func: Callable[[T], R], items: Sequence[T], *, workers: int | None = None,
         desc: str = "working", progress: bool = True) -> Iterator[R]:
    """Yield ``func(item)`` for each item, in order; ``func`` must be a module-level function."""
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError("workers must be >= 1")
    with Progress(len(items), desc, enabled=progress) as bar:
        if workers == 1 or len(items) <= 1:
            for item in items:
                result = func(item)
                bar.update()  # before yielding: a consumer may stop pulling after the last item
                yield result
            return
        # Small chunks: images vary a lot in cost, and the bar should move.
        chunk = max(1, min(16, len(items) // (workers * 8) or 1))
        ctx = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
        with ctx.Pool(min(workers, len(items))) as pool:
            for result in pool.imap(func, items, chunksize=chunk):
                bar.update()
                yield result
