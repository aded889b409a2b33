"""Root of the ``agrieval`` command.

Subcommands are resolved lazily from ``SUBCOMMANDS`` so that ``agrieval score``
imports neither torch nor PIL, and so that each package owns its own commands:
``agrieval data ...`` lives in ``agrieval.data_tools._cli`` and ``agrieval baselines ...``
in ``agrieval.baselines._cli``; the scoring core only knows their import paths. Every failure of every
command ends in one place, ``ContractGroup.main`` (``agrieval.scoring.cli.group``).
"""

from __future__ import annotations

import click

from agrieval.scoring import __version__
from agrieval.scoring.cli._failures import set_debug
from agrieval.scoring.cli.group import EXIT_CODES_HELP, ContractGroup, lazy_import

# name -> "module:attribute" of a click command or group.
_SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "score": ("agrieval.scoring.cli._score:score", "Score a submission against a solution."),
    "validate": ("agrieval.scoring.cli._validate:validate", "Check a submission's format (and ids, given a solution)."),
    "competitions": ("agrieval.scoring.cli._competitions:competitions", "List or show competition definitions."),
    "demo": ("agrieval.scoring.cli._demo:demo", "Score every bundled reference submission and print a leaderboard."),
    "grade": ("agrieval.scoring.cli._grade:grade", "Grade a submission for a server: always one JSON object."),
    "bundle": ("agrieval.scoring.cli._bundle:bundle", "Write what a grading platform runs: codabench, codalab, evalai, hf, kaggle."),
    "leaderboard": ("agrieval.scoring.cli._leaderboard:leaderboard", "Score a folder of submissions into a leaderboard."),
    "select": ("agrieval.scoring.cli._select:select", "Gone: a team's final selection is `agrieval server select`."),
    "server": ("agrieval.scoring.cli._server:server", "The own grading server's store: init, select, void, rescore, board, export, import."),
    "rank-agreement": ("agrieval.scoring.cli._rank_agreement:rank_agreement", "Agreement between two rankings."),
    "audit": ("agrieval.scoring.cli._audit:audit", "Audit a competition's submissions: teams whose public gap selection cannot explain."),
    "ctv": ("agrieval.scoring.cli._ctv:ctv", "Cross-Team Validation tables and reports."),
    "data": ("agrieval.data_tools._cli:data", "Curation: catalog, dedup, resize, splits (needs the 'data' extra)."),
    "baselines": ("agrieval.baselines._cli:baselines", "CTV and PlantCLEF baselines (needs the 'baselines' extra)."),
}


class _LazyGroup(ContractGroup):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in _SUBCOMMANDS:
            return None
        return lazy_import(_SUBCOMMANDS[name][0], f"agrieval {name}")

    def summary(self, ctx: click.Context, name: str) -> str:
        return _SUBCOMMANDS[name][1]  # help must not import every subcommand (that would pull in torch)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES_HELP)
@click.version_option(__version__, prog_name="agrieval", help="Print the version and exit.")
@click.option("--debug", is_flag=True, help="On an error, also print the Python traceback (or set AGRIEVAL_DEBUG=1).")
def cli(debug: bool) -> None:
    """Strict scoring and evaluation tools for PlantCLEF and the AgrI Challenge.

    \b
    Example:
      agrieval validate submission.csv -c plantclef2025
    """
    set_debug(debug)


if __name__ == "__main__":  # pragma: no cover
    cli()
