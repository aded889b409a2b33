"""The one contract every ``agrieval`` command keeps: exit codes, the error line, missing extras, ``--debug``.

Every failure ends as one line on stderr, ``error [code] message`` (or
``FILE: error [code] message`` when one file is at fault; a rejected
submission's lines also carry the line and column), and one exit code:

====  =====================================================================
0     done (scored, valid, written)
1     the input was read and rejected: an invalid submission, a rejected
      table or run folder, a failed check (leakage, unknown class folders)
2     the command line is wrong: an unknown or bad option, a file or folder
      that does not exist, an unknown competition (with a "did you mean"),
      an output path the output policy refuses, a device that is not there
3     host-side: a bad solution or competition definition, a missing extra
      (the line names the ``pip install`` command), an internal error
====  =====================================================================

A warning from a library (numpy's RuntimeWarning, a Pillow or matplotlib warning) is one line,
``warning [library_warning] Category: message``, never Python's two lines with the source line that
raised it (``library_warnings``); ``--debug`` leaves Python's own display.

A broken pipe (``agrieval validate bad.csv | head -1``) keeps the exit code
the command had reached (commands that know their verdict print through
``emit``), and is 141 (128 + SIGPIPE, as a shell reports it) otherwise: never
0 for a rejected file. A traceback is printed only with ``agrieval --debug``
(or ``AGRIEVAL_DEBUG=1``).

An exception is a *command error* when it has ``code``, ``message`` and
``exit_code`` attributes (``scoring.writing.policy.OutputRefused``,
``scoring.ctv.input_error.InputError``, ``data_tools.errors.DataError``,
``baselines.ctv.errors.CTVError``, ``CommandError`` below); this module
never imports ``data_tools`` or ``baselines``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import traceback
import warnings
from pathlib import Path

import click

from scoring.cli.exit_codes import (  # noqa: F401 (the commands take them from here)
    EXIT_BROKEN_PIPE,
    EXIT_HOST,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REJECTED,
    EXIT_USAGE,
)
from scoring.cli.stdout import _silence_stdout, emit  # noqa: F401 (the commands take emit from here)

# The exit-code paragraph of every command's --help (a test checks that each one has it).
EXIT_CODES_HELP = ("Exit codes: 0 done; 1 input rejected; 2 usage error (bad option, missing file, unknown "
                   "competition, refused output path); 3 host-side problem (bad solution or definition, "
                   "missing extra, internal error).")

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

_debug = os.environ.get("AGRIEVAL_DEBUG", "") not in ("", "0")


def set_debug(on: bool) -> None:
    global _debug
    _debug = _debug or on


def debug() -> bool:
    return _debug


class CommandError(Exception):
    """A failure of the command line or of the host, with a stable code and the contract's exit code."""

    def __init__(self, code: str, message: str, exit_code: int = EXIT_USAGE, file: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.exit_code = exit_code
        self.file = file


def error_line(code: str, message: str, file: str | os.PathLike | None = None) -> str:
    from scoring.text.file_names import display_name

    text = f"error [{code}] {message}"
    return display_name(f"{file}: {text}" if file else text)  # a path may hold any bytes


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
        print(error_line(exc.code, exc.message), file=sys.stderr)
        sys.exit(exc.exit_code)


def competition(name: str):
    """Load a competition named on the command line: unknown names are a usage error with a suggestion."""
    from scoring.authoring.definitions import load_competition
    from scoring.runtime.definition import shipped_competitions
    from scoring.runtime.problems import HostError

    try:
        return load_competition(name)
    except HostError as exc:
        if name not in shipped_competitions() and not Path(name).exists():
            raise CommandError("unknown_competition", str(exc), EXIT_USAGE) from None
        raise


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    from scoring.text.terminal import one_line

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
            (python_display if _debug else _warning_line)(*args, **kwargs)

        warnings.showwarning = show
        yield


def exit_code_of(exc: BaseException, command: str) -> tuple[int, str | None]:
    """The exit code and the error line (None: nothing to print) for an exception that ended ``command``."""
    from scoring.runtime.problems import HostError

    if isinstance(exc, click.UsageError):
        return EXIT_USAGE, _usage_line(exc, command)
    if isinstance(exc, click.ClickException):
        return exc.exit_code, error_line(getattr(exc, "code", "bad_option"), exc.format_message())
    if isinstance(exc, (click.Abort, KeyboardInterrupt)):
        return EXIT_INTERRUPTED, error_line("interrupted", "interrupted")
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()
        return EXIT_BROKEN_PIPE, None
    if isinstance(exc, HostError):
        return EXIT_HOST, error_line(exc.code, str(exc))
    if all(hasattr(exc, a) for a in ("code", "message", "exit_code")):
        file = getattr(exc, "file", None) or getattr(exc, "path", None)
        if hasattr(exc, "render") and getattr(exc, "line", None) is not None:
            from scoring.text.file_names import display_name

            return exc.exit_code, display_name(exc.render())
        return exc.exit_code, error_line(exc.code, exc.message, file)
    if isinstance(exc, ModuleNotFoundError):
        missing = missing_extra(exc.name or "", command)
        if missing is not None:
            return missing.exit_code, error_line(missing.code, missing.message)
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
    if _debug and not isinstance(exc, (click.UsageError, BrokenPipeError)):
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    if line is not None:
        try:
            click.echo(line, err=True)
        except OSError:
            pass
    return code


class ContractGroup(click.Group):
    """A group whose commands keep the contract, and whose command list shows whole summaries.

    ``click`` cuts a summary at the terminal width with "..."; here it is wrapped instead.
    """

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure becomes the contract's line and code
            sys.exit(report(exc, _path(ctx)))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.summary(ctx, name)) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def summary(self, ctx: click.Context, name: str) -> str:
        cmd = self.get_command(ctx, name)
        return summary_of(cmd) if cmd is not None else ""


def epilog(example: str, codes: str = EXIT_CODES_HELP) -> str:
    """The end of a command's --help: an example (kept as written) and its exit codes."""
    lines = "\n".join(f"  {line}" for line in example.strip().splitlines())
    return f"\b\nExample:\n{lines}\n\n{codes}"


def document(group: click.Group, examples: dict[str, str | tuple[str, str]]) -> None:
    """Give ``group`` (key ``""``) and each of its commands an example and exit codes in --help.

    A value is an example, or (example, exit-code sentence) when the command's codes say more.
    """
    for name, value in examples.items():
        cmd = group if name == "" else group.commands[name]
        example, codes = (value, EXIT_CODES_HELP) if isinstance(value, str) else value
        cmd.epilog = epilog(example, codes)


def summary_of(cmd: click.Command) -> str:
    """The first sentence of a command's help, whole."""
    if cmd.short_help:
        return cmd.short_help
    text = (cmd.help or "").strip().split("\n\n")[0]
    return " ".join(text.split())


def _path(ctx: click.Context) -> str:
    sub = ctx.invoked_subcommand
    return f"{ctx.command_path} {sub}" if sub else ctx.command_path


def lazy_import(target: str, command: str):
    """``module:attribute`` imported when the command runs; a missing extra is the contract's one line."""
    import importlib

    module_name, attr = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = missing_extra(exc.name or "", command)
        if missing is None:
            raise
        raise missing from None
    return getattr(module, attr)
