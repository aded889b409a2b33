"""How every ``agrieval`` command fails: the exit codes, the error line, and the one mapping between them.

====  =====================================================================
0     done (scored, valid, written)
1     the input was read and rejected: an invalid submission, a rejected
      table or run folder, a failed check (leakage, unknown class folders)
2     the command line is wrong: an unknown or bad option, a file or folder
      that does not exist, an unknown competition (with a "did you mean"),
      an output path the output policy refuses, a device that is not there
3     host-side: a bad solution or competition definition, a missing extra
      (the line names the ``pip install`` command), a report or result that
      could not be written whole (a full disk, a closed or broken stdout),
      an internal error
130   interrupted (Ctrl-C)
====  =====================================================================

The line is ``error [code] message``, or ``FILE: error [code] message`` when one file is at fault (a
rejected submission's lines also carry the line and column). ``exit_code_of`` is the one mapping from an
exception to that line and code; it runs in one place, the root group's ``main``
(``agrieval.scoring.cli.group.ContractGroup``), never in a command. A traceback is printed only with
``agrieval --debug`` (or ``AGRIEVAL_DEBUG=1``). An error with a stable code is a
``agrieval.scoring.runtime.coded_error.CodedError`` (``CommandError`` here, ``OutputRefused``, ``InputError``,
``DataError``, ``CTVError``, the runtime's ``HostError`` and ``OutputIncomplete``...); this module never imports
``data_tools`` or ``baselines``.

Also here: the missing-extra error (a command of an extra whose module is missing ends with the ``pip
install`` line that installs it, exit 3) and ``markdown()``, the catalogue of every stable code that
docs/errors.md is generated from (a test keeps the file current).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback

import click

from agrieval.scoring.runtime.coded_error import CodedError
from agrieval.scoring.runtime.problems import errors_markdown
from agrieval.scoring.runtime.untrusted import CODES as UNTRUSTED_CODES
from agrieval.scoring.text.terminal import one_line

# Imported inside functions, so that importing this module loads only what it needs: scoring.text.file_names,
# scoring.analysis_input.input_error, scoring.writing.policy (`agrieval score` does not need them);
# scoring.server.store (it loads sqlite3).

__all__ = ["EXIT_OK", "EXIT_REJECTED", "EXIT_USAGE", "EXIT_HOST", "EXIT_INTERRUPTED", "CommandError",
           "error_line", "exit_code_of", "report", "refuse_input", "missing_extra", "require",
           "exit_unless_installed", "install_command", "set_debug", "debug", "markdown"]

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_HOST = 0, 1, 2, 3
EXIT_INTERRUPTED = 130


class CommandError(CodedError):
    """A failure of the command line (exit 2 unless told otherwise) or of the host, with a stable code."""

    exit_code = EXIT_USAGE


# --- --debug ----------------------------------------------------------------------------------------------

_debug = os.environ.get("AGRIEVAL_DEBUG", "") not in ("", "0")


def set_debug(on: bool) -> None:
    global _debug
    _debug = _debug or on


def debug() -> bool:
    return _debug


# --- the one mapping: exception -> (exit code, line) ----------------------------------------------------------

def error_line(code: str, message: str, file: str | os.PathLike | None = None) -> str:
    from agrieval.scoring.text.file_names import display_name

    text = f"error [{code}] {message}"
    return display_name(f"{file}: {text}" if file else text)  # a path may hold any bytes


def exit_code_of(exc: BaseException, command: str) -> tuple[int, str | None]:
    """The exit code and the error line (None: nothing to print) for an exception that ended ``command``."""
    from agrieval.scoring.text.file_names import display_name

    if isinstance(exc, click.UsageError):
        return EXIT_USAGE, _usage_line(exc, command)
    if isinstance(exc, click.ClickException):
        return exc.exit_code, error_line(getattr(exc, "code", "bad_option"), exc.format_message())
    if isinstance(exc, (click.Abort, KeyboardInterrupt)):
        return EXIT_INTERRUPTED, error_line("interrupted", "interrupted")
    if isinstance(exc, CodedError):
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
    exc.reported = True  # (``output.finish`` prints no second line for a failed write)
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
        click.echo(json.dumps({"status": "error", "errors": [exc.as_dict()]}, sort_keys=True))
    else:
        click.echo(one_line(exc.render()), err=True)
    raise SystemExit(1) from None


# --- missing extras: the pip install line, before any work is done -----------------------------------------------

# Third-party module -> (the pip package that provides it, the extra that installs it).
EXTRAS: dict[str, tuple[str, str]] = {
    "PIL": ("pillow", "data"),
    "imagehash": ("imagehash", "data"),
    "pillow_heif": ("pillow-heif", "data"),
    "pyarrow": ("pyarrow", "data"),
    "tqdm": ("tqdm", "data"),
    "torch": ("torch", "baselines"),
    "torchvision": ("torchvision", "baselines"),
    "timm": ("timm", "baselines"),
    "safetensors": ("safetensors", "baselines"),
    "simplejpeg": ("simplejpeg", "baselines"),
    "matplotlib": ("matplotlib", "plots"),
    "sklearn": ("scikit-learn", "test"),
    "skimage": ("scikit-image", "test"),
    "polars": ("polars", "bench"),
    "duckdb": ("duckdb", "bench"),
}


def install_command(extra: str) -> str:
    return f"pip install 'agrieval[{extra}]'"


def missing_extra(module: str, command: str) -> CommandError | None:
    """The one-line error for a missing third-party module, or None when ``module`` belongs to no extra."""
    top = module.split(".")[0]
    if top not in EXTRAS:
        return None
    package, extra = EXTRAS[top]
    if command.startswith("agrieval baselines"):
        extra = "baselines"  # it holds the data extra too: one command installs all a baseline needs
    return CommandError("missing_dependency",
                        f"'{command}' needs {package} (the '{extra}' extra), which this install lacks: "
                        f"{install_command(extra)} (from a clone: pip install -e '.[{extra}]')", EXIT_HOST)


def require(command: str, *modules: str) -> None:
    """Fail up front (before any work or output) when one of ``modules`` is not installed."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise missing_extra(module, command) or CommandError(
                "missing_dependency", f"'{command}' needs the Python module {module!r}", EXIT_HOST)


