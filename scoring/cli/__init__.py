"""The ``agrieval`` command line: ``cli`` is the console script's entry point (``pyproject.toml``).

Each command's module is internal (the command line is the contract, not its Python): they register through
``cli``'s lazy table, so that ``agrieval score`` imports only what scoring needs. Public is what the other
packages' command trees build on: ``ContractGroup`` (the click group whose ``main`` is the one place where a
failure becomes the contract's line and exit code), ``lazy_import`` (a subcommand imported when it runs),
``document`` and ``epilog`` (the example and exit codes ending each command's ``--help``). The names load on
first use, so that ``python -m agrieval.scoring.cli.main`` runs its module once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.scoring.cli.group import ContractGroup, document, epilog, lazy_import
    from agrieval.scoring.cli.main import cli

__all__ = ["cli", "ContractGroup", "lazy_import", "document", "epilog"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
