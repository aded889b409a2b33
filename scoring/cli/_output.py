"""What the ``agrieval`` commands put on stdout and stderr: whole writes, held reports, JSON, renderings.

* stdout written whole or failing the run: ``checked_stdout`` makes the process's stdout write every byte or
  raise ``OutputIncomplete``, whatever its buffering (``PYTHONUNBUFFERED=1`` included): a full disk, a
  file-size limit, a closed stdout (``>&-``) or a reader that went away (a broken pipe) is a host-side
  failure, exit code 3 and one line on stderr, never 0 and never 1 (``finish``).
* ``held``: a command's stdout kept until it has decided, then written at once.
* the ``--json`` contract: a command that promises one JSON object on stdout (``promise_json``, the callback
  of ``agrieval.scoring.cli._options.json_option``) still gets one when it fails (``json_failure``).
* a library's warning (numpy's RuntimeWarning, a Pillow or matplotlib warning) is one line of ours,
  ``warning [library_warning] Category: message``; ``--debug`` leaves Python's own display.
* plain-text renderings of score reports for the terminal (JSON is ``ScoreReport.to_json``).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import sys
import warnings
from contextlib import redirect_stdout
from contextvars import ContextVar
from typing import Callable, Optional

import click

from agrieval.scoring.cli._failures import debug, report
from agrieval.scoring.runtime._whole_writes import OutputIncomplete, write_all
from agrieval.scoring.runtime.report import SCHEMA_VERSION
from agrieval.scoring.text.tables import fmt as _fmt
from agrieval.scoring.text.terminal import cell, one_line

__all__ = ["checked_stdout", "finish", "held", "promise_json", "forget_json_promise", "json_failure",
           "library_warnings", "fmt", "render_problems", "render_report"]


# --- stdout written whole ------------------------------------------------------------------------------------

class _WholeWrites(io.RawIOBase):
    """File descriptor 1, each write whole or an ``OutputIncomplete``; after the first failure, what follows is
    dropped (the run fails already: nothing more should land after the gap)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.written = 0  # bytes taken so far, for the line that says how far it got
        self.failure: Optional[OutputIncomplete] = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        if self.failure is None:
            try:
                write_all(self._fd, data, "stdout")
            except OutputIncomplete as exc:
                self.failure = OutputIncomplete("stdout", exc.reason, self.written + (exc.written or 0),
                                                self.written + size)
                raise self.failure from None
            self.written += size
        return size


def checked_stdout() -> Optional[_WholeWrites]:
    """Put a stdout that writes whole or fails in place of the process's own; None (nothing changed) when
    ``sys.stdout`` is already another stream (a test runner's, a caller's redirect)."""
    if sys.stdout is not sys.__stdout__:
        return None
    old = sys.stdout
    try:
        os.fstat(1)
    except OSError:
        _hold_closed_descriptor()
    raw = _WholeWrites(1)
    if old is not None:
        try:
            old.flush()
        except (OSError, ValueError):
            pass
    # the buffering the interpreter chose (none under -u / PYTHONUNBUFFERED), each write now checked
    buffered = old is None or not isinstance(getattr(old, "buffer", None), io.RawIOBase)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(raw) if buffered else raw,
        encoding=getattr(old, "encoding", None) or "utf-8", errors=getattr(old, "errors", None) or "strict",
        line_buffering=bool(getattr(old, "line_buffering", False)), write_through=not buffered)
    _replaced.append(old)  # kept: the interpreter's own stream is never collected (and never closes fd 1)
    return raw


_replaced: list = []


def _hold_closed_descriptor() -> None:
    """stdout was closed (``>&-``): fd 1 held by a read-only /dev/null, so that a write there fails (EBADF)
    and no file the command opens later receives fd 1, and with it the report."""
    fd = os.open(os.devnull, os.O_RDONLY)
    if fd != 1:
        os.dup2(fd, 1)
        os.close(fd)


def finish(raw: Optional[_WholeWrites], code: int) -> int:
    """The exit code once stdout is flushed: 3, with the line on stderr if none was printed, when any write
    to stdout failed (also one that some code caught and went on)."""
    if raw is None:
        return code
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass  # (an OutputIncomplete is in raw.failure)
    if raw.failure is None:
        return code
    if not getattr(raw.failure, "reported", False):
        return report(raw.failure, "agrieval")
    return raw.failure.exit_code


def held(command: Callable[..., int]) -> Callable[..., None]:
    """A command whose stdout is held until it has decided, then printed at once; it returns its exit code, and
    the process ends with it.

    A command's report is written only once it is complete, in one write (checked whole by
    ``checked_stdout``): a failure half-way never leaves half a report followed by an error object.
    """

    @functools.wraps(command)
    def run(*args, **kwargs) -> None:
        kept = io.StringIO()
        try:
            with redirect_stdout(kept):
                code = command(*args, **kwargs)
        finally:
            text = kept.getvalue()
            if text:
                sys.stdout.write(text)
                sys.stdout.flush()
        raise SystemExit(code)

    return run


# --- the --json contract -------------------------------------------------------------------------------------

