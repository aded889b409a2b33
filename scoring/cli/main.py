"""Root of the ``agrieval`` command.

Subcommands are resolved lazily from ``SUBCOMMANDS`` so that ``agrieval score``
imports neither torch nor PIL, and so that each package owns its own commands:
``agrieval data ...`` lives in ``data_tools.cli`` and ``agrieval baselines ...``
in ``baselines.cli``; the scoring core only knows their import paths.
"""

from __future__ import annotations

import importlib

import click

from scoring import __version__

# name -> "module:attribute" of a click command or group.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "score": ("scoring.cli.score:score", "Score a submission against a solution."),
    "validate": ("scoring.cli.validate:validate", "Check a submission's format (and ids, given a solution)."),
    "competitions": ("scoring.cli.competitions:competitions", "List or show competition definitions."),
    "demo": ("scoring.cli.demo:demo", "Score every bundled reference submission and print a leaderboard."),
    "grade": ("scoring.cli.grade:grade", "Grade a submission for a server: always one JSON object."),
    "bundle": ("scoring.cli.bundle:bundle", "Write what a grading platform runs: codabench, codalab, evalai, hf, kaggle."),
    "leaderboard": ("scoring.cli.leaderboard:leaderboard", "Score a folder of submissions into a leaderboard."),
    "rank-agreement": ("scoring.cli.rank_agreement:rank_agreement", "Agreement between two rankings."),
    "ctv": ("scoring.cli.ctv:ctv", "Cross-Team Validation tables and reports."),
    "data": ("data_tools.cli:data", "Curation: catalog, dedup, resize, splits (needs the 'data' extra)."),
    "baselines": ("baselines.cli:baselines", "CTV and PlantCLEF baselines (needs the 'baselines' extra)."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in SUBCOMMANDS:
            return None
        target, help_text = SUBCOMMANDS[name]
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            missing = exc.name or module_name
            if missing == module_name or module_name.startswith(missing + "."):
                return _unavailable(name, help_text, f"'{module_name}' is not available in this install.")
            return _unavailable(
                name,
                help_text,
                f"'agrieval {name}' needs the Python package '{missing}', which is not installed. "
                f"Install the matching extra, e.g. pip install 'agrieval[{_extra_for(name)}]'.",
            )
        return getattr(module, attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help must not import every subcommand (that would pull in torch).
        rows = [(name, SUBCOMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _extra_for(name: str) -> str:
    return {"data": "data", "baselines": "baselines"}.get(name, "all")


def _unavailable(name: str, help_text: str, reason: str) -> click.Command:
    @click.command(name=name, help=help_text, context_settings={"ignore_unknown_options": True})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def _cmd(args: tuple[str, ...]) -> None:
        click.echo(f"error: {reason}", err=True)
        raise SystemExit(3)

    return _cmd


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agrieval")
def cli() -> None:
    """agrieval: strict scoring and evaluation tools for PlantCLEF and the AgrI Challenge.

    Exit codes for commands that read a submission: 0 scored or valid; 1 submission
    rejected (message safe to show a participant); 2 usage error; 3 host-side problem.
    """


if __name__ == "__main__":  # pragma: no cover
    cli()
