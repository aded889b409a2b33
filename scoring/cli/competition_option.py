"""``--competition NAME_OR_TOML``: the option, and the definition it names.

A shipped name, a frozen ``.json`` or a person's ``.toml`` (validated on every run). A name that is neither
shipped nor an existing file is a usage error (exit 2) whose message suggests the nearest name; an invalid
definition is host-side (exit 3).
"""

from __future__ import annotations

from pathlib import Path

import click

from agrieval.scoring.cli.errors import CommandError
from agrieval.scoring.cli.exit_codes import EXIT_USAGE
from agrieval.scoring.runtime.definition import CompetitionDefinition

competition_option = click.option(
    "--competition", "-c", required=True, metavar="NAME_OR_TOML",
    help="A shipped competition (see `agrieval competitions`) or a path to your own TOML definition.")


def load_definition(name: str) -> CompetitionDefinition:
    """Load a competition named on the command line: unknown names are a usage error with a suggestion."""
    from agrieval.scoring.authoring.definitions import load_competition
    from agrieval.scoring.runtime.definition import shipped_competitions
    from agrieval.scoring.runtime.problems import HostError

    try:
        return load_competition(name)
    except HostError as exc:
        if name not in shipped_competitions() and not Path(name).exists():
            raise CommandError("unknown_competition", str(exc), EXIT_USAGE) from None
        raise