# The context of the command that promised one JSON object on stdout (None: no promise in this run).
COMPETITION_NAME = "agrieval.competition_name"  # ctx.meta key: the loaded definition's name (options.load_definition)
_json_promised: ContextVar[Optional[click.Context]] = ContextVar("agrieval_json_promised", default=None)


def promise_json(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """The callback of ``--json``: from here on, a failure of this command still prints one JSON object."""
    if value:
        _json_promised.set(ctx)
    return value


def forget_json_promise() -> None:
    """At the start of a run (the root's ``main``): no promise carried over from an earlier run in this process."""
    _json_promised.set(None)


def json_failure(exc: BaseException) -> None:
    """The JSON object of a failed run, where ``--json`` promised one: not for a usage error (the command line
    was wrong before the command ran) nor where stdout itself is what failed."""
    ctx = _json_promised.get()
    if ctx is None or isinstance(exc, (click.UsageError, OutputIncomplete)):
        return

    name = ctx.meta.get(COMPETITION_NAME) or ctx.params.get("competition") or ""  # the definition's name once read
    click.echo(json.dumps({"schema_version": SCHEMA_VERSION, "competition": name,
                           "status": "error", "n_rows": 0, "metrics": {"public": {}}, "warnings": [],
                           "errors": [{"code": getattr(exc, "code", "internal_error"), "message": str(exc)}]},
                          indent=2))


# --- library warnings ---------------------------------------------------------------------------------------

def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    text = one_line(f"warning [library_warning] {category.__name__}: {message}")
    try:
        click.echo(text, err=True)
    except (OSError, ValueError):
        pass


@contextlib.contextmanager
def library_warnings():
    """Inside: each warning Python would show (its filters decide, once per place by default) is one line
    of ours on stderr; the previous display and filters come back after."""
    with warnings.catch_warnings():
        python_display = warnings.showwarning

        def show(*args, **kwargs):  # --debug is known only once the root's options are parsed
            (python_display if debug() else _warning_line)(*args, **kwargs)

        warnings.showwarning = show
        yield


# --- renderings for the terminal ------------------------------------------------------------------------------

def fmt(x: float | None, digits: int = 4) -> str:
    """``agrieval.scoring.text.tables.fmt`` for the terminal: a visible '-' where a table file leaves the cell empty."""
    return _fmt(x, digits) or "-"


def render_problems(report) -> str:
    out = []
    for kind, items in (("error", report.errors), ("warning", report.warnings)):
        for p in items:
            where = p.file or ""
            if p.line is not None:
                where += f":{p.line}" + (f":{p.column}" if p.column is not None else "")
            # a file name is the participant's choice: one printable line, whatever it holds
            out.append(one_line(f"{where}: {kind} [{p.code}] {p.message}" if where else f"{kind} [{p.code}] {p.message}"))
    return "\n".join(out)


def render_report(report, *, submission: str = "") -> str:
    lines = [f"competition: {one_line(report.competition)}   submission: {one_line(submission)}   rows: {report.n_rows}   "
             f"status: {report.status}"]
    if report.status == "scored":
        names = list(report.metrics.public)
        splits = [("public", report.metrics.public)]
        if report.metrics.private is not None:
            splits.append(("private", report.metrics.private))
        width = max(len(n) for n in names + ["metric"]) + 2
        header = "metric".ljust(width) + "".join(s.rjust(10) for s, _ in splits)
        lines += ["", header, "-" * len(header)]
        for n in names:
            star = " *" if n == report.primary_metric else ""
            lines.append(n.ljust(width) + "".join(fmt(vals.get(n)).rjust(10) for _, vals in splits) + star)
        lines.append(f"(* primary metric: {report.primary_metric})")
        if "why_empty" in report.details.get("private", {}):
            lines.append(one_line(f"(private '-': {report.details['private']['why_empty']})"))
        pub = report.details.get("public", {})
        if "grouping" in pub:
            g = pub["grouping"]
            lines.append(f"{g['unit']}s: {g['n_groups']} from {g['source']} (no official rule exists; see "
                         "`agrieval competitions show`)")
        if "per_group_accuracy" in pub:
            lines += ["", f"accuracy per {pub['group_unit']} (public):"]
            for name, acc in pub["per_group_accuracy"].items():
                lines.append(f"  {cell(name, 20)}{fmt(acc)}")
        if "per_class" in pub:
            lines += ["", f"{'class (public)':<16}{'precision':>10}{'recall':>10}{'f1':>10}{'support':>9}"]
            for c, s in pub["per_class"].items():
                lines.append(f"{cell(c, 16)}{fmt(s['precision']):>10}{fmt(s['recall']):>10}{fmt(s['f1']):>10}"
                             f"{s['support']:>9d}")
            labels = pub["labels"]
            widths = [max(9, len(one_line(c)) + 2) for c in labels]  # whole class names: never cut to 8 characters
            lines += ["", "confusion matrix (rows: true, columns: predicted):",
                      " " * 16 + "".join(cell(c, width, ">") for c, width in zip(labels, widths))]
            for c, row in zip(labels, pub["confusion_matrix"]):
                lines.append(cell(c, 16) + "".join(f"{v:>{width}d}" for v, width in zip(row, widths)))
    problems = render_problems(report)
    if problems:
        lines += ["", problems]
    return "\n".join(lines)
