"""Run a function in a child process, kill it past a wall-clock limit, cap the memory it may add.

Why a child process rather than a thread or a signal: a hostile file can keep
the interpreter inside one C call (a regex, a CSV tokeniser, numpy) for as long
as it likes; neither a thread nor ``SIGALRM`` can interrupt that reliably, but
killing a process always works, and the server's own process survives.

On POSIX the child is forked (about 10 ms, and the already-loaded solution is
shared for free); elsewhere it is spawned, so ``fn`` and its arguments must
then be picklable (they are: module-level function, dataclasses, pydantic).

The memory cap is an address-space limit (``RLIMIT_AS``) set inside the child
at what it already maps plus the allowance, so a server that holds a large
solution or other models in memory is not starved by it. Past the cap an
allocation fails with ``MemoryError`` in the child, never in the server.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

# Imported inside functions, so that importing this module loads only what it needs: resource (POSIX only).

try:
    import resource  # POSIX only
except ImportError:  # Windows: no memory cap
    resource = None  # type: ignore[assignment]


@dataclass
class Outcome:
    kind: Literal["ok", "raised", "timeout", "died"]
    value: Any = None  # the return value (ok), or {"code", "message"} of the exception (raised)
    error_type: str = ""
    error_text: str = ""  # traceback of the child (raised) or how it died (died)


def _context() -> mp.context.BaseContext:
    if sys.platform != "win32" and "fork" in mp.get_all_start_methods():
        return mp.get_context("fork")
    return mp.get_context("spawn")


def _mapped_bytes() -> int | None:
    """Address space this process maps now (Linux), or None where /proc is absent."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def cap_memory(extra_bytes: int) -> bool:
    """Limit this process to what it maps now plus ``extra_bytes``; False where that cannot be done."""
    try:
        import resource
    except ImportError:  # Windows
        return False
    mapped = _mapped_bytes()
    if mapped is None:
        return False
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = mapped + extra_bytes
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    return True


def _type_name(exc: BaseException) -> str:
    """The exception's type name; ``MemoryError`` for its subclasses too (numpy 1.x raises ``_ArrayMemoryError``
    when an array cannot be allocated), so that the callers see every memory failure as one."""
    return "MemoryError" if isinstance(exc, MemoryError) else type(exc).__name__


def _child(conn, fn: Callable[..., Any], args: tuple, kwargs: dict, memory_bytes: int | None) -> None:
    try:
        if memory_bytes is not None:
            cap_memory(memory_bytes)
        value = fn(*args, **kwargs)
        conn.send(("ok", value, "", ""))
    except BaseException as exc:  # noqa: BLE001 - everything must come back to the parent
        # Exceptions with custom constructors do not unpickle; send their parts instead.
        parts = {"code": getattr(exc, "code", None), "message": str(exc)}
        conn.send(("raised", parts, _type_name(exc), traceback.format_exc()))
    finally:
        conn.close()


def run_with_time_limit(fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None, *,
                        seconds: float, memory_bytes: int | None = None) -> Outcome:
    """``fn(*args, **kwargs)`` in a child process; give up and kill it after ``seconds``.

    ``memory_bytes``: how much address space the child may map beyond what it
    starts with (POSIX; ignored elsewhere).
    """
    if mp.current_process().daemon:
        # A daemonic process (a multiprocessing pool worker, as Kaggle may run the metric in) cannot start
        # children: run here, with the limits this process can still enforce on itself.
        return run_in_process(fn, args, kwargs or {}, seconds=seconds, memory_bytes=memory_bytes)
    ctx = _context()
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child_conn, fn, args, kwargs or {}, memory_bytes), daemon=True)
    proc.start()
    child_conn.close()  # so that recv() sees EOF if the child dies without sending
    try:
        if not parent_conn.poll(seconds):
            return Outcome("timeout", error_text=f"no result after {seconds:g} s; the child was killed")
        try:
            kind, value, etype, text = parent_conn.recv()
        except (EOFError, OSError):
            proc.join(5)
            code = proc.exitcode
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            return Outcome("died", error_type="ChildDied", error_text=f"the grading process died ({how})")
        return Outcome(kind, value, etype, text)
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent_conn.close()
        if hasattr(proc, "close") and proc.exitcode is not None:
            proc.close()



class _Timeout(BaseException):
    """Raised by the alarm inside ``run_in_process``; a BaseException so that ``except Exception`` in the
    graded code cannot swallow it."""


def run_in_process(fn: Callable[..., Any], args: tuple, kwargs: dict, *, seconds: float,
                   memory_bytes: int | None) -> Outcome:
    """The fallback where no child process can be started.

    Memory: the address-space cap is set for the call and restored after it (a
    soft limit may be raised again up to the hard one). Time: ``SIGALRM``,
    only in the main thread of a POSIX process; it cannot interrupt one long C
    call, which a killed child could, so the platform's own time limit stays
    the last resort there.
    """
    restore = resource.getrlimit(resource.RLIMIT_AS) if resource is not None else None
    use_alarm = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    previous = None
    try:
        if memory_bytes is not None and restore is not None:
            cap_memory(memory_bytes)
        if use_alarm:
            def _ring(signum, frame):
                raise _Timeout()

            previous = signal.signal(signal.SIGALRM, _ring)
            signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            value = fn(*args, **kwargs)
        finally:
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
        return Outcome("ok", value)
    except _Timeout:
        return Outcome("timeout", error_text=f"no result after {seconds:g} s; stopped by an alarm (in-process)")
    except BaseException as exc:  # noqa: BLE001 - the caller turns every failure into an answer
        return Outcome("raised", {"code": getattr(exc, "code", None), "message": str(exc)}, _type_name(exc),
                       traceback.format_exc())
    finally:
        if use_alarm and previous is not None:
            signal.signal(signal.SIGALRM, previous)
        if restore is not None:
            resource.setrlimit(resource.RLIMIT_AS, restore)