def exit_unless_installed(command: str, *modules: str) -> None:
    """For scripts outside the CLI (benchmarks): the contract's one line and exit 3 when a module is missing."""
    try:
        require(command, *modules)
    except CommandError as exc:
        print(exc.render(), file=sys.stderr)
        sys.exit(exc.exit_code)


# --- the catalogue of codes (docs/errors.md) -----------------------------------------------------------------

# The command line's own codes; the grading runtime's, the analysis inputs' and the output policy's come from
# the catalogues that define them (``markdown``).
COMMAND_CODES: dict[str, str] = {
    "library_warning": "Warning: a library (numpy, Pillow, matplotlib...) warned; shown as one line "
                       "`warning [library_warning] Category: message` (Python's own display with --debug).",
    "output_incomplete": "Exit code 3: a report or result could not be written whole (a full disk, a file-size "
                         "limit, a closed stdout, a reader that went away); a file is then not kept under its "
                         "final name.",
    # the own server (`grade --store`, `server ...`): scoring/_server/submission_log.py, intake.py
    "folder_not_found": "Exit code 3: the folder of `grade --ladder` does not exist; create it (nothing was graded).",
    "bad_team": "Exit code 2: a `--team` name is empty, longer than 100 characters or not one printable line.",
    "bad_selection": "Exit code 1: `agrieval server select` names a submission the team has no scored, not voided "
                     "one for, or more than the store's selection limit (the message lists those it may select).",
    "selection_closed": "Exit code 1: `agrieval server select` after the store's selection deadline.",
    "bad_void": "Exit code 1: `agrieval server void` names a submission or team the store does not have, or one "
                "already voided.",
}


def _table(codes: dict[str, str]) -> list[str]:
    return ["| code | meaning |", "|---|---|"] + [f"| `{code}` | {text} |" for code, text in codes.items()]


def markdown() -> str:
    """docs/errors.md: every stable code. The grading runtime's codes
    (``agrieval.scoring.runtime.problems.CODES``) come first, as the runtime itself writes them (it must stay
    free of the rest of ``scoring``); then the analysis commands' input codes, the output policy's and the
    command line's own (``COMMAND_CODES``)."""
    from agrieval.scoring._server.store import CODES as STORE_CODES
    from agrieval.scoring.analysis_input.input_error import CODES as INPUT_CODES
    from agrieval.scoring.writing.policy import CODES as OUTPUT_CODES

    lines = [errors_markdown().rstrip("\n"), "",
             "## Analysis inputs (`ctv`, `rank-agreement`)", "",
             "Exit code 1; from `scoring/analysis_input/input_error.py`.", ""] + _table(INPUT_CODES)
    lines += ["", "## Files others wrote", "", "Exit code 1 (a caller with its own catalogue keeps its code and "
              "this message); from `scoring/runtime/untrusted.py`, the one opening rule "
              "([untrusted input](untrusted_input.md)).", ""] + _table(UNTRUSTED_CODES)
    lines += ["", "## The own server's store", "", "Exit code 3 unless said (a missing store, a path that is not a "
              "regular file: 2); from `scoring/_server/store.py`.", ""] + _table(STORE_CODES)
    lines += ["", "## Output paths", "", "Exit code 2; from `scoring/writing/policy.py`.", ""] + _table(OUTPUT_CODES)
    lines += ["", "## Command line", "", "From `scoring/cli/_failures.py`.", ""] + _table(COMMAND_CODES)
    return "\n".join(lines) + "\n"
