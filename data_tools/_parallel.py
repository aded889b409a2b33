"""Map a function over work items in a process pool, in order, with progress.

Images are decoded in worker processes (decoding holds the GIL for much of its
time, threads would not scale). ``workers=1`` runs in this process, which is
what tests and the single-core benchmark use. Results come back in input order
(``imap`` with chunks), so outputs do not depend on scheduling.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from agrieval.data_tools._progress import Progress

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """All cores this process may use (``sched_getaffinity``, so containers are honoured)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def _context():
    """``fork`` while this process has a single thread (workers start in a blink); otherwise
    ``forkserver`` preloading the decoders, since forking a threaded process can deadlock."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["agrieval.data_tools.probe", "agrieval.data_tools.resize"])
        return ctx
    return multiprocessing.get_context("spawn")  # pragma: no cover - Windows


def pmap(func: Callable[[T], R], items: Sequence[T], *, workers: int | None = None,
         desc: str = "working", progress: bool = True) -> Iterator[R]:
    """Yield ``func(item)`` for each item, in order; ``func`` must be a module-level function."""
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError("workers must be >= 1")
    if workers == 1 or len(items) <= 1:
        with Progress(len(items), desc, enabled=progress) as bar:
            for item in items:
                result = func(item)
                bar.update()  # before yielding: a consumer may stop pulling after the last item
                yield result
        return
    # Small chunks: images vary a lot in cost, and the bar should move.
    chunk = max(1, min(16, len(items) // (workers * 8) or 1))
    ctx = _context()  # chosen before the bar exists: tqdm starts a monitor thread
    with ctx.Pool(min(workers, len(items))) as pool, Progress(len(items), desc, enabled=progress) as bar:
        for result in pool.imap(func, items, chunksize=chunk):
            bar.update()
            yield result
