"""How every ``agrieval`` command ends on an error: one line on stderr and the contract's exit code.

The line is ``error [code] message``, or ``FILE: error [code] message`` when one file is at fault (a
rejected submission's lines also carry the line and column); the exit codes are those of
``scoring/cli/exit_codes.py``. A traceback is printed only with ``agrieval --debug`` (or
``AGRIEVAL_DEBUG=1``). An error with a stable code is a ``agrieval.scoring.runtime.coded_error.CodedError``
(``agrieval.scoring.cli.command_error.CommandError``, ``OutputRefused``, ``InputError``, ``DataError``, ``CTVError``, the runtime's
``HostError`` and ``OutputIncomplete``...); this module never imports ``data_tools`` or ``baselines``.
"""

from __future__ import annotations

import os
import sys
import traceback

import click

from agrieval.scoring.cli.command_error import CommandError  # noqa: F401 (the commands take it from here)
from agrieval.scoring.cli.exit_codes import EXIT_HOST, EXIT_INTERRUPTED, EXIT_USAGE
from agrieval.scoring.cli.extras import missing_extra
from agrieval.scoring.runtime.coded_error import CodedError

_debug = os.environ.get("AGRIEVAL_DEBUG", "") not in ("", "0")


def set_debug(on: bool) -> None:
    global _debug
    _debug = _debug or on


def debug() -> bool:
    return _debug


def error_line(code: str, message: str, file: str | os.PathLike | None = None) -> str:
    from agrieval.scoring.text.file_names import display_name

    text = f"error [{code}] {message}"
    return display_name(f"{file}: {text}" if file else text)  # a path may hold any bytes


def exit_code_of(exc: BaseException, command: str) -> tuple[int, str | None]:
    """The exit code and the error line (None: nothing to print) for an exception that ended ``command``."""
    if isinstance(exc, click.UsageError):
        return EXIT_USAGE, _usage_line(exc, command)
    if isinstance(exc, click.ClickException):
        return exc.exit_code, error_line(getattr(exc, "code", "bad_option"), exc.format_message())
    if isinstance(exc, (click.Abort, KeyboardInterrupt)):
        return EXIT_INTERRUPTED, error_line("interrupted", "interrupted")
    if isinstance(exc, CodedError):
        from agrieval.scoring.text.file_names import display_name

        return exc.exit_code, display_name(exc.render())
    if isinstance(exc, ModuleNotFoundError):
        missing = missing_extra(exc.name or "", command)
        if missing is not None:
            return missing.exit_code, missing.render()
    hint = "" if _debug else " (run `agrieval --debug ...` for the traceback)"
    return EXIT_HOST, error_line("internal_error", f"internal error: {type(exc).__name__}: {exc}{hint}")


def _usage_line(exc: click.UsageError, command: str) -> str:
    where = exc.ctx.command_path if exc.ctx is not None else command
    code = "bad_option"
    if isinstance(exc, click.BadParameter) and "does not exist" in exc.format_message():
        code = "file_not_found"
    return error_line(code, f"{exc.format_message()} (see '{where} --help')")


def report(exc: BaseException, command: str) -> int:
    """Print the contract's line for ``exc`` (and the traceback with --debug); return the exit code."""
    code, line = exit_code_of(exc, command)
    exc.reported = True  # (``stdout.finish`` prints no second line for a failed write)
    if _debug and not isinstance(exc, click.UsageError):
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    if line is not None:
        try:
            click.echo(line, err=True)
        except (OSError, ValueError):
            pass  # stderr is gone too: the exit code is all that is left
    return code


def refuse_input(exc: CodedError, as_json: bool) -> None:
    """A rejected input file of an analysis command (ctv, rank-agreement, audit): its one JSON object with
    ``--json``, else its one line on stderr; exit 1."""
    if as_json:
        import json

        click.echo(json.dumps({"status": "error", "errors": [exc.as_dict()]}, sort_keys=True))
    else:
        from agrieval.scoring.text.terminal import one_line

        click.echo(one_line(exc.render()), err=True)
    raise SystemExit(1) from None
