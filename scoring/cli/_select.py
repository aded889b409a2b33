"""``agrieval select``: gone with the submission log; a team's final selection is ``agrieval server select``."""

from __future__ import annotations

import click

from agrieval.scoring.cli._failures import CommandError
from agrieval.scoring.cli.group import epilog


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
               epilog=epilog("agrieval server select comp.db --team team-a 3 7",
                             "Exit codes: 2 always (the command is gone; the message names its successor)."))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def select(args) -> None:
    """Gone: record a team's final selection with `agrieval server select DB --team T N...`."""
    raise CommandError("bad_option", "`agrieval select` is gone with the submission log: use `agrieval server "
                                     "select DB --team T N...` (a log comes into a store with `agrieval server "
                                     "import DB --log LOG.csv`)")
