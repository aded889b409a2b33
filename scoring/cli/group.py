"""The click group every ``agrieval`` command tree is built from, and the end of every command's ``--help``.

A ``ContractGroup``'s commands keep the contract (every failure becomes the line and exit code of
``agrieval.scoring.cli.errors``), and its command list shows whole summaries. ``epilog`` and ``document`` give each
command an example and its exit codes in ``--help`` (a test checks that each one has them).
"""

from __future__ import annotations

import sys

import click

from agrieval.scoring.cli.errors import report

# The exit-code paragraph of every command's --help.
EXIT_CODES_HELP = ("Exit codes: 0 done; 1 input rejected; 2 usage error (bad option, missing file, unknown "
                   "competition, refused output path); 3 host-side problem (bad solution or definition, "
                   "missing extra, incomplete output, internal error).")


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
