"""The ``agrieval`` command line: ``cli`` is the console script's entry point (``pyproject.toml``).

Each command's module is internal (the command line is the contract, not its Python): they register through
``cli``'s lazy table, so that ``agrieval score`` imports only what scoring needs. Public is what the other
packages' command trees build on: ``ContractGroup`` (the click group whose ``main`` is the one place where a
failure becomes the contract's line and exit code), ``lazy_import`` (a subcommand imported when it runs),
``document`` and ``epilog`` (the example and exit codes ending each command's ``--help``).
"""

from __future__ import annotations

from agrieval.scoring.cli.group import ContractGroup, document, epilog, lazy_import
from agrieval.scoring.cli.main import cli

__all__ = ["cli", "ContractGroup", "lazy_import", "document", "epilog"]
