"""``agrieval competitions [show NAME]``."""

from __future__ import annotations

import click


@click.group(invoke_without_command=True)
@click.pass_context
def competitions(ctx: click.Context) -> None:
    """List the shipped competition definitions."""
    if ctx.invoked_subcommand is None:
        from scoring.definition import available_competitions, load_competition

        for name in available_competitions():
            d = load_competition(name)
            click.echo(f"{name:<20}{d.task:<12}primary={d.primary_metric:<18}{d.title}")


@competitions.command()
@click.argument("name")
def show(name: str) -> None:
    """Print one definition (the TOML as shipped, or your file)."""
    import sys
    from pathlib import Path

    from scoring.definition import load_competition
    from scoring.problems import HostError

    try:
        d = load_competition(name)
    except HostError as exc:
        click.echo(f"error [{exc.code}] {exc}", err=True)
        sys.exit(3)
    click.echo(f"# {d.source_path}")
    click.echo(Path(d.source_path).read_text(encoding="utf-8"))
