"""The click group every ``agrieval`` command tree is built from: the one place where a failure becomes the
contract's line and exit code, and the end of every command's ``--help``.

A ``ContractGroup`` run as the root of a command line (``agrieval``, or ``agrieval.data_tools._cli.data`` called
on its own) catches every failure of every command under it, once, in ``main``: the line and exit code of
``agrieval.scoring.cli._failures``, and the JSON object where ``--json`` promised one
(``agrieval.scoring.cli._output``). Commands raise; none of them catches what it cannot handle better. (``invoke``
translates one thing on the way, a broken pipe, which click's own ``main`` would end with exit 1.) Its command
list shows whole summaries; ``epilog`` and ``document`` give each command an example and its exit codes in
``--help`` (a test checks that each one has them); ``lazy_import`` loads a subcommand only when it runs.
"""

from __future__ import annotations

import errno
import importlib
import sys
from contextvars import ContextVar

import click

from agrieval.scoring.cli._failures import missing_extra, report
from agrieval.scoring.cli._output import checked_stdout, finish, forget_json_promise, json_failure, library_warnings
from agrieval.scoring.runtime._whole_writes import OutputIncomplete

__all__ = ["ContractGroup", "EXIT_CODES_HELP", "epilog", "document", "summary_of", "lazy_import"]

# The exit-code paragraph of every command's --help.
EXIT_CODES_HELP = ("Exit codes: 0 done; 1 input rejected; 2 usage error (bad option, missing file, unknown "
                   "competition, refused output path); 3 host-side problem (bad solution or definition, "
                   "missing extra, incomplete output, internal error).")

# The command line of the deepest group that dispatched (``agrieval data``...): what a missing extra's line names.
_dispatched: ContextVar[str] = ContextVar("agrieval_dispatched", default="agrieval")


class ContractGroup(click.Group):
    """A group whose commands keep the contract, and whose command list shows whole summaries.

    ``click`` cuts a summary at the terminal width with "..."; here it is wrapped instead.
    """

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """The one catch-all: every failure of this command line (parsing the root's own options, a command's
        error, a failed write to stdout) ends as the contract says."""
        stdout = checked_stdout()
        forget_json_promise()
        token = _dispatched.set(prog_name or "agrieval")
        try:
            with library_warnings():  # numpy's, Pillow's, matplotlib's warnings: one line of ours each
                rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) and not isinstance(rv, bool) and rv in (0, 1, 2, 3) else 0
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:  # noqa: BLE001 - every failure becomes the contract's line and code
            json_failure(exc)
            code = report(exc, _dispatched.get())
        finally:
            _dispatched.reset(token)
        code = finish(stdout, code)
        if standalone_mode:
            sys.exit(code)
        return code

    def invoke(self, ctx: click.Context):
        sub = ctx.invoked_subcommand
        _dispatched.set(f"{ctx.command_path} {sub}" if sub else ctx.command_path)
        try:
            return super().invoke(ctx)
        except OSError as exc:  # not a catch-all: one translation, then on to ``main``
            if exc.errno != errno.EPIPE:
                raise
            # click's own main ends a broken pipe (stderr's, or a pipe a command writes) with exit 1, the code of
            # a rejected input; the contract says 3, as for stdout (``output.checked_stdout``)
            raise OutputIncomplete("output", exc) from exc

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.summary(ctx, name)) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def summary(self, ctx: click.Context, name: str) -> str:
        cmd = self.get_command(ctx, name)
        return summary_of(cmd) if cmd is not None else ""


def lazy_import(target: str, command: str):
    """``module:attribute`` imported when the command runs; a missing extra is the contract's one line."""
    module_name, attr = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = missing_extra(exc.name or "", command)
        if missing is None:
            raise
        raise missing from None
    return getattr(module, attr)


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
