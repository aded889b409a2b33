"""How DataLoader worker processes start: a fork server, never a fork of the training process.

A forked child inherits every lock of its parent in whatever state another thread held it; under
torchrun the training process runs gloo/NCCL and intra-op threads, and a worker forked while one of
them held a lock waits on it forever (seen: rank 1's worker stuck in a futex in ``popen_fork``, rank 0
waiting in ``all_gather``). ``forkserver`` forks the workers from a small single-threaded server
started once per process, which imports torch and the dataset code once (``preload``), so a worker
start costs a fork, not an interpreter start.

As with any spawn or fork-server DataLoader, a worker imports the main module again: a script that
calls ``run_fold`` with ``--num-workers`` > 0 needs the ``if __name__ == "__main__":`` guard (the
``agrieval`` command, ``python -m agrieval.baselines.ctv._cli`` and notebooks have it or need none).

``--transforms script`` (the official preset) keeps the script's start method (the platform's default,
fork on Linux): what a worker inherits is part of the stream the fidelity check pins, and that preset
runs in one process.
"""

from __future__ import annotations

import multiprocessing

PRELOAD = ["torch", "torchvision.transforms.v2", "agrieval.baselines.ctv._dataset", "agrieval.baselines.ctv._transforms"]


def worker_context(fork_server: bool):
    """The ``multiprocessing_context`` of a pipeline's loaders: a fork server, or None (the default)."""
    if not fork_server or "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)  # only read when the server starts (once per process)
    return ctx
